import ArgumentParser
import Foundation
import SystemPackage
import Watcher

/// `docent-bench pdf`: how far the text Docent extracts from each PDF agrees with `pdftotext`'s.
struct PDFBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pdf",
        abstract: "Word overlap between `docent export --as txt` and `pdftotext` on every PDF of the corpus."
    )

    @Argument(help: "The corpus directory (see Benchmarks/make-corpus.sh).")
    var corpus: String = "/tmp/docent-bench/corpus"

    func run() throws {
        var files: [FilePath] = []
        Crawler().walk(FilePath(corpus)) { if $0.extension?.lowercased() == "pdf" { files.append($0) } }
        guard !files.isEmpty else { throw ValidationError("no PDFs under \(corpus)") }
        let docent = DocentProcess(work: FileManager.default.temporaryDirectory.appendingPathComponent("docent-pdf-\(getpid())").path)
        var overlaps: [Double] = []
        for file in files {
            let reference = try output("/usr/bin/pdftotext", [file.string, "-"])
            let ours = try output(docent.binary, ["export", file.string, "--as", "txt"])
            let overlap = Self.overlap(Self.words(reference), Self.words(ours))
            overlaps.append(overlap)
            if overlap < 0.95 { FileHandle.standardError.write(Data(String(format: "%.3f %@\n", overlap, file.string).utf8)) }
        }
        let mean = overlaps.reduce(0, +) / Double(overlaps.count)
        print(String(format: "%d PDFs: mean word overlap with pdftotext %.2f%%, median %.2f%%, lowest %.2f%%, %d under 95%%",
                     overlaps.count, mean * 100, Measure.median(overlaps) * 100, (overlaps.min() ?? 0) * 100, overlaps.filter { $0 < 0.95 }.count))
    }

    /// Lower-cased words (letters and digits) with their counts.
    static func words(_ text: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for word in text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) { counts[String(word), default: 0] += 1 }
        return counts
    }

    /// Words in common (as multisets) over the larger of the two word counts; 1 when both are empty.
    static func overlap(_ a: [String: Int], _ b: [String: Int]) -> Double {
        let (totalA, totalB) = (a.values.reduce(0, +), b.values.reduce(0, +))
        guard max(totalA, totalB) > 0 else { return 1 }
        let common = a.reduce(0) { $0 + min($1.value, b[$1.key] ?? 0) }
        return Double(common) / Double(max(totalA, totalB))
    }

    private func output(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
