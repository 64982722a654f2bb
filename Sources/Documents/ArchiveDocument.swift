import CArchive
public import ContentTypes
public import DocumentModel
import Foundation

/// An archive read with libarchive — zip, tar (plain, gzip, bzip2, xz, zstd), 7z, cpio, ISO
/// 9660, ar (.deb), RPM, … — its members listed, their names and the text of its small
/// text members indexed. Decompression bombs are stopped by total bytes and by ratio.
///
/// Runs isolated (in the helper process): libarchive is C over untrusted formats.
public struct ArchiveDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] {
        ["public.archive", "org.gnu.gnu-zip-tar-archive", "public.tar-archive", "public.cpio-archive", "public.iso-image"]
            .compactMap { UTType($0) }
    }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// One member.
    public struct Member: Sendable {
        /// The member's path inside the archive.
        public var path: String
        /// Its size unpacked, when the archive says.
        public var size: Int64?
        /// Whether it is a directory.
        public var isDirectory: Bool
        /// Whether it is encrypted (its text is not read).
        public var isEncrypted: Bool
        /// Its text, for a small text member.
        public var text: String?
    }

    /// The members, in the archive's order (up to `memberLimit`).
    public let members: [Member]
    /// libarchive's names for the container and its compression ("ZIP 2.0 (deflation)", "gzip").
    public let format: String?
    /// The compression around the archive (`gzip`, `xz`), if any.
    public let compression: String?
    /// What could not be read.
    public let problems: [DocumentProblem]
    /// How many members there were (more than `members` when the listing stopped).
    public let memberCount: Int

    /// Members larger than this are listed, not read.
    public static let memberTextLimit = 1 << 20
    /// The most members listed.
    public static let memberLimit = 50_000
    /// The most bytes decompressed in all (reading members and skipping past them).
    public static let unpackedLimit: Int64 = 1 << 30
    /// The most text taken from members in all.
    public static let textLimit = 64 << 20
    /// Beyond 16 MiB unpacked, an expansion over this ratio is a decompression bomb.
    public static let ratioLimit: Int64 = 200

    public init(configuration: ReadConfiguration) throws {
        guard let region = try configuration.file.mappedContents() else { throw DocumentReadError("the file is empty") }
        let registry = configuration.contentType.registry
        var read = try region.withUnsafeBytes { raw in try Self.read(raw, registry: registry) }
        if let cut = DocumentProblem.cutAtReadLimit(configuration.file) { read.problems.insert(cut, at: 0) }
        (members, format, compression, problems, memberCount) = (read.members, read.format, read.compression, read.problems, read.count)
    }

    private struct Read {
        var members: [Member] = []
        var format: String?, compression: String?
        var problems: [DocumentProblem] = []
        var count = 0
    }

    private static func read(_ raw: UnsafeRawBufferPointer, registry: UTTypeRegistry) throws -> Read {
        guard let archive = archive_read_new() else { throw DocumentReadError("libarchive could not start") }
        defer { archive_read_free(archive) }
        archive_read_support_filter_all(archive)
        archive_read_support_format_all(archive)
        guard archive_read_open_memory(archive, raw.baseAddress, raw.count) == ARCHIVE_OK else {
            throw DocumentReadError("not an archive libarchive reads: \(error(archive))")
        }
        var read = Read()
        var textBytes = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { break }
            if read.format == nil {
                read.format = archive_format_name(archive).map { String(cString: $0) }
                let filter = archive_filter_name(archive, 0).map { String(cString: $0) }
                read.compression = filter == "none" ? nil : filter
            }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                if read.count == 0 { throw DocumentReadError("not a readable archive: \(error(archive))") }
                read.problems.append(DocumentProblem(.error, kind: .corruptArchive, "The archive is damaged after \(read.count) members: \(error(archive))."))
                break
            }
            if let bomb = bomb(archive) {
                read.problems.append(bomb)
                break
            }
            read.count += 1
            guard read.members.count < memberLimit else { continue }
            let path = (archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry)).map { String(cString: $0) } ?? "?"
            let isDirectory = archive_entry_filetype(entry) == 0o040000
            var member = Member(path: path, size: archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : nil,
                                isDirectory: isDirectory, isEncrypted: archive_entry_is_encrypted(entry) != 0)
            // A small member whose name says text, or that has no telling name, is read for its text.
            if archive_entry_filetype(entry) == 0o100000, !member.isEncrypted, (member.size ?? 0) <= Int64(memberTextLimit),
               textBytes < textLimit, mayBeText(path, registry: registry) {
                var data = [UInt8]()
                while data.count <= memberTextLimit {
                    let n = archive_read_data(archive, &buffer, buffer.count)
                    if n <= 0 {
                        if n < 0 { read.problems.append(DocumentProblem(.warning, kind: .corruptMember, "\(path): \(error(archive))")) }
                        break
                    }
                    data += buffer[0..<n]
                }
                if data.count <= memberTextLimit, let text = DecodedText(Data(data), isComplete: true)?.string {
                    member.text = text
                    textBytes += text.utf8.count
                }
            }
            read.members.append(member)
            // Through a compression filter, skipping a member means unpacking it: done here, in
            // steps, so a bomb is stopped on its way rather than after.
            if read.compression != nil, member.text == nil, !isDirectory {
                var stop: DocumentProblem?
                while stop == nil, archive_read_data(archive, &buffer, buffer.count) > 0 { stop = bomb(archive) }
                if let stop {
                    read.problems.append(stop)
                    break
                }
            }
        }
        if read.count > read.members.count {
            read.problems.append(DocumentProblem(.warning, kind: .truncated, "Listed the first \(read.members.count) of \(read.count) members."))
        }
        return read
    }

    /// A decompression bomb: too many bytes unpacked in all, or too many per byte read.
    private static func bomb(_ archive: OpaquePointer) -> DocumentProblem? {
        let unpacked = archive_filter_bytes(archive, 0), packed = max(1, archive_filter_bytes(archive, -1))
        if unpacked > unpackedLimit {
            return DocumentProblem(.error, kind: .decompressionBomb, "Stopped: more than \(unpackedLimit >> 20) MiB unpacked.")
        }
        if unpacked > 16 << 20, unpacked / packed > ratioLimit {
            return DocumentProblem(.error, kind: .decompressionBomb, "Stopped: \(unpacked / packed) bytes unpacked per byte of archive.")
        }
        return nil
    }

    /// Whether a member named `path` may hold text: its name's type is text, or says nothing.
    private static func mayBeText(_ path: String, registry: UTTypeRegistry) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let type = registry.types(forFileName: name).first?.type else { return true }
        return type.conforms(to: .text)
    }

    private static func error(_ archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(problems: problems)
        metadata.append("Format", format.map { .text($0) })
        metadata.append("Compression", compression.map { .text($0) })
        metadata.append("Members", .integer(memberCount))
        let files = members.filter { !$0.isDirectory }
        metadata.append("Unpacked size", .integer(Int(files.reduce(Int64(0)) { $0 + ($1.size ?? 0) })))
        if members.contains(where: \.isEncrypted) { metadata.append("Encrypted members", .integer(members.filter(\.isEncrypted).count)) }
        return metadata
    }

    /// Member names, one per line, then the text of each text member under its name.
    public var text: String {
        var out = members.map(\.path).joined(separator: "\n")
        for member in members {
            guard let text = member.text, !text.isEmpty else { continue }
            out += "\n\n" + member.path + "\n" + text
        }
        return out
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// The most members shown in a preview.
    static let previewMembers = 500

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
    public static var group: DocumentGroup {
        DocumentGroup(viewing: ArchiveDocument.self) { configuration in
            let document = configuration.document
            Metadata(document.metadata.fields)
            Note.problems(document.problems)
            Table(header: ["Member", "Size"], rows: document.members.prefix(previewMembers).map { member in
                [member.path + (member.isEncrypted ? " (encrypted)" : ""), member.isDirectory ? "" : member.size.map { String($0) } ?? "?"]
            })
            if document.memberCount > previewMembers { Note("Showing the first \(previewMembers) of \(document.memberCount) members.") }
        }
        .isolated()
    }
}
