#if canImport(Glibc)
import Glibc
#endif
import FileAccess
import Foundation

/// The built registry kept on disk, so a process starts without parsing YAML and the system's
/// shared-mime-info files again: `$XDG_CACHE_HOME/docent/types.cache` (`0600`), valid while
/// its key matches — Docent's own declarations, and the size, modification time and inode of
/// every shared-mime-info file and user declaration file the registry was built from.
///
/// Like shared-mime-info's own `mime.cache`, it is only an accelerator: a missing, stale,
/// damaged or unwritable cache means the registry is built as before.
package enum RegistryCache {
    /// The format's version; a different one is a miss.
    static let version: UInt64 = 1

    /// `$XDG_CACHE_HOME/docent/types.cache`; nil when `DOCENT_TYPES_CACHE=0`.
    package static func path(environment: [String: String]) -> String? {
        if environment["DOCENT_TYPES_CACHE"] == "0" { return nil }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
        return cache + "/docent/types.cache"
    }

    /// The key for building from these inputs: what changes when any of them does.
    static func key(builtIn: [UInt8], mimeDirectories: [String], userFiles: [String]) -> [UInt8] {
        var w = BinaryWriter()
        w.int(Int(version))
        w.int(Int(truncatingIfNeeded: fnv1a(builtIn)))
        for dir in mimeDirectories {
            w.string(dir)
            for name in ["types", "aliases", "subclasses", "globs2", "magic", "XMLnamespaces"] { stamp(dir + "/" + name, &w) }
        }
        for file in userFiles {
            w.string(file)
            stamp(file, &w)
        }
        return w.bytes
    }

    private static func stamp(_ path: String, _ w: inout BinaryWriter) {
        var s = stat()
        guard stat(path, &s) == 0 else { w.int(-1); return }
        w.int(Int(s.st_size))
        w.int(Int(s.st_mtim.tv_sec))
        w.int(Int(s.st_mtim.tv_nsec))
        w.int(Int(truncatingIfNeeded: s.st_ino))
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// The registry stored at `path` under `key`, or nil (missing, stale or damaged).
    static func read(_ path: String, key: [UInt8]) -> UTTypeRegistry? {
        guard let data = WholeFile.read(path, limit: 64 << 20) else { return nil }
        return data.withUnsafeBytes { raw -> UTTypeRegistry? in
            var r = BinaryReader(raw)
            guard let stored = r.bytes(), stored == key else { return nil }
            return try? UTTypeRegistry.unarchive(&r)
        }
    }

    /// Stores `registry` at `path` under `key`, and its types' descriptions beside it
    /// (`namesPath`); failures are ignored (the cache is optional).
    static func write(_ registry: UTTypeRegistry, to path: String, key: [UInt8]) {
        var w = BinaryWriter()
        w.bytes(key)
        registry.archive(&w)
        let dir = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        do {
            try PrivateStorage.makeDirectory(dir, tightenExisting: false)
            try PrivateStorage.replace(path, with: w.bytes)
        } catch { return }
        writeDescriptions(registry, beside: path, key: key)
    }

    /// Stores the descriptions of `registry`'s types beside the cache at `path` (`namesPath`).
    static func writeDescriptions(_ registry: UTTypeRegistry, beside path: String, key: [UInt8]) {
        var names = String(fnv1a(key), radix: 16) + "\n"
        for type in registry.allTypes {
            guard let description = type.localizedDescription, !description.contains("\n"), !description.contains("\t") else { continue }
            names += type.identifier + "\t" + description + "\n"
        }
        try? PrivateStorage.replace(namesPath(path), with: Array(names.utf8))
    }

    /// The descriptions file beside the cache at `path`: its key's hash on the first line, then
    /// `identifier<TAB>description` a line — what a search prints for each hit's type, read in
    /// well under a millisecond where the whole registry takes 30.
    package static func namesPath(_ path: String) -> String { path + ".names" }

    /// The types' descriptions stored beside the cache at `path` under `key`; nil when the
    /// file is missing or stale.
    static func descriptions(_ path: String, key: [UInt8]) -> TypeDescriptions? {
        guard let data = WholeFile.read(namesPath(path), limit: 16 << 20) else { return nil }
        let bytes = [UInt8](data)
        let firstLine = bytes.prefix { $0 != UInt8(ascii: "\n") }
        guard String(decoding: firstLine, as: UTF8.self) == String(fnv1a(key), radix: 16) else { return nil }
        return TypeDescriptions(lines: bytes)
    }
}

// MARK: - The registry as bytes

extension UTTypeRegistry {
    func archive(_ w: inout BinaryWriter) {
        w.int(order.count)
        for key in order {
            let d = declarations[key]!
            w.string(d.identifier)
            w.strings(d.conformsTo)
            w.optionalString(d.description)
            w.strings(d.mimeTypes)
            w.strings(d.filenameExtensions)
            switch d.origin {
            case .docent: w.int(0)
            case .sharedMIMEInfo: w.int(1)
            case .user(let file, let line): w.int(2); w.string(file); w.int(line)
            }
        }
        w.int(mimeOwners.count)
        for (mime, owner) in mimeOwners.sorted(by: { $0.key < $1.key }) { w.string(mime); w.string(owner) }
        w.int(extensionOwners.count)
        for (ext, owners) in extensionOwners.sorted(by: { $0.key < $1.key }) { w.string(ext); w.strings(owners) }
        w.strings(mimeInfo.types.sorted())
        w.int(mimeInfo.aliases.count)
        for (alias, canonical) in mimeInfo.aliases.sorted(by: { $0.key < $1.key }) { w.string(alias); w.string(canonical) }
        w.int(mimeInfo.parents.count)
        for (child, parents) in mimeInfo.parents.sorted(by: { $0.key < $1.key }) { w.string(child); w.strings(parents) }
        w.strings(mimeInfo.directories)
        w.int(globs.rules.count)
        for rule in globs.rules {
            w.string(rule.mimeType); w.optionalString(rule.identifier); w.string(rule.pattern); w.int(rule.weight)
            w.int(rule.caseSensitive ? 1 : 0)
        }
        w.int(magic.sections.count)
        for section in magic.sections {
            w.int(section.priority); w.string(section.mimeType); w.optionalString(section.identifier)
            w.int(section.matchlets.count)
            for m in section.matchlets { m.archive(&w) }
        }
        w.int(xmlRoots.types.count)
        for (root, type) in xmlRoots.types.sorted(by: { $0.key < $1.key }) { w.string(root); w.string(type) }
        w.int(diagnostics.count)
        for d in diagnostics { w.string(d.file); w.int(d.line ?? -1); w.string(d.message) }
    }

    static func unarchive(_ r: inout BinaryReader) throws(BinaryReader.Damaged) -> UTTypeRegistry {
        var declarations: [String: UTTypeDeclaration] = [:], order: [String] = []
        let count = try r.count()
        declarations.reserveCapacity(count)
        order.reserveCapacity(count)
        for _ in 0..<count {
            var d = UTTypeDeclaration(identifier: try r.string(), conformsTo: try r.strings(), description: try r.optionalString(),
                                      mimeTypes: try r.strings(), filenameExtensions: try r.strings())
            switch try r.int() {
            case 0: d.origin = .docent
            case 1: d.origin = .sharedMIMEInfo
            case 2: d.origin = .user(file: try r.string(), line: try r.int())
            default: throw .init()
            }
            let key = Self.key(d.identifier)
            order.append(key)
            declarations[key] = d
        }
        var mimeOwners: [String: String] = [:]
        for _ in 0..<(try r.count()) { mimeOwners[try r.string()] = try r.string() }
        var extensionOwners: [String: [String]] = [:]
        for _ in 0..<(try r.count()) { extensionOwners[try r.string()] = try r.strings() }
        var info = SharedMIMEInfo()
        info.types = Set(try r.strings())
        for _ in 0..<(try r.count()) { info.aliases[try r.string()] = try r.string() }
        for _ in 0..<(try r.count()) { info.parents[try r.string()] = try r.strings() }
        info.directories = try r.strings()
        var rules: [GlobRule] = []
        for _ in 0..<(try r.count()) {
            rules.append(GlobRule(mimeType: try r.string(), identifier: try r.optionalString(), pattern: try r.string(),
                                  weight: try r.int(), caseSensitive: try r.int() == 1))
        }
        var sections: [MagicSection] = []
        for _ in 0..<(try r.count()) {
            let priority = try r.int(), mime = try r.string(), identifier = try r.optionalString()
            var matchlets: [Matchlet] = []
            for _ in 0..<(try r.count()) { matchlets.append(try Matchlet.unarchive(&r, depth: 0)) }
            sections.append(MagicSection(priority: priority, mimeType: mime, identifier: identifier, matchlets: matchlets))
        }
        var roots = XMLRootRules()
        for _ in 0..<(try r.count()) {
            let root = try r.string(), type = try r.string()
            guard let space = root.lastIndex(of: " ") else { throw .init() }
            roots.add(namespace: String(root[..<space]), localName: String(root[root.index(after: space)...]), type: type)
        }
        var diagnostics: [DeclarationDiagnostic] = []
        for _ in 0..<(try r.count()) {
            let file = try r.string(), line = try r.int(), message = try r.string()
            diagnostics.append(DeclarationDiagnostic(file: file, line: line < 0 ? nil : line, message: message))
        }
        guard r.isAtEnd else { throw .init() }
        return UTTypeRegistry(
            declarations: declarations, order: order, mimeOwners: mimeOwners, extensionOwners: extensionOwners,
            mimeInfo: info, globs: GlobTable(rules), magic: MagicRules(orderedSections: sections), xmlRoots: roots,
            diagnostics: diagnostics)
    }
}

extension Matchlet {
    func archive(_ w: inout BinaryWriter) {
        w.int(offset); w.int(range); w.bytes(value)
        if let mask { w.int(1); w.bytes(mask) } else { w.int(0) }
        w.int(children.count)
        for child in children { child.archive(&w) }
    }

    static func unarchive(_ r: inout BinaryReader, depth: Int) throws(BinaryReader.Damaged) -> Matchlet {
        guard depth < 64 else { throw .init() }
        let offset = try r.int(), range = try r.int()
        guard let value = r.bytes() else { throw .init() }
        var mask: [UInt8]?
        if try r.int() == 1 {
            guard let m = r.bytes(), m.count == value.count else { throw .init() }
            mask = m
        }
        var children: [Matchlet] = []
        for _ in 0..<(try r.count()) { children.append(try unarchive(&r, depth: depth + 1)) }
        return Matchlet(offset: offset, range: range, value: value, mask: mask, children: children)
    }
}

// MARK: - A small binary format: LEB128 integers, length-prefixed bytes

struct BinaryWriter {
    var bytes: [UInt8] = []

    mutating func int(_ v: Int) {
        var u = UInt64(bitPattern: Int64(v)) << 1 ^ UInt64(bitPattern: Int64(v) >> 63)   // zigzag
        repeat {
            var b = UInt8(u & 0x7F)
            u >>= 7
            if u != 0 { b |= 0x80 }
            bytes.append(b)
        } while u != 0
    }
    mutating func bytes(_ b: [UInt8]) { int(b.count); bytes += b }
    mutating func string(_ s: String) { bytes(Array(s.utf8)) }
    mutating func strings(_ list: [String]) { int(list.count); for s in list { string(s) } }
    mutating func optionalString(_ s: String?) {
        if let s { int(1); string(s) } else { int(0) }
    }
}

struct BinaryReader {
    struct Damaged: Error {}
    let raw: UnsafeRawBufferPointer
    var at = 0

    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    var isAtEnd: Bool { at == raw.count }

    mutating func int() throws(Damaged) -> Int {
        var u: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard at < raw.count, shift < 64 else { throw Damaged() }
            let b = raw[at]
            at += 1
            u |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { break }
            shift += 7
        }
        return Int(Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1))))
    }
    /// A count: a non-negative integer no larger than what is left to read.
    mutating func count() throws(Damaged) -> Int {
        let n = try int()
        guard n >= 0, n <= raw.count - at else { throw Damaged() }
        return n
    }
    mutating func bytes() -> [UInt8]? {
        guard let n = try? count() else { return nil }
        defer { at += n }
        return Array(raw[at..<(at + n)])
    }
    mutating func string() throws(Damaged) -> String {
        let n = try count()
        defer { at += n }
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[at..<(at + n)]), as: UTF8.self)
    }
    mutating func strings() throws(Damaged) -> [String] {
        let n = try count()
        var out: [String] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try string()) }
        return out
    }
    mutating func optionalString() throws(Damaged) -> String? {
        try int() == 1 ? try string() : nil
    }
}
