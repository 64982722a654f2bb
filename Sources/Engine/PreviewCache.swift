import DocumentModel
import Documents
package import FileAccess
import Foundation
import Index
package import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Previews kept on disk in `$XDG_CACHE_HOME/docent/previews/`, one file per previewed
/// file, like the freedesktop thumbnail cache: made on demand by `docent preview`, kept
/// current by `docent watch` (regenerated when the file changes, moved with it, removed
/// with it), and trusted only while the file's `lstat` signature is the one recorded.
///
/// An entry is two lines: a header (format version, the path's bytes, the signature, the
/// read limit) and the preview. Entries are replaced atomically (a temporary file renamed
/// over the old one), so a reader never sees half of one.
package struct PreviewCache: Sendable {
    /// Bumped when the entry format changes; older entries are ignored and rewritten.
    static let version = 2  // 2: entries record the readers that made them
    /// Entries bigger than this are not kept: reading them back would cost as much as opening the file.
    static let largestEntry = 4 << 20

    package let directory: FilePath

    package init(directory: FilePath = PreviewCache.defaultDirectory()) {
        self.directory = directory
    }

    /// `$XDG_CACHE_HOME/docent/previews`, else `~/.cache/docent/previews`.
    package static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> FilePath {
        FilePath(cacheHome(environment: environment)).appending("docent").appending("previews")
    }

    /// `$XDG_CACHE_HOME`, else `~/.cache`.
    package static func cacheHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
    }

    struct Header: Codable, Equatable {
        var version: Int
        /// The previewed file's path bytes, base64 (a path need not be UTF-8).
        var path: String
        var signature: FileSignature
        var readLimit: Int
        /// The readers' fingerprints when the entry was made (`PreviewCache.readers`): an
        /// upgraded reader makes its old previews stale.
        var readers: String

        var filePath: FilePath? { Data(base64Encoded: path).map { FilePath(bytes: [UInt8]($0)) } }
    }

    /// The built-in readers' fingerprints, hashed.
    static let readers: String = {
        let fingerprints = AppDocuments.registry.fingerprints.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return key(Array(fingerprints.joined(separator: ";").utf8))
    }()

    /// Where the entry for `path` lives.
    package func entryPath(for path: FilePath) -> FilePath {
        directory.appending(Self.key(path.bytes) + ".json")
    }

    /// The cached preview of `path` (an extraction with its preview), if there is one and the
    /// file's signature is still `status`'s.
    package func lookup(_ path: FilePath, status: FileStatus, readLimit: Int) -> Extraction? {
        guard let (header, body) = read(entryPath(for: path)), header.filePath == path,
              header.signature.compared(to: status.signature) == .unchanged, header.readLimit == readLimit, header.readers == Self.readers
        else { return nil }
        return (try? JSONDecoder().decode(Extraction.self, from: body)).flatMap { $0.preview == nil ? nil : $0 }
    }

    /// Whether `path` has an entry made with `readLimit` (current or not).
    package func hasEntry(for path: FilePath, readLimit: Int) -> Bool {
        guard let header = readHeader(entryPath(for: path)) else { return false }
        return header.filePath == path && header.readLimit == readLimit
    }

    /// Whether `path` has an entry (current or not).
    package func contains(_ path: FilePath) -> Bool {
        readHeader(entryPath(for: path))?.filePath == path
    }

    /// Keeps `preview` (an extraction made with its preview, without its text) as `path`'s,
    /// made from the file as `status` describes it. Failures
    /// (a full disk, an unwritable cache) only cost the next preview its speed.
    @discardableResult
    package func store(_ preview: Extraction, for path: FilePath, status: FileStatus, readLimit: Int) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = Header(version: Self.version, path: Data(path.bytes).base64EncodedString(), signature: status.signature,
                            readLimit: readLimit, readers: Self.readers)
        guard let head = try? encoder.encode(header), let body = try? encoder.encode(preview),
              head.count + body.count < Self.largestEntry
        else { return false }
        let entry = entryPath(for: path)
        guard makeDirectory() else { return false }
        let temporary = entry.string + ".\(getpid()).\(Self.temporaryCounter.next()).tmp"
        return (try? PrivateStorage.replace(entry.string, with: [UInt8](head + Data([0x0A]) + body), temporary: temporary)) != nil
    }

    /// Makes the cache directory (and Docent's directory above it) private: `0700`, tightened
    /// when they exist looser. Entries are written `0600`.
    private func makeDirectory() -> Bool {
        let parent = directory.removingLastComponent()
        do {
            // Docent's own directory above the default place is made private too.
            try PrivateStorage.makeDirectory(parent.string, tightenExisting: parent.lastComponent?.string == "docent")
            try PrivateStorage.makeDirectory(directory.string, tightenExisting: true)
            return true
        } catch {
            return false
        }
    }

    /// Forgets `path`'s entry.
    package func remove(_ path: FilePath) {
        let entry = entryPath(for: path)
        if readHeader(entry)?.filePath == path { unlink(entry.string) }
    }

    /// Every entry's file path and where the entry lives (headers only are read).
    func entries() -> [(path: FilePath, entry: FilePath)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.string) else { return [] }
        return names.filter { $0.hasSuffix(".json") }.compactMap { name in
            let entry = directory.appending(name)
            return readHeader(entry)?.filePath.map { ($0, entry) }
        }
    }

    /// The header line and the rest of an entry.
    func read(_ entry: FilePath) -> (Header, Data)? {
        guard let data = WholeFile.read(entry.string),
              let newline = data.firstIndex(of: 0x0A),
              let header = try? JSONDecoder().decode(Header.self, from: data[..<newline]), header.version == Self.version
        else { return nil }
        return (header, data[(newline + 1)...])
    }

    /// The header line alone.
    func readHeader(_ entry: FilePath) -> Header? {
        guard let handle = FileHandle(forReadingAtPath: entry.string) else { return nil }
        defer { try? handle.close() }
        var line = Data()
        while line.count < 64 << 10, let chunk = try? handle.read(upToCount: 4096), !chunk.isEmpty {
            if let newline = chunk.firstIndex(of: 0x0A) {
                line += chunk[..<newline]
                guard let header = try? JSONDecoder().decode(Header.self, from: line), header.version == Self.version else { return nil }
                return header
            }
            line += chunk
        }
        return nil
    }

    /// 128 bits of FNV-1a over the path (two seeds), as hex: names are fixed-length and the
    /// header's path settles the rare collision.
    static func key(_ bytes: [UInt8]) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            return hash
        }
        let high = String(fnv(0xcbf2_9ce4_8422_2325), radix: 16), low = String(fnv(0x8422_2325_cbf2_9ce4), radix: 16)
        return String(repeating: "0", count: 16 - high.count) + high + String(repeating: "0", count: 16 - low.count) + low
    }

    private static let temporaryCounter = Counter()
}

/// A process-wide counter for unique temporary names.
private final class Counter: Sendable {
    private let value = Locked(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}
