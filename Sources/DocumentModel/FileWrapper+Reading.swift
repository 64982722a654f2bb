package import FileAccess
public import Foundation
import SystemPackage

extension FileWrapper {
    /// The file's contents: all of it when it fits `readLimit`, its head otherwise
    /// (`isTruncated`); nil for a directory, a link, a special file, or a read error
    /// (`readContents()` says which).
    public var regularFileContents: Data? { try? readContents() }

    /// The file's contents, as `regularFileContents`, or the error that prevented reading them.
    ///
    /// The bytes are read once and kept; a wrapper is a snapshot of the file when first read.
    public func readContents() throws(FileReadError) -> Data {
        switch source {
        case .memory(let data):
            return data
        case .text(let text):
            return Data(text.utf8)
        case .disk(let path, let status, let known, let knownIsWhole) where kind == .regularFile:
            if let known, knownIsWhole || known.count >= readLimit {
                return Data(known.prefix(readLimit))
            }
            let result: Result<Data, FileReadError> = cache.withLock { cache in
                if let cached = cache.contents { return cached }
                // Read only what the known prefix lacks.
                let read = Result { () throws(FileReadError) -> Data in
                    try Self.read(Self.open(path, status, cache.file), path: path, after: known ?? [], upTo: readLimit)
                }
                cache.contents = read
                return read
            }
            return try result.get()
        default:
            throw FileReadError(path: filePath, errno: nil, message: "not a regular file")
        }
    }

    /// The file's contents as text: a text wrapper's string as it is, other contents decoded
    /// as UTF-8 (invalid sequences replaced).
    public func readText() throws(FileReadError) -> String {
        if case .text(let text) = source { return text }
        return String(decoding: try readContents(), as: UTF8.self)
    }

    /// At most `maxLength` bytes from the start of the file, reusing what is already in hand.
    public func prefix(_ maxLength: Int) throws(FileReadError) -> Data {
        let wanted = min(maxLength, readLimit)
        switch source {
        case .memory(let data):
            return data.prefix(wanted)
        case .text(let text):
            return Data(text.utf8.prefix(wanted))
        case .disk(let path, let status, let known, let knownIsWhole) where kind == .regularFile:
            if let known, knownIsWhole || known.count >= wanted { return Data(known.prefix(wanted)) }
            if let cached = cache.withLock({ $0.contents }), case .success(let data) = cached {
                return data.prefix(wanted)
            }
            return try Self.read(openFile(path, status), path: path, after: [], upTo: wanted)
        default:
            throw FileReadError(path: filePath, errno: nil, message: "not a regular file")
        }
    }

    /// The file mapped into memory (read-only, at most `readLimit` bytes), for scanning a
    /// large file without copying it; nil for an empty file.
    package func mappedContents() throws(FileReadError) -> MappedRegion? {
        guard case .disk(let path, let status, _, _) = source, kind == .regularFile else {
            throw FileReadError(path: filePath, errno: nil, message: "not a file on disk")
        }
        let file = try openFile(path, status)
        do {
            return try file.map(upTo: readLimit)
        } catch {
            throw FileReadError(path: path, error)
        }
    }

    /// The file open for reading: the one the wrapper was handed, else opened now (and not
    /// kept: a directory's thousands of children must not hold a descriptor each). For
    /// readers whose C library reads a descriptor (mail, media tags).
    package func readOnlyFile() throws(FileReadError) -> ReadOnlyFile {
        guard case .disk(let path, let status, _, _) = source, kind == .regularFile else {
            throw FileReadError(path: filePath, errno: nil, message: "not a file on disk")
        }
        return try openFile(path, status)
    }

    private func openFile(_ path: FilePath, _ status: FileStatus) throws(FileReadError) -> ReadOnlyFile {
        try Self.open(path, status, cache.withLock { $0.file })
    }

    private static func open(_ path: FilePath, _ status: FileStatus, _ handed: ReadOnlyFile?) throws(FileReadError) -> ReadOnlyFile {
        if let handed { return handed }
        do { return try ReadOnlyFile(path, expected: status) } catch { throw FileReadError(path: path, error) }
    }

    /// The file's first `limit` bytes, of which `head` are already in hand: the rest read
    /// straight into the one buffer returned. A large file's bytes are held once while read,
    /// not three times (an array, its copy as `Data`, and that joined to the head).
    private static func read(_ file: ReadOnlyFile, path: FilePath, after head: [UInt8], upTo limit: Int) throws(FileReadError) -> Data {
        do {
            let rest = file.count(upTo: limit - head.count, at: head.count)
            var data = Data(count: head.count + rest)
            let read = data.withUnsafeMutableBytes { buffer -> Result<Int, Errno> in
                buffer.copyBytes(from: head)
                return Result { () throws(Errno) -> Int in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[head.count...]), at: head.count)
                }
            }
            let count = try read.get()
            if count < rest { data.count = head.count + count }
            return data
        } catch {
            throw FileReadError(path: path, error)
        }
    }

    /// A directory's children by name, listed on first use (at most `directoryEntryLimit`;
    /// names that are not UTF-8 are shown with replacement characters); nil for anything
    /// that is not a directory or cannot be listed.
    public var fileWrappers: [String: FileWrapper]? {
        switch source {
        case .children(let children):
            return children
        case .disk(let path, _, _, _) where kind == .directory:
            return cache.withLock { cache in
                if let children = cache.children { return children }
                var children: [String: FileWrapper] = [:]
                try? Directory.forEachEntry(of: path) { entry in
                    guard children.count < Self.directoryEntryLimit else { return }
                    if let child = try? FileWrapper(path: path.appending(entry.name), readLimit: readLimit) {
                        children[entry.name.string] = child
                    }
                }
                cache.children = children
                return children
            }
        default:
            return nil
        }
    }
}
