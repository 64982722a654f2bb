import Foundation

/// Simulated known-item queries (Azzopardi, de Rijke and Balog, "Building Simulated Queries for
/// Known-Item Topics", SIGIR 2007): a document of the corpus is picked, a few of its own words
/// are drawn as the query a person who remembers it might type, and the figure is the rank at
/// which the search returns that document (or a file identical to it). Two ways of drawing:
/// - *distinctive*: a word in proportion to its frequency in the document times its inverse
///   document frequency (the words a person remembers a document by);
/// - *common*: in proportion to its frequency alone (the document's everyday words).
/// The documents are plain-text files of the corpus (source, text, Markdown, reStructuredText),
/// whose words can be read without an extractor; document frequencies come from a seeded
/// sample of them. Seeded: the same corpus gives the same queries.
struct KnownItems {
    struct Topic {
        let kind: String
        let path: String
        let query: String
    }

    static let extensions: Set<String> = ["py", "txt", "md", "rst", "c", "h", "pl", "sh", "el", "tex"]
    /// A document too short to remember, or too long to read here, is not picked.
    static let sizes = 400...200_000

    /// `count` topics of each kind over the plain-text files under `root`.
    static func topics(root: String, count: Int, seed: UInt64 = 43) throws -> [Topic] {
        var random = SplitMix64(seed: seed)
        var files: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let ext = (relative as NSString).pathExtension.lowercased()
            guard extensions.contains(ext), let attributes = enumerator?.fileAttributes,
                  attributes[.type] as? FileAttributeType == .typeRegular,
                  let size = attributes[.size] as? Int, sizes.contains(size) else { continue }
            files.append(relative)
        }
        files.sort()
        guard files.count >= count * 2 else { throw BenchError("only \(files.count) plain-text files under \(root)") }
        // Document frequencies from a sample of 3,000 of them.
        var frequency: [String: Int] = [:]
        let sample = (0..<min(3_000, files.count)).map { _ in files[Int(random.next() % UInt64(files.count))] }
        for path in sample {
            for word in Set(words(root + "/" + path)) { frequency[word, default: 0] += 1 }
        }
        func idf(_ word: String) -> Double { log(Double(sample.count) / Double(1 + frequency[word, default: 0])) }
        var topics: [Topic] = []
        var used: Set<String> = []
        for kind in ["distinctive", "common"] {
            var made = 0
            while made < count {
                let path = files[Int(random.next() % UInt64(files.count))]
                guard !used.contains(path) else { continue }
                let counts = words(root + "/" + path).reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
                guard counts.count >= 8 else { continue }
                let vocabulary = counts.keys.sorted()
                let weights = vocabulary.map { word in Double(counts[word]!) * (kind == "distinctive" ? max(idf(word), 0.01) : 1) }
                let length = 2 + Int(random.next() % 3)  // two to four words
                var query: [String] = []
                var tries = 0
                while query.count < length, tries < 100 {
                    tries += 1
                    let word = vocabulary[pick(weights, &random)]
                    if !query.contains(word) { query.append(word) }
                }
                used.insert(path)
                topics.append(Topic(kind: kind, path: path, query: query.joined(separator: " ")))
                made += 1
            }
        }
        return topics
    }

    /// A document's words as a person would type them: lowercase runs of letters and digits
    /// that start with a letter (`jisx0213`, as the index holds it), three to twenty long. A
    /// run that starts with a digit is no word (`0x7A` is one token of the index, never `x7a`;
    /// until 2026-11-29 `x7a` was drawn from it, and 5 of the 200 topics asked for such a word).
    static func words(_ path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var out: [String] = []
        var word: [UInt8] = []
        var number = false
        func flush() {
            if word.count >= 3, word.count <= 20 { out.append(String(decoding: word, as: UTF8.self)) }
            word.removeAll(keepingCapacity: true)
            number = false
        }
        for byte in data {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9") where word.isEmpty: number = true
            case _ where number && (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"): continue
            case UInt8(ascii: "a")...UInt8(ascii: "z"): word.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): word.append(byte + 32)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): word.append(byte)
            default: flush()
            }
        }
        flush()
        return out
    }

    static func pick(_ weights: [Double], _ random: inout SplitMix64) -> Int {
        let total = weights.reduce(0, +)
        var target = Double(random.next() % 1_000_000) / 1_000_000 * total
        for (index, weight) in weights.enumerated() {
            target -= weight
            if target < 0 { return index }
        }
        return weights.count - 1
    }

    /// The rank (from 1, within the first ten) of the first hit that is the topic's file or a
    /// file with the same bytes.
    static func rank(of topic: Topic, in ranking: [[String]], root: String) -> Int? {
        let wanted = FileManager.default.contents(atPath: root + "/" + topic.path)
        for (index, places) in ranking.prefix(10).enumerated() {
            if places.contains(topic.path) { return index + 1 }
            if places.contains(where: { FileManager.default.contents(atPath: root + "/" + $0) == wanted }) { return index + 1 }
        }
        return nil
    }
}

/// A small seeded generator (Steele, Lea and Flood's SplitMix64), the same sequence everywhere.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
