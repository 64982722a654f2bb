import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A reproducible synthetic home directory for `docent-bench scale`: `files` files in about
/// `files / 10` directories, made from `seed` alone (the same seed and size make the same tree,
/// byte for byte, on any machine; the real documents also need the same corpus).
///
/// - Directories form a random recursive tree (each one's parent drawn uniformly from those
///   made before it: a few dozen levels at the deepest, most a dozen down), with one chain 60
///   levels deep and one directory of `files / 100` files, as a photo dump or a mail folder.
/// - Most files are small texts of Zipf-distributed words (s = 1) over a 40,000-word
///   vocabulary in which the suite's query words sit at fixed ranks (`system` common, `lorentz`
///   rare; "free software foundation" in 1 file of 200), 30 to about 2,000 words long.
/// - 5% are `.md`, 3% `.py`, 0.5% are named `README.…md`; 1% have names of about 200 bytes;
///   0.3% have names that are not UTF-8 (Latin-1 bytes).
/// - `realShare` of the files are copies of the corpus's own documents (PDFs, HTML, man
///   pages…, each at most 512 KB), drawn with the same seed.
struct ScaleTree {
    let root: String
    let files: Int
    let seed: UInt64
    var realShare = 0.02

    /// The vocabulary's real words and their ranks (1 is the most frequent).
    static let placed: [(word: String, rank: Int)] = [
        ("system", 40), ("free", 60), ("software", 90), ("install", 120), ("memory", 150), ("python", 300),
        ("manual", 350), ("license", 500), ("allocation", 900), ("foundation", 1_200), ("licensed", 1_500),
        ("perl", 2_500), ("gzip", 3_000), ("licence", 4_000), ("bzip2", 6_000), ("lorentz", 35_000),
    ]
    static let vocabularySize = 40_000

    /// Makes the tree (removing what was there); returns how many files it wrote.
    func make(corpus: String?) throws -> Int {
        var rng = SplitMix64(seed: seed)
        let words = Self.vocabulary(&rng)
        let zipf = Self.cumulativeZipf(words.count)
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)

        // Directories: index 0 is the root; each entry is its path's bytes.
        let count = max(1, files / 10)
        var directories: [[UInt8]] = [Array(root.utf8)]
        directories.reserveCapacity(count)
        for k in 1..<max(count, 2) {
            let parent = k <= 60 ? k - 1 : Int(rng.next() % UInt64(k))
            let name = words[Int(rng.next() % UInt64(words.count))] + "-" + String(k, radix: 36)
            let path = directories[parent] + Array(("/" + name).utf8)
            guard mkdir(Self.cString(path), 0o755) == 0 else { throw BenchError("cannot make \(String(decoding: path, as: UTF8.self)): \(String(cString: strerror(errno)))") }
            directories.append(path)
        }
        let wide = directories.count / 2
        let real = try corpus.map { try Self.realDocuments(in: $0) } ?? []

