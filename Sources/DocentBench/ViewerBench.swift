import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `docent-bench viewer`: `docent serve` over the corpus, measured from Chromium — how soon a
/// keystroke's results are on the page, and how soon a change on disk reaches an open preview.
struct ViewerBench: ParsableCommand, BenchOutput {
    static let configuration = CommandConfiguration(
        commandName: "viewer",
        abstract: "docent serve on the corpus, from headless Chromium: keystroke-to-results and disk-to-preview latency."
    )

    @Argument(help: "The corpus directory (see Benchmarks/make-corpus.sh).")
    var corpus: String = "/tmp/docent-bench/corpus"

    @Option(help: "Keep the index here (reused by the next run, which then skips the cold index).")
    var work: String?

    @Option(help: "The Selenium script (Benchmarks/browser/drive.py).")
    var script: String?

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    func run() throws {
        guard FileManager.default.fileExists(atPath: corpus) else { throw ValidationError("no corpus at \(corpus); see Benchmarks/make-corpus.sh") }
        let work = self.work ?? FileManager.default.temporaryDirectory.appendingPathComponent("docent-viewer-\(getpid())").path
        let scratch = work + "/live"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { if self.work == nil { try? FileManager.default.removeItem(atPath: work) } }
        let docent = DocentProcess(work: work)
        log("indexing \(corpus)")
        guard try docent.run(["index", corpus, scratch]) == 0 else { throw BenchError("docent index failed") }

        // `docent serve`, which also watches (no `docent watch` runs): its first line is the address.
        let server = Process()
        server.executableURL = URL(fileURLWithPath: docent.binary)
        server.arguments = ["serve", "--port", "0"]
        server.environment = docent.environment
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGTERM)
            server.waitUntilExit()
        }
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchError("docent serve printed no address") }
            line += chunk
        }
        let address = String(decoding: line.prefix { $0 != 0x0A }, as: UTF8.self)
        log("serving at \(address.split(separator: "?")[0]); driving Chromium")

        // From the package's directory (where `.build/release/docent-bench` is run), else beside .build.
        let inHere = FileManager.default.currentDirectoryPath + "/Benchmarks/browser/drive.py"
        let driver = script ?? (FileManager.default.fileExists(atPath: inHere) ? inHere
            : URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Benchmarks/browser/drive.py").path)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [driver, "bench", address, scratch] + BenchQuery.all.map(\.docent)
        let report = Pipe()
        python.standardOutput = report
        try python.run()
        let data = report.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        guard python.terminationStatus == 0,
              let figures = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw BenchError("the browser run failed: \(String(decoding: data, as: UTF8.self))")
        }
        if json {
            print(String(decoding: try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys]), as: UTF8.self))
            return
        }
        func ms(_ key: String) -> String { (figures[key] as? Double).map { String(format: "%.1f ms", $0) } ?? "–" }
        print("| what | p50 | p99 | max | samples | goal |")
        print("|---|---:|---:|---:|---:|---|")
        print("| keystroke → results on the page | \(ms("keystrokeP50")) | \(ms("keystrokeP99")) | \(ms("keystrokeMax")) | \(figures["keystrokes"] ?? 0) | p50 < 20 ms, p99 < 100 ms |")
        print("| … of which the server's search | \(ms("serverP50")) | \(ms("serverP99")) | – | \(figures["keystrokes"] ?? 0) | |")
        print("| change on disk → open preview | \(ms("changeP50")) | \(ms("changeP99")) | – | \(figures["changes"] ?? 0) | p50 < 100 ms |")
    }
}
