import ArgumentParser
import Foundation
import SystemPackage
import Watcher

/// `docent-bench ocr`: OCR throughput on pages of the corpus's PDFs drawn as pictures, against
/// Tesseract's own command line over the same pictures in the same run.
struct OCRBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Pages per second of `docent index` with OCR on, against the tesseract command on the same pages."
    )

    @Argument(help: "The corpus directory (see Benchmarks/make-corpus.sh).")
    var corpus: String = "/tmp/docent-bench/corpus"

    @Option(help: "How many pages (the first pages of the corpus's PDFs, in path order).")
    var pages = 40

    @Option(help: "Working directory (pictures, index, cache); removed first.")
    var work = "/tmp/docent-bench-ocr"

    func run() throws {
        var pdfs: [FilePath] = []
        Crawler().walk(FilePath(corpus)) { if $0.extension?.lowercased() == "pdf" { pdfs.append($0) } }
        pdfs.sort { $0.string < $1.string }
        guard !pdfs.isEmpty else { throw ValidationError("no PDFs under \(corpus)") }
        try? FileManager.default.removeItem(atPath: work)
        let scans = work + "/scans"
        try FileManager.default.createDirectory(atPath: scans, withIntermediateDirectories: true)
        // Pictures of pages, as a scanner gives them: 300 dpi grey PNGs (pdftoppm), the
        // second page of each PDF (the first is often a cover).
        var made = 0
        for (n, pdf) in pdfs.enumerated() where made < pages {
            let prefix = scans + String(format: "/page%03d", n)
            let result = try Spawn.run(["pdftoppm", "-r", "300", "-gray", "-png", "-f", "2", "-l", "2", "-singlefile", pdf.string, prefix])
            if result.status == 0, FileManager.default.fileExists(atPath: prefix + ".png") { made += 1 }
        }
        guard made > 0 else { throw BenchError("pdftoppm made no pages") }
        FileHandle.standardError.write(Data("\(made) pages drawn at 300 dpi\n".utf8))

        // The baseline: tesseract's command, one process per page, as many at once as cores.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let baseline = try Spawn.shell("ls \(scans)/*.png | xargs -P \(cores) -I{} tesseract {} - -l eng >/dev/null 2>&1")

        // Docent: a cold index of the pictures with OCR on (fresh cache), then a new index of
        // the same pictures (the cache answers), then OCR off.
        let config = work + "/config"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "ocr:\n  enabled: true\n  languages: [eng]\n".write(toFile: config + "/config.yaml", atomically: true, encoding: .utf8)
        let docent = DocentProcess(work: work)
        var environment = docent.environment
        environment["DOCENT_CONFIG_DIR"] = config
        let cold = try Spawn.run([docent.binary, "index", scans], environment: environment)
        guard cold.status == 0 else { throw BenchError("docent index exited with \(cold.status)") }
        try FileManager.default.removeItem(atPath: work + "/data")
        let cached = try Spawn.run([docent.binary, "index", scans], environment: environment)
        try FileManager.default.removeItem(atPath: work + "/data")
        environment["DOCENT_CONFIG_DIR"] = "/nonexistent/docent-bench-config"
        let off = try Spawn.run([docent.binary, "index", scans], environment: environment)

        func rate(_ seconds: Double) -> String { String(format: "%.2f pages/s (%.1f s)", Double(made) / seconds, seconds) }
        print("| \(made) pages, 300 dpi, \(cores) cores | |")
        print("|---|---:|")
        print("| tesseract command (baseline, \(cores) at once) | \(rate(baseline)) |")
        print("| docent index, OCR on, fresh cache | \(rate(cold.seconds)) — \(String(format: "%.2f×", baseline / cold.seconds)) the baseline's rate |")
        print("| docent index, OCR on, results cached (new index) | \(rate(cached.seconds)) |")
        print("| docent index, OCR off | \(rate(off.seconds)) |")
    }
}
