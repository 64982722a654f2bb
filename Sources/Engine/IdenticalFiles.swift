import COCR
import Documents
import FileAccess
import Index
import Synchronization
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// A run's last few large files and what was read from them, so that a byte-identical copy
/// (a download kept in two places; for PDFs, also a build differing in its file identifier
/// alone) is read once: a file of the same size as one of them is hashed, and so is that one
/// (if unchanged since), and on equal SHA-256 digests the extraction is reused. Files of
/// other sizes cost nothing.
///
/// Some readers look at the file's name too (a `.gz` names what it holds, TagLib picks its
/// parser by extension, an app's own document type may do anything), so a copy under
/// another name reuses only what a reader of bytes alone made: MuPDF's PDF text.
final class IdenticalFiles: Sendable {
    /// Document types whose extraction depends on the bytes alone, not the file's name.
    static let nameBlindReaders: Set<String> = [PDFDocument.group.documentTypeName]

    private struct Entry: Sendable {
        var path: FilePath
        var signature: FileSignature
        var digest: [UInt8]?
        var extraction: Extraction
        /// The file as it was read, kept open (a few descriptors) to be hashed if a copy comes.
        var file: ReadOnlyFile?
    }

    /// How many large files are remembered (a few: their texts are held meanwhile).
    static let capacity = 4
    private let entries = Mutex<[Entry]>([])
    /// Copies whose extraction was reused.
    let reused = Atomic<Int>(0)

    /// The sizes of the files remembered: a file of one of them may be a copy.
    var recentSizes: Set<Int64> { entries.withLock { Set($0.map(\.signature.size)) } }

    /// The extraction of a remembered file with the same bytes as `path` (`status` its
    /// `lstat`, `file` the file open), of content type `contentType`; nil when none.
    func extraction(for path: FilePath, file: ReadOnlyFile?, status: FileStatus, contentType: String) -> Extraction? {
        let sameSize = entries.withLock {
            $0.filter { entry in
                entry.signature.size == status.size && entry.extraction.contentType == contentType
                    && (entry.path.lastComponent == path.lastComponent || Self.nameBlindReaders.contains(entry.extraction.documentType))
            }
        }
        let pdf = contentType == Self.pdf
        guard !sameSize.isEmpty, let file, let digest = Self.digest(file, pdf: pdf) else { return nil }
        for entry in sameSize {
            let theirs: [UInt8]
            if let known = entry.digest {
                theirs = known
            } else {
                // Hashed now, if the file is still the one that was read.
                guard let current = try? FileStatus.lstat(entry.path), entry.signature.compared(to: current.signature) == .unchanged,
                      let kept = entry.file, let computed = Self.digest(kept, pdf: pdf) else { continue }
                theirs = computed
                entries.withLock { entries in
                    if let i = entries.firstIndex(where: { $0.path == entry.path }) { entries[i].digest = computed }
                }
            }
            if theirs == digest {
                reused.add(1, ordering: .relaxed)
                return entry.extraction
            }
        }
        return nil
    }

    /// Remembers what was read from `path`, the oldest entry making room.
    func remember(_ extraction: Extraction, file: ReadOnlyFile?, path: FilePath, status: FileStatus) {
        entries.withLock { entries in
            entries.removeAll { $0.path == path }
            entries.append(Entry(path: path, signature: status.signature, digest: nil, extraction: extraction, file: file))
            if entries.count > Self.capacity { entries.removeFirst() }
        }
    }

    static let pdf = "com.adobe.pdf"
    /// PDFs are hashed in memory, to leave their file identifiers out, up to this size;
    /// larger ones byte for byte, streamed.
    static let pdfDigestLimit = 32 << 20

    /// The SHA-256 of `file`, open (never the path again: it is hashed as it was read); of
    /// a PDF, without its file identifiers (`/ID`), which differ between two builds of the
    /// same document (the corpus's `refman.pdf` and `fullrefman.pdf` differ there alone).
    private static func digest(_ file: ReadOnlyFile, pdf: Bool) -> [UInt8]? {
        // The hash reads from the open file's offset, which a reader may have moved.
        guard lseek(file.descriptor, 0, SEEK_SET) == 0 else { return nil }
        var digest = [UInt8](repeating: 0, count: 32)
        let status = pdf && file.status.size <= pdfDigestLimit
            ? docent_sha256_pdf_fd(file.descriptor, pdfDigestLimit + 1, &digest) : docent_sha256_fd(file.descriptor, &digest)
        return status == 0 ? digest : nil
    }
}
