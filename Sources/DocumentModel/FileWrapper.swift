package import FileAccess
public import Foundation
public import SystemPackage

/// A file, a directory or a symbolic link, read lazily and read-only: Foundation's
/// `FileWrapper`, which Foundation on Linux lacks, shaped for an indexer.
///
/// A wrapper made from a path reads nothing until asked. `regularFileContents` reads the
/// whole file only when it fits the wrapper's `readLimit`, and its head otherwise
/// (`isTruncated` says so); `prefix(_:)` reads a bounded head; `mappedContents()` maps a
/// large file instead of copying it. Bytes the classifier already read are reused rather
/// than read again. Files are opened through `ReadOnlyFile` (`O_RDONLY | O_NOFOLLOW |
/// O_NOCTTY | O_CLOEXEC`, `O_NOATIME` where permitted); FIFOs, sockets and devices are
/// described but never opened.
public final class FileWrapper: Sendable {
    /// What the wrapper wraps.
    public enum Kind: Sendable, Hashable {
        /// A regular file: its bytes are `regularFileContents`.
        case regularFile
        /// A directory: its entries are `fileWrappers`.
        case directory
        /// A symbolic link: its target is `symbolicLinkDestinationURL`, never followed.
        case symbolicLink
        /// A FIFO, socket or device: described, never opened.
        case special
    }

    /// The default read limit: 16 MiB of any one file.
    public static let defaultReadLimit = 16 << 20
    /// The most children a directory wrapper lists.
    public static let directoryEntryLimit = 10_000

    /// Whether this wraps a regular file, a directory, a symbolic link or a special file.
    public let kind: Kind
    /// The file's path, for a wrapper read from disk.
    public let filePath: FilePath?
    /// The file's attributes.
    public let fileAttributes: FileAttributes
    /// The most bytes of the file this wrapper reads.
    public let readLimit: Int

    let source: Source
    private let names: Locked<Names>
    let cache = Locked<Cache>(Cache())

    enum Source: Sendable {
        case disk(FilePath, FileStatus, known: [UInt8]?, knownIsWhole: Bool)
        case memory(Data)
        /// A text rendition, kept as the string it was made from (read as bytes on demand).
        case text(String)
        case children([String: FileWrapper])
        case link(FilePath)
        case none
    }

    private struct Names: Sendable {
        var filename: String?
        var preferredFilename: String?
    }

    struct Cache: Sendable {
        /// The file as it was opened for classifying it, read from here on (never closed
        /// before the wrapper goes; only a wrapper handed one keeps one).
        var file: ReadOnlyFile?
        var contents: Result<Data, FileReadError>?
        var children: [String: FileWrapper]?
    }

    // MARK: - Creating

    /// A wrapper for the file at `path`, examined with `lstat` and never followed.
    ///
    /// - Parameters:
    ///   - readLimit: the most bytes `regularFileContents` returns.
    ///   - knownPrefix: bytes already read from the start of this file (by the classifier),
    ///     reused instead of read again; `knownPrefixIsWholeFile` says they are all of it.
    ///   - status: the `lstat` result already in hand, if any.
    ///   - openFile: the file already open (by the classifier): every read goes to it, and the
    ///     path is never opened again.
    package init(path: FilePath, readLimit: Int = FileWrapper.defaultReadLimit, status given: FileStatus? = nil,
                knownPrefix: [UInt8]? = nil, knownPrefixIsWholeFile: Bool = false, openFile: ReadOnlyFile? = nil) throws(FileReadError) {
        let status: FileStatus
        if let given {
            status = given
        } else {
            do { status = try FileStatus.lstat(path) } catch { throw FileReadError(path: path, error) }
        }
        filePath = path
        fileAttributes = FileAttributes(status)
        self.readLimit = max(0, readLimit)
        let name = path.lastComponent?.string
        names = Locked(Names(filename: name, preferredFilename: name))
        switch status.kind {
        case .regular:
            kind = .regularFile
            source = .disk(path, status, known: knownPrefix, knownIsWhole: knownPrefixIsWholeFile)
        case .directory:
            kind = .directory
            source = .disk(path, status, known: nil, knownIsWhole: false)
        case .symbolicLink:
            kind = .symbolicLink
            do { source = .link(try Directory.symbolicLinkDestination(path)) } catch { throw FileReadError(path: path, error) }
        default:
            kind = .special
            source = .none
        }
        if kind == .regularFile, let openFile { cache.withLock { $0.file = openFile } }
    }

    /// A regular-file wrapper around bytes in memory (what a document's export returns).
    public init(regularFileWithContents contents: Data) {
        kind = .regularFile
        filePath = nil
        fileAttributes = FileAttributes(kind: .regular, size: Int64(contents.count))
        readLimit = Int.max
        source = .memory(contents)
        names = Locked(Names())
    }

    /// A regular-file wrapper around `text` as UTF-8, kept as the string: `readText()` hands
    /// it back without a copy (a long manual's text is not held twice, as bytes and as a
    /// string, while it is indexed), and `regularFileContents` makes its bytes when asked.
    public init(regularFileWithText text: String) {
        kind = .regularFile
        filePath = nil
        fileAttributes = FileAttributes(kind: .regular, size: Int64(text.utf8.count))
        readLimit = Int.max
        source = .text(text)
        names = Locked(Names())
    }

    /// A directory wrapper around child wrappers, keyed by name.
    public init(directoryWithFileWrappers children: [String: FileWrapper]) {
        kind = .directory
        filePath = nil
        fileAttributes = FileAttributes(kind: .directory, size: 0)
        readLimit = Int.max
        source = .children(children)
        names = Locked(Names())
    }

    /// A symbolic-link wrapper pointing at `url`.
    public init(symbolicLinkWithDestinationURL url: URL) {
        kind = .symbolicLink
        filePath = nil
        fileAttributes = FileAttributes(kind: .symbolicLink, size: 0)
        readLimit = Int.max
        source = .link(FilePath(url.path))
        names = Locked(Names())
    }

    // MARK: - Names and kinds

    /// The file's name on disk.
    public var filename: String? {
        get { names.withLock { $0.filename } }
        set { names.withLock { $0.filename = newValue } }
    }

    /// The name the wrapper would like when written (Docent never writes it).
    public var preferredFilename: String? {
        get { names.withLock { $0.preferredFilename } }
        set { names.withLock { $0.preferredFilename = newValue } }
    }

    /// The file's URL, for a wrapper read from disk.
    public var fileURL: URL? { filePath.map { URL(fileURLWithPath: $0.string) } }

    /// Whether this wraps a regular file.
    public var isRegularFile: Bool { kind == .regularFile }
    /// Whether this wraps a directory.
    public var isDirectory: Bool { kind == .directory }
    /// Whether this wraps a symbolic link.
    public var isSymbolicLink: Bool { kind == .symbolicLink }

    /// The destination of a symbolic link, as stored (never resolved).
    public var symbolicLinkDestinationURL: URL? {
        guard case .link(let destination) = source else { return nil }
        return URL(fileURLWithPath: destination.string)
    }

    /// Whether the file is larger than `readLimit`, so `regularFileContents` holds only its head.
    public var isTruncated: Bool {
        switch source {
        case .disk: kind == .regularFile && fileAttributes.size > Int64(readLimit)
        default: false
        }
    }
}
