import ArgumentParser
import Classifier
import ContentTypes
import Dispatch
import Foundation
import Synchronization
import SystemPackage
import Watcher

/// Classification throughput beside `file --mime-type`, and agreement with shared-mime-info (`gio`).
struct ClassifyBench: ParsableCommand, BenchOutput {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Docent's classification throughput and agreement, against file(1) and gio in the same run."
    )

    @Argument(help: "The corpus directory (see Benchmarks/make-corpus.sh).")
    var corpus: String = "/tmp/docent-bench/corpus"

    @Option(help: "Runs of each timed step; the median is reported.")
    var runs = 3

    @Option(help: "Worker threads for Docent's parallel run.")
    var workers = 2

    @Option(help: "Bytes of each file given to libmagic.")
    var prefix = Classifier.defaultPrefixLimit

    @Flag(help: "Skip the gio agreement pass (it takes a minute).")
    var skipAgreement = false

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    @Option(help: "Write every disagreement with gio (path, gio's type, Docent's) to this file.")
    var disagreements: String?

    @Option(help: "Also score Docent, gio and file(1) against typed samples (Benchmarks/make-typed-samples.sh DIR).")
    var typed: String?

    func run() throws {
        var files: [FilePath] = []
        Crawler().walk(FilePath(corpus)) { files.append($0) }
        guard !files.isEmpty else { throw ValidationError("no files under \(corpus); build the corpus with Benchmarks/make-corpus.sh") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("docent-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let listNL = work + "/files.lst", list0 = work + "/files.lst0"
        try files.map(\.string).joined(separator: "\n").appending("\n").write(toFile: listNL, atomically: false, encoding: .utf8)
        try Data(files.map { $0.string + "\0" }.joined().utf8).write(to: URL(fileURLWithPath: list0))
        log("corpus: \(files.count) files; \(runs) runs each, medians")

        // Warm the page cache once so every contender reads from memory.
        _ = try Measure.shell("xargs -0 cat < '\(list0)'")

        var fileOne: [Double] = [], fileTwo: [Double] = [], docentOne: [Double] = [], docentPar: [Double] = []
        var results: [Classification?] = []
        for run in 1...runs {
            fileOne.append(try Measure.seconds { try Measure.shell("file --mime-type -b -f '\(listNL)'") })
            fileTwo.append(try Measure.seconds { try Measure.shell("xargs -0 -P2 -n 2000 file --mime-type -b < '\(list0)'") })
            docentOne.append(try Measure.seconds { _ = try classifyAll(files, workers: 1) })
            docentPar.append(try Measure.seconds { results = try classifyAll(files, workers: workers) })
            log("run \(run): file 1p \(fmt(fileOne.last!)) s, file xargs -P2 \(fmt(fileTwo.last!)) s, docent 1 worker \(fmt(docentOne.last!)) s, docent \(workers) workers \(fmt(docentPar.last!)) s")
        }

        var figures: [String: Any] = [
            "files": files.count, "runs": runs, "workers": workers, "prefixBytes": prefix,
            "fileMimeType1ProcessSeconds": Measure.median(fileOne),
            "fileMimeTypeXargsP2Seconds": Measure.median(fileTwo),
            "docent1WorkerSeconds": Measure.median(docentOne),
            "docentParallelSeconds": Measure.median(docentPar),
        ]
        if !skipAgreement {
            figures.merge(try agreement(files: files, results: results, list0: list0, work: work)) { a, _ in a }
        }
        if let typed { figures.merge(try typedScores(typed, work: work)) { a, _ in a } }
        report(figures)
    }

    /// Classifies every file with `workers` threads, each with its own classifier (libmagic handle).
    func classifyAll(_ files: [FilePath], workers: Int) throws -> [Classification?] {
        let registry = UTTypeRegistry.shared
        let box = ResultBox(count: files.count)
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            guard let classifier = try? Classifier(registry: registry, prefixLimit: prefix) else { return }
            while true {
                let i = next.value.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < files.count else { break }
                box.set(i, classifier.classify(files[i]))
            }
        }
        return box.results
    }

    /// Agreement with shared-mime-info as GLib applies it (`gio info`), where it knows the type.
    func agreement(files: [FilePath], results: [Classification?], list0: String, work: String) throws -> [String: Any] {
        let registry = UTTypeRegistry.shared
        let gioOut = work + "/gio.txt", magicOut = work + "/magic.txt"
        log("gio info over every file (for agreement)…")
        // Each gio process writes its own file: two writers on one pipe would interleave blocks.
        try FileManager.default.createDirectory(atPath: work + "/gio", withIntermediateDirectories: true)
        try Measure.shell("xargs -0 -P2 -n 500 sh -c 'gio info -a standard::content-type \"$@\" > \"$(mktemp -p \"$0\")\"' '\(work)/gio' < '\(list0)'")
        try Measure.shell("cat '\(work)'/gio/*", stdoutPath: gioOut)
        try Measure.shell("file --mime-type -f '\(work)/files.lst'", stdoutPath: magicOut)
        var gio: [String: String] = [:]
        var currentPath: String?
        for line in try String(contentsOfFile: gioOut, encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("local path: ") { currentPath = String(line.dropFirst("local path: ".count)) }
            else if let r = line.range(of: "standard::content-type: "), let p = currentPath { gio[p] = String(line[r.upperBound...]) }
        }
        var magic: [String: String] = [:]
        for line in try String(contentsOfFile: magicOut, encoding: .utf8).split(separator: "\n") {
            guard let sep = line.range(of: ": ", options: .backwards) else { continue }
            magic[String(line[..<sep.lowerBound])] = String(line[sep.upperBound...])
        }
        let resolver = ContentTypeResolver(registry: registry)
        var compared = 0, docentMIME = 0, docentType = 0, magicMIME = 0, magicType = 0
        var disagreements: [String: Int] = [:]
        var listing = ""
        for (i, path) in files.enumerated() {
            guard let g = gio[path.string], let result = results[i] else { continue }
            let gioMIME = registry.canonicalMIMEType(g)
            // Only where shared-mime-info knows the type: not its "don't know" answer.
            guard gioMIME != "application/octet-stream", registry.type(mimeType: gioMIME) != nil else { continue }
            compared += 1
            let gioType = registry.typeOrDynamic(mimeType: gioMIME)
            if result.mimeType.map(registry.canonicalMIMEType) == gioMIME { docentMIME += 1 }
            if result.contentType == gioType { docentType += 1 }
            else {
                disagreements["\(gioMIME) → docent \(result.mimeType ?? result.contentType.identifier)", default: 0] += 1
                listing += "\(path.string)\t\(gioMIME)\t\(result.mimeType ?? result.contentType.identifier)\t\(result.reason.code)\n"
            }
            if let m = magic[path.string] {
                let lm = resolver.contentMIMEType(magicMIMEType: m)
                if lm == gioMIME { magicMIME += 1 }
                if registry.typeOrDynamic(mimeType: lm) == gioType { magicType += 1 }
            }
        }
        if let file = self.disagreements { try listing.write(toFile: file, atomically: false, encoding: .utf8) }
        let top = disagreements.sorted { $0.value > $1.value }.prefix(12).map { "\($0.value)\t\($0.key)" }
        return [
            "agreementCompared": compared,
            "docentAgreesMIME": Double(docentMIME) / Double(max(compared, 1)),
            "docentAgreesType": Double(docentType) / Double(max(compared, 1)),
            "libmagicAgreesMIME": Double(magicMIME) / Double(max(compared, 1)),
            "libmagicAgreesType": Double(magicType) / Double(max(compared, 1)),
            "topDisagreements": Array(top),
        ]
    }

    /// Docent, gio and file(1) against the expected types of typed samples, named and unnamed;
    /// also over the samples whose type Debian's shared-mime-info knows.
    func typedScores(_ dir: String, work: String) throws -> [String: Any] {
        let registry = UTTypeRegistry.shared
        let rows = try String(contentsOfFile: dir + "/EXPECTED.tsv", encoding: .utf8).split(separator: "\n").compactMap { line -> (String, String)? in
            let f = line.split(separator: "\t")
            return f.count == 2 ? (dir + "/" + f[0], String(f[1])) : nil
        }
        let paths = rows.map { FilePath($0.0) }
        let docent = try classifyAll(paths, workers: workers)
        let list = work + "/typed.lst"
        try rows.map(\.0).joined(separator: "\n").appending("\n").write(toFile: list, atomically: false, encoding: .utf8)
        try Measure.shell("xargs -d '\\n' gio info -a standard::content-type < '\(list)'", stdoutPath: work + "/typed-gio.txt")
        try Measure.shell("file --mime-type -f '\(list)'", stdoutPath: work + "/typed-file.txt")
        var gio: [String: String] = [:], magic: [String: String] = [:]
        var current: String?
        for line in try String(contentsOfFile: work + "/typed-gio.txt", encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("local path: ") { current = String(line.dropFirst("local path: ".count)) }
            else if let r = line.range(of: "standard::content-type: "), let p = current { gio[p] = String(line[r.upperBound...]) }
        }
        for line in try String(contentsOfFile: work + "/typed-file.txt", encoding: .utf8).split(separator: "\n") {
            guard let sep = line.range(of: ": ", options: .backwards) else { continue }
            magic[String(line[..<sep.lowerBound])] = String(line[sep.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
        let resolver = ContentTypeResolver(registry: registry)
        var out: [String: Any] = [:]
        var misses: [String] = []
        for group in ["named", "unnamed"] {
            var n = 0, known = 0
            var right: [String: Int] = [:], rightKnown: [String: Int] = [:]
            for (i, (path, expected)) in rows.enumerated() where path.hasPrefix(dir + "/" + group + "/") {
                n += 1
                let want = registry.canonicalMIMEType(expected)
                let isKnown = registry.isSharedMIMEInfoType(want)
                if isKnown { known += 1 }
                let answers = [
                    "docent": docent[i]?.mimeType.map(registry.canonicalMIMEType),
                    "gio": gio[path].map(registry.canonicalMIMEType),
                    "file": magic[path].map { resolver.contentMIMEType(magicMIMEType: $0) },
                ]
                for (who, answer) in answers where answer == want {
                    right[who, default: 0] += 1
                    if isKnown { rightKnown[who, default: 0] += 1 }
                }
                if answers["docent"] != want {
                    misses.append("\(path.dropFirst(dir.count + 1)): expected \(want), docent \(answers["docent"].flatMap { $0 } ?? "-"), gio \(answers["gio"].flatMap { $0 } ?? "-")")
                }
            }
            for who in ["docent", "gio", "file"] {
                out["typed.\(group).\(who)"] = Double(right[who, default: 0]) / Double(max(n, 1))
                out["typed.\(group).known.\(who)"] = Double(rightKnown[who, default: 0]) / Double(max(known, 1))
            }
            out["typed.\(group).count"] = n
            out["typed.\(group).known.count"] = known
        }
        out["typed.docentMisses"] = misses
        return out
    }

    func report(_ f: [String: Any]) {
        if json {
            if let data = try? JSONSerialization.data(withJSONObject: f, options: [.sortedKeys]) {
                print(String(decoding: data, as: UTF8.self))
            }
            return
        }
        let n = Double(f["files"] as! Int)
        let baseline = f["fileMimeTypeXargsP2Seconds"] as! Double
        func row(_ name: String, _ key: String) {
            let s = f[key] as! Double
            print(name.padding(toLength: 44, withPad: " ", startingAt: 0)
                  + String(format: "%8.2f s %10.0f files/s %8.2f×", s, n / s, baseline / s))
        }
        print("Classification of \(f["files"]!) files (median of \(f["runs"]!) runs; × = speed relative to file(1) with xargs -P2)")
        row("file --mime-type -b (1 process)", "fileMimeType1ProcessSeconds")
        row("file --mime-type -b (xargs -P2)", "fileMimeTypeXargsP2Seconds")
        row("docent classifier (1 worker)", "docent1WorkerSeconds")
        row("docent classifier (\(f["workers"]!) workers)", "docentParallelSeconds")
        if let compared = f["agreementCompared"] as? Int {
            print("\nAgreement with shared-mime-info (gio info) on the \(compared) files it knows a type for:")
            print(String(format: "  same MIME type:    docent %.1f%%   libmagic alone %.1f%%",
                         100 * (f["docentAgreesMIME"] as! Double), 100 * (f["libmagicAgreesMIME"] as! Double)))
            print(String(format: "  same content type: docent %.1f%%   libmagic alone %.1f%%",
                         100 * (f["docentAgreesType"] as! Double), 100 * (f["libmagicAgreesType"] as! Double)))
            print("  most common disagreements (gio → docent):")
            for line in f["topDisagreements"] as! [String] { print("    " + line) }
        }
        if let n = f["typed.named.count"] as? Int {
            print("\nTyped samples (expected type known; Debian's shared-mime-info knows the \"known\" ones):")
            for group in ["named", "unnamed"] {
                func pct(_ key: String) -> String { String(format: "%5.1f%%", 100 * (f[key] as? Double ?? 0)) }
                let count = f["typed.\(group).count"] as? Int ?? n, known = f["typed.\(group).known.count"] as? Int ?? 0
                print("  \(group.padding(toLength: 8, withPad: " ", startingAt: 0)) all \(count): docent \(pct("typed.\(group).docent"))  gio \(pct("typed.\(group).gio"))  file \(pct("typed.\(group).file"))"
                      + "   known \(known): docent \(pct("typed.\(group).known.docent"))  gio \(pct("typed.\(group).known.gio"))  file \(pct("typed.\(group).known.file"))")
            }
            let misses = f["typed.docentMisses"] as? [String] ?? []
            if !misses.isEmpty { print("  Docent's misses:"); for m in misses { print("    " + m) } }
        }
    }
}

/// Per-index result slots written by the workers; each index is written by exactly one worker.
final class ResultBox: @unchecked Sendable {
    private var storage: [Classification?]
    private let lock = NSLock()
    init(count: Int) { storage = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: Classification) {
        lock.lock(); storage[i] = value; lock.unlock()
    }
    var results: [Classification?] { lock.lock(); defer { lock.unlock() }; return storage }
}

final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