        var written = 0
        var text: [UInt8] = [], texts: [UInt8] = []
        text.reserveCapacity(64 << 10)
        for j in 0..<files {
            let draw = Double(rng.next() >> 11) / Double(1 << 53)
            let directory = draw < 0.01 ? wide : Int(rng.next() % UInt64(directories.count))
            let suffix = String(j, radix: 36)
            let kind = rng.next() % 1000
            let first = words[Self.zipfRank(zipf, &rng)], second = words[Self.zipfRank(zipf, &rng)]
            var name: [UInt8]
            switch kind {
            case 0..<5: name = Array("README.\(suffix).md".utf8)
            case 5..<15: name = Array(String(repeating: first + "-" + second + "-", count: 200 / (first.count + second.count + 2) + 1).prefix(190).utf8) + Array("\(suffix).txt".utf8)
            case 15..<18: name = Array("caf".utf8) + [0xE9, 0x2D, 0xFF] + Array("\(first)-\(suffix).txt".utf8)
            case 18..<68: name = Array("\(first)-\(second)-\(suffix).md".utf8)
            case 68..<98: name = Array("\(first)_\(second)_\(suffix).py".utf8)
            default: name = Array("\(first)-\(second)-\(suffix).txt".utf8)
            }
            let path = directories[directory] + [0x2F] + name
            if !real.isEmpty, Double(rng.next() >> 11) / Double(1 << 53) < realShare {
                let source = real[Int(rng.next() % UInt64(real.count))]
                let ext = source.split(separator: ".").last.map { "." + $0 } ?? ""
                try Self.write(directories[directory] + Array("/\(first)-\(suffix)\(ext)".utf8), contents: Array(try Data(contentsOf: URL(fileURLWithPath: source))))
            } else {
                Self.fill(&text, words: words, zipf: zipf, rng: &rng)
                try Self.write(path, contents: text)
                // Every 20th plain text with a UTF-8 name: the files a burst of changes rewrites.
                if kind >= 98, j % 20 == 0 { texts += path + [0x0A] }
            }
            written += 1
        }
        try Self.write(Array(Self.textsList(root).utf8), contents: texts)
        return written
    }

    /// Beside the tree (never in it): a list of its plain texts, a path a line.
    static func textsList(_ root: String) -> String { root + ".texts" }

    /// Words of two to four syllables, unique, the placed words at their ranks.
    static func vocabulary(_ rng: inout SplitMix64) -> [String] {
        let onsets = ["b", "br", "c", "d", "f", "g", "gr", "h", "k", "l", "m", "n", "p", "pl", "r", "s", "st", "t", "tr", "v", "z"]
        let vowels = ["a", "e", "i", "o", "u", "ai", "ou", "ea"]
        var seen = Set(placed.map(\.word)), words: [String] = []
        words.reserveCapacity(vocabularySize)
        while words.count < vocabularySize {
            let syllables = 2 + Int(rng.next() % 3)
            let word = (0..<syllables).map { _ in onsets[Int(rng.next() % UInt64(onsets.count))] + vowels[Int(rng.next() % UInt64(vowels.count))] }.joined()
                + (rng.next() % 3 == 0 ? "n" : "")
            if seen.insert(word).inserted { words.append(word) }
        }
        for (word, rank) in placed { words[rank - 1] = word }
        return words
    }

    static func cumulativeZipf(_ n: Int) -> [Double] {
        var sums: [Double] = [], total = 0.0
        sums.reserveCapacity(n)
        for rank in 1...n { total += 1 / Double(rank); sums.append(total) }
        return sums.map { $0 / total }
    }

    static func zipfRank(_ cumulative: [Double], _ rng: inout SplitMix64) -> Int {
        let u = Double(rng.next() >> 11) / Double(1 << 53)
        var low = 0, high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] < u { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// A text of 30 to about 2,000 words, twelve a line; "free software foundation" in 1 of 200.
    static func fill(_ text: inout [UInt8], words: [String], zipf: [Double], rng: inout SplitMix64) {
        text.removeAll(keepingCapacity: true)
        let u = Double(rng.next() >> 11) / Double(1 << 53)
        let length = min(2_000, 30 + Int(-150 * log(max(u, 1e-12))))
        if rng.next() % 200 == 0 { text += Array("free software foundation\n".utf8) }
        for i in 0..<length {
            text += Array(words[zipfRank(zipf, &rng)].utf8)
            text.append(i % 12 == 11 ? 0x0A : 0x20)
        }
        text.append(0x0A)
    }

    /// The corpus's documents of at most 512 KB that are not plain text, sorted (so a seed
    /// draws the same ones).
    static func realDocuments(in corpus: String) throws -> [String] {
        let kinds: Set<String> = ["pdf", "html", "htm", "gz", "odt", "docx", "epub", "xml", "json", "png", "jpg"]
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: corpus)
        while let relative = enumerator?.nextObject() as? String {
            guard let ext = relative.split(separator: ".").last.map({ String($0).lowercased() }), kinds.contains(ext) else { continue }
            let path = corpus + "/" + relative
            var status = stat()
            if lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size <= 512 << 10 { found.append(path) }
        }
        return found.sorted()
    }

    static func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }

    static func write(_ path: [UInt8], contents: [UInt8]) throws {
        let fd = open(cString(path), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchError("cannot write \(String(decoding: path, as: UTF8.self)): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var offset = 0
        while offset < contents.count {
            let n = contents[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw BenchError("short write to \(String(decoding: path, as: UTF8.self))") }
            offset += n
        }
    }

    /// Walks the tree as an indexer must (every directory read, every entry lstat'ed): the
    /// floor a no-change re-index is measured against; returns the entries seen.
    static func lstatWalk(_ root: String) -> Int {
        var seen = 0
        walk(root) { _, _ in seen += 1 }
        return seen
    }

    /// Reads every regular file under `root` once (into the page cache, as the cold index
    /// that follows will read them); how many bytes. A tree made by an earlier run may be
    /// partly out of the cache, and a cold index of a million files then took 181 s where one
    /// of the same tree read first took 135 s.
    static func readEveryFile(_ root: String) -> Int {
        var bytes = 0, buffer = [UInt8](repeating: 0, count: 1 << 20)
        walk(root) { path, status in
            guard status.st_mode & S_IFMT == S_IFREG else { return }
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { return }
            while case let count = buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }), count > 0 { bytes += count }
            close(fd)
        }
        return bytes
    }

    /// Every entry under `root` (every directory read, every entry lstat'ed), with its path
    /// (NUL-terminated) and status; directories are gone into after their entries.
    private static func walk(_ root: String, _ visit: ([CChar], stat) -> Void) {
        var pending: [[CChar]] = [cString(Array(root.utf8))], status = stat()
        while var directory = pending.popLast() {
            guard let handle = opendir(directory) else { continue }
            directory.removeLast()  // its NUL: names are appended
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.bindMemory(to: CChar.self).prefix { $0 != 0 }) }
                if name == [46] || name == [46, 46] { continue }
                let path = directory + [47] + name + [0]
                guard lstat(path, &status) == 0 else { continue }
                visit(path, status)
                if (status.st_mode & S_IFMT) == S_IFDIR { pending.append(path) }
            }
            closedir(handle)
        }
    }
}
