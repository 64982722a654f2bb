import ArgumentParser
import Foundation

/// `docent-bench relevance`: how often the document a person wants comes first, on Docent's
/// own judged questions (`Benchmarks/relevance/queries.tsv`), with Recoll's figures from the
/// same corpus and questions when it is installed.
struct RelevanceBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relevance",
        abstract: "success@1, success@3, MRR@10 and nDCG@10 on the judged questions, Docent and Recoll."
    )

    @Argument(help: "The corpus directory (see Benchmarks/make-corpus.sh).")
    var corpus: String = "/tmp/docent-bench/corpus"

    @Option(help: "The judged questions.")
    var queries: String = "Benchmarks/relevance/queries.tsv"

    @Option(help: "Keep the indexes here (Docent's and Recoll's; reused by the next run).")
    var work: String?

    @Flag(help: "Leave Recoll out even when it is installed.")
    var withoutRecoll = false

    @Flag(help: "Print each question's rank of its first answer.")
    var each = false

    @Flag(help: "Print the figures as one JSON object.")
    var json = false

    @Option(help: "Simulated known-item queries of each kind (distinctive and common words), 0 for none.")
    var knownItems = 100

    @Option(help: "The known items' seed: 43 is the set the ranking was tuned on; another draws a set it has not seen.")
    var seed: UInt64 = 43

    func run() throws {
        let judged = try JudgedQuery.load(queries)
        guard !judged.isEmpty else { throw ValidationError("no questions in \(queries)") }
        let work = self.work ?? FileManager.default.temporaryDirectory.appendingPathComponent("docent-relevance-\(getpid())").path
        defer { if self.work == nil { try? FileManager.default.removeItem(atPath: work) } }
        let root = URL(fileURLWithPath: corpus).standardizedFileURL.path
        let docent = DocentProcess(work: work + "/docent")
        if !FileManager.default.fileExists(atPath: docent.indexPath) {
            log("indexing \(root) with Docent")
            guard try docent.run(["index", root]) == 0 else { throw BenchError("docent index failed") }
        }
        var systems: [(name: String, ranked: (JudgedQuery) throws -> [[String]])] = [
            ("Docent", { try Self.docentRanking(docent, $0.query, root: root) }),
        ]
        if !withoutRecoll, let recoll = RecollProcess(work: work + "/recoll", corpus: root) {
            if !FileManager.default.fileExists(atPath: recoll.work + "/xapiandb") {
                log("indexing \(root) with Recoll")
                try FileManager.default.createDirectory(atPath: recoll.work, withIntermediateDirectories: true)
                try "topdirs = \(root)\n".write(toFile: recoll.work + "/recoll.conf", atomically: true, encoding: .utf8)
                guard try Spawn.run(["recollindex", "-c", recoll.work]).status == 0 else { throw BenchError("recollindex failed") }
            }
            systems.append(("Recoll", { try Self.recollRanking(recoll, $0.query, root: root) }))
        }
        var report: [String: [String: Double]] = [:]
        var rows: [String] = []
        for (name, ranked) in systems {
            let scores = try Self.scores(judged, ranked) { question, score in
                if each { print("\(name)\t\(question.kind)\t\(score.rank.map(String.init) ?? "-")\t\(question.query)") }
            }
            for kind in ["all"] + JudgedQuery.kinds {
                let chosen = zip(judged, scores).filter { kind == "all" || $0.0.kind == kind }.map(\.1)
                guard !chosen.isEmpty else { continue }
                let figures = JudgedQuery.Score.means(chosen)
                report["\(name) \(kind)"] = figures
                rows.append(String(format: "| %@ | %@ | %d | %.2f | %.2f | %.3f | %.3f |", name, kind, chosen.count,
                                   figures["success@1"]!, figures["success@3"]!, figures["MRR@10"]!, figures["nDCG@10"]!))
            }
        }
        var knownRows: [String] = []
        if knownItems > 0 {
            let topics = try KnownItems.topics(root: root, count: knownItems, seed: seed)
            for (name, ranked) in systems {
                var ranks: [(String, Int?)] = []
                for topic in topics {
                    let rank = KnownItems.rank(of: topic, in: try ranked(JudgedQuery(kind: "name", query: topic.query, answers: [topic.path])),
                                               root: root)
                    if each { print("\(name)\tknown-\(topic.kind)\t\(rank.map(String.init) ?? "-")\t\(topic.query)\t\(topic.path)") }
                    ranks.append((topic.kind, rank))
                }
                for kind in ["distinctive", "common"] {
                    let chosen = ranks.filter { $0.0 == kind }.map(\.1)
                    let n = Double(chosen.count)
                    let figures = [
                        "success@1": Double(chosen.filter { $0 == 1 }.count) / n,
                        "MRR@10": chosen.reduce(0) { $0 + ($1.map { 1 / Double($0) } ?? 0) } / n,
                    ]
                    report["\(name) known-\(kind)"] = figures
                    knownRows.append(String(format: "| %@ | %@ | %d | %.2f | %.3f |", name, kind, chosen.count,
                                            figures["success@1"]!, figures["MRR@10"]!))
                }
            }
        }
        if json {
            print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
        } else {
            print("| system | questions | n | success@1 | success@3 | MRR@10 | nDCG@10 |")
            print("|---|---|---:|---:|---:|---:|---:|")
            rows.forEach { print($0) }
            guard !knownRows.isEmpty else { return }
            print("\n| system | known items | n | success@1 | MRR@10 |")
            print("|---|---|---:|---:|---:|")
            knownRows.forEach { print($0) }
        }
    }

    /// Each question's score under `ranked`.
    static func scores(_ judged: [JudgedQuery], _ ranked: (JudgedQuery) throws -> [[String]],
                       each: (JudgedQuery, JudgedQuery.Score) -> Void = { _, _ in }) throws -> [JudgedQuery.Score] {
        try judged.map { question in
            let score = question.score(try ranked(question))
            each(question, score)
            return score
        }
    }

    private func log(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    /// Docent's first ten hits for `query` as `docent search` gives them, each hit with the
    /// places of the identical files folded into it, relative to the corpus.
    static func docentRanking(_ docent: DocentProcess, _ query: String, root: String) throws -> [[String]] {
        let result = try Spawn.capture([docent.binary, "search", "--json", "--limit", "10", "--", query], environment: docent.environment)
        return result.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let path = object["path"] as? String else { return nil }
            return ([path] + (object["alsoAt"] as? [String] ?? []) + (object["alsoAs"] as? [String] ?? [])).map { relative($0, root) }
        }
    }

    /// Recoll's first ten results for `query` (`recollq -b`: their URLs), relative to the corpus.
    static func recollRanking(_ recoll: RecollProcess, _ query: String, root: String) throws -> [[String]] {
        let result = try Spawn.capture(["/usr/bin/recollq", "-c", recoll.work, "-b", "-n", "10", query], environment: nil)
        return result.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("file://") else { return nil }
            let path = String(line.dropFirst("file://".count))
            return [relative(path.removingPercentEncoding ?? path, root)]
        }
    }

    static func relative(_ path: String, _ root: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}

