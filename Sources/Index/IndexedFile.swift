import Foundation

/// One file's row in the index: what `lstat` said, what the classifier and the document
/// type found, and its text.
public struct IndexedFile: Sendable, Hashable {
    /// The path's bytes, exactly as on disk (names need not be UTF-8).
    public var path: [UInt8]
    /// `lstat` identity and change signature.
    public var device: Int64
    public var inode: Int64
    public var size: Int64
    /// Nanoseconds since the epoch.
    public var modified: Int64
    public var changed: Int64
    /// The content type's identifier.
    public var contentType: String
    /// The Swift type that read the file, if any did.
    public var documentType: String?
    public var title: String?
    /// Metadata fields as a JSON object.
    public var metadata: String?
    /// The document's headings, one a line.
    public var headings: String?
    /// The plain-text rendition, within the text budget.
    public var text: String
    /// Why the classifier chose the type (`ClassificationReason.code`).
    public var evidence: String?
    /// A failure met on this file: a short kind and a message.
    public var errorKind: String?
    public var errorMessage: String?
    /// The host the file is on, when the row is another machine's (a shared PostgreSQL index).
    public var host: String?
    /// Its texts as the store keeps them, made ahead of the write (`IndexStore.prepareForWrite`).
    public var storageForm = StorageForm()

    public init(path: [UInt8], device: Int64, inode: Int64, size: Int64, modified: Int64, changed: Int64,
                contentType: String, documentType: String? = nil, title: String? = nil, metadata: String? = nil,
                text: String = "", evidence: String? = nil, errorKind: String? = nil, errorMessage: String? = nil) {
        self.path = path
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
        self.contentType = contentType
        self.documentType = documentType
        self.title = title
        self.metadata = metadata
        self.text = text
        self.evidence = evidence
        self.errorKind = errorKind
        self.errorMessage = errorMessage
    }

    /// The path as text (bytes that are not UTF-8 shown as replacement characters).
    public var displayPath: String { String(decoding: path, as: UTF8.self) }

    /// `host:path` for another host's file, else the path (as `SearchHit.displayPlace`).
    public var displayPlace: String { (host.map { $0 + ":" } ?? "") + displayPath }

    /// The last component of the path.
    public var name: String { Self.name(of: path) }

    /// The directory holding the file, as bytes.
    public var parent: [UInt8] { Self.parent(of: path) }

    /// The last component of `path`, as text.
    package static func name(of path: [UInt8]) -> String {
        let slash = path.lastIndex(of: UInt8(ascii: "/")).map { path.index(after: $0) } ?? path.startIndex
        return String(decoding: path[slash...], as: UTF8.self)
    }

    /// The directory holding `path`, as bytes.
    package static func parent(of path: [UInt8]) -> [UInt8] {
        guard let slash = path.lastIndex(of: UInt8(ascii: "/")) else { return [] }
        return slash == path.startIndex ? [UInt8(ascii: "/")] : Array(path[..<slash])
    }

    /// What decides whether the file changed since it was indexed.
    public var signature: FileSignature {
        FileSignature(device: device, inode: inode, size: size, modified: modified, changed: changed)
    }
}

/// The `lstat` fields compared to decide whether a file needs reading again.
public struct FileSignature: Sendable, Hashable, Codable {
    public var device: Int64, inode: Int64, size: Int64, modified: Int64, changed: Int64

    public init(device: Int64, inode: Int64, size: Int64, modified: Int64, changed: Int64) {
        (self.device, self.inode, self.size, self.modified, self.changed) = (device, inode, size, modified, changed)
    }

    /// What a recorded signature says of the file as `lstat` finds it now: the one rule for
    /// "unchanged", used by the index run, the live indexer and the preview cache alike.
    public enum Comparison: Sendable, Equatable {
        /// Every field the same: nothing to read.
        case unchanged
        /// The same file (device, inode, size, modification time) whose change time moved, as
        /// a rename moves it: its contents are the same.
        case renamed
        /// Same size and modification time on another device: a network or FUSE file system
        /// mounted again gets a new device number, and some give new inode numbers too
        /// (Baloo's bug 402154: a whole share read again after a remount). A new inode on the
        /// same device is a replaced file, read again.
        case remounted
        /// Anything else: read it again.
        case changed
    }

    /// This recorded signature against `current`.
    public func compared(to current: FileSignature) -> Comparison {
        if self == current { return .unchanged }
        if size != current.size || modified != current.modified { return .changed }
        if device != current.device { return .remounted }
        return inode == current.inode ? .renamed : .changed
    }
}

/// A path's bytes as a dictionary key, hashed in one pass (an array of bytes hashes each
/// byte with a call of its own, which a no-change re-index felt: a lookup per file).
public struct PathKey: Hashable, Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

extension IndexedFile {
    /// A metadata value as a row stores it: with its type, so an integer, a number, a
    /// boolean or a list is read back as one (`MetadataValue`'s JSON), not as its words.
    public enum StoredValue: Sendable, Equatable {
        case text(String)
        case integer(Int)
        case number(Double)
        case boolean(Bool)
        case list([String])
    }

    /// `metadata` as the JSON object a row stores: keys sorted, each value of its own JSON
    /// type. Written by hand: through JSONSerialization (a dictionary of `Any`, keys compared
    /// as NSStrings) it was 2% of a cold index. Escapes as JSONSerialization does (`/` too).
    public static func metadataJSON(_ metadata: [String: StoredValue]) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, key) in metadata.keys.sorted().enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            appendJSONString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            switch metadata[key]! {
            case .text(let text): appendJSONString(text, to: &out)
            case .integer(let integer): out += Array(String(integer).utf8)
            case .number(let number): out += Array((number.isFinite ? "\(number)" : "null").utf8)
            case .boolean(let boolean): out += Array((boolean ? "true" : "false").utf8)
            case .list(let items):
                out.append(UInt8(ascii: "["))
                for (j, item) in items.enumerated() {
                    if j > 0 { out.append(UInt8(ascii: ",")) }
                    appendJSONString(item, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// `string` as a JSON string literal (RFC 8259).
    static func appendJSONString(_ string: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        let backslash = UInt8(ascii: "\\")
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), backslash, UInt8(ascii: "/"): out += [backslash, byte]
            case 0x0A: out += [backslash, UInt8(ascii: "n")]
            case 0x0D: out += [backslash, UInt8(ascii: "r")]
            case 0x09: out += [backslash, UInt8(ascii: "t")]
            case 0x08: out += [backslash, UInt8(ascii: "b")]
            case 0x0C: out += [backslash, UInt8(ascii: "f")]
            case ..<0x20: out += [backslash, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// A row's texts as the SQLite index stores them — the identifier parts of its name and text,
/// and both texts compressed — made by the thread that read the file, before the batch is
/// written (`FileIndex.prepareForWrite`). One worker writes at a time: made inside the write,
/// they were 2.8 s of the 10.6 s a cold index of the bench corpus spent writing, while the
/// other worker waited 4.6 s for its turn. Derived from the row, and used only while the
/// row's name and text are those it was made from: no part of the row's equality.
public struct StorageForm: Sendable, Hashable {
    struct Made: Sendable {
        /// The name and text it was made from (the row's own storage: no copy).
        let name: String
        let text: String
        let parts: String
        let body: Data
        let storedParts: Data
    }
    var made: Made?

    public init() {}

    /// The bytes it holds (the parts' text and both compressed texts), for a batch's weight.
    public var bytes: Int { made.map { $0.parts.utf8.count + $0.body.count + $0.storedParts.count } ?? 0 }
    public static func == (lhs: Self, rhs: Self) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}
