import CArchive
import DocumentModel
import Foundation

/// Named members of a zip container (office documents, EPUB), read with libarchive within
/// bounds: each member at most `memberLimit` bytes, all of them at most `totalLimit`.
struct ZipMembers {
    /// Every member's name, in the archive's order.
    private(set) var names: [String] = []
    /// The contents of the members asked for.
    private(set) var contents: [String: [UInt8]] = [:]
    /// Members cut at `memberLimit`, or left out past `totalLimit`.
    private(set) var cut: [String] = []
    /// Why reading stopped before the end (a truncated or damaged zip), if it did.
    private(set) var damage: String?

    static let memberLimit = 64 << 20
    static let totalLimit = 256 << 20

    /// Reads the members of `raw` whose names `wanted` accepts.
    init(_ raw: UnsafeRawBufferPointer, wanted: (String) -> Bool) throws {
        guard let archive = archive_read_new() else { throw DocumentReadError("libarchive could not start") }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard archive_read_open_memory(archive, raw.baseAddress, raw.count) == ARCHIVE_OK else {
            throw DocumentReadError("not a zip container: \(Self.error(archive))")
        }
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var entry: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { break }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                if names.isEmpty { throw DocumentReadError("not a readable zip container: \(Self.error(archive))") }
                damage = Self.error(archive)  // a damaged tail: what was read stands
                break
            }
            let name = (archive_entry_pathname_utf8(entry) ?? archive_entry_pathname(entry)).map { String(cString: $0) } ?? ""
            names.append(name)
            guard wanted(name), archive_entry_is_encrypted(entry) == 0 else { continue }
            var data: [UInt8] = []
            while true {
                let n = archive_read_data(archive, &buffer, buffer.count)
                if n < 0 { damage = "\(name): \(Self.error(archive))" }
                guard n > 0 else { break }
                data += buffer[0..<n]
                if data.count >= Self.memberLimit || total + data.count >= Self.totalLimit {
                    cut.append(name)
                    break
                }
            }
            total += data.count
            contents[name] = data
            if total >= Self.totalLimit { break }
        }
    }

    private static func error(_ archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
    }
}

extension DocumentProblem {
    /// For readers of zip containers: an error when the zip ended or broke before its end.
    static func damagedZip(_ members: ZipMembers) -> DocumentProblem? {
        members.damage.map { DocumentProblem(.error, kind: .damagedZip, "The zip container is damaged or cut short (\($0)); what came before was read.") }
    }

    /// For readers in the helper process, whose formats need the whole file (a PDF's cross
    /// references and a zip's directory are at its end): an error when only its head was read.
    static func cutAtReadLimit(_ file: FileWrapper) -> DocumentProblem? {
        guard file.isTruncated else { return nil }
        return DocumentProblem(.error, kind: .truncated, "Only the first \(file.readLimit) bytes were read (limits.documentReadBytes).")
    }
}