/// One judged question: its kind, its words, and its answers (the first the one a person
/// wants, grade 2; the others acceptable, grade 1).
struct JudgedQuery {
    static let kinds = ["question", "name", "phrase", "typo"]

    let kind: String
    let query: String
    let answers: [String]

    static func load(_ path: String) throws -> [JudgedQuery] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3, kinds.contains(fields[0]) else { throw ValidationError("not a judged question: \(line)") }
            let answers = fields[2].components(separatedBy: " | ").map { $0.trimmingCharacters(in: .whitespaces) }
            return JudgedQuery(kind: fields[0], query: fields[1], answers: answers)
        }
    }

    struct Score {
        /// The rank (from 1) of the first hit holding an answer, within the first ten.
        var rank: Int?
        var ndcg: Double

        static func means(_ scores: [Score]) -> [String: Double] {
            let n = Double(scores.count)
            return [
                "success@1": Double(scores.filter { $0.rank == 1 }.count) / n,
                "success@3": Double(scores.filter { ($0.rank ?? 99) <= 3 }.count) / n,
                "MRR@10": scores.reduce(0) { $0 + ($1.rank.map { 1 / Double($0) } ?? 0) } / n,
                "nDCG@10": scores.reduce(0) { $0 + $1.ndcg } / n,
            ]
        }
    }

    /// How `ranking` (hits, each its places) answers this question.
    func score(_ ranking: [[String]]) -> Score {
        func grade(_ places: [String]) -> Double {
            if places.contains(answers[0]) { return 2 }
            return places.contains { answers.dropFirst().contains($0) } ? 1 : 0
        }
        let gains = ranking.prefix(10).map(grade)
        let rank = gains.firstIndex { $0 > 0 }.map { $0 + 1 }
        func dcg(_ gains: [Double]) -> Double {
            gains.enumerated().reduce(0) { $0 + (pow(2, $1.element) - 1) / log2(Double($1.offset) + 2) }
        }
        let ideal = dcg(([2] + Array(repeating: 1.0, count: answers.count - 1)).prefix(10).map { $0 })
        return Score(rank: rank, ndcg: ideal > 0 ? dcg(gains) / ideal : 0)
    }
}
