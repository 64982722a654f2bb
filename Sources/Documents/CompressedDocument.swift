import CArchive
import CZlib
public import ContentTypes
public import DocumentModel
import Foundation

/// A file compressed on its own — gzip, bzip2, xz (or the older lzma) or Zstandard: a man
/// page, a log, a text — decompressed within a bound, typed by what it holds (its name without
/// the compression's extension, confirmed by its text), its text previewed and indexed. A
/// gzipped man page is a manual page; an archive compressed whole (`.tar.xz`) is read by
/// `ArchiveDocument`, whose types are more specific.
public struct CompressedDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] {
        ["org.gnu.gnu-zip-archive", "public.bzip2-archive", "org.tukaani.xz-archive", "org.freedesktop.mime.application.x-lzma",
         "com.facebook.zstandard-archive"].compactMap { UTType($0) }
    }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The compression, as libarchive names its filters ("gzip", "bzip2", "xz", "lzma", "zstd").
    public let compression: String
    /// The name without the compression's extension.
    public let innerName: String?
    /// The inner file's type, from its name.
    public let innerType: UTType?
    /// Bytes after decompression (as far as decompression went).
    public let decompressedSize: Int
    /// The compressed file's size in bytes.
    public let compressedSize: Int64
    /// The decompressed text; nil when the content is not text.
    public let text: String?
    /// Why decompression stopped early: the output bound, or a damaged stream.
    public let problem: DocumentProblem?
    /// The rendered page, when the inner file is a man page (`ls.1.gz`).
    package let manPage: ManPage?
    /// The DSC comments, when the inner file is PostScript (`manual.ps.gz`): it has no text.
    package let postScript: PostScriptComments?
    /// The text read from TeX's typesetting, when the inner file is DVI (`refcard.dvi.gz`).
    package let dvi: DVIText?

    /// The most bytes decompressed, whatever the file's size (a decompression bomb stops here).
    public static let outputLimit = 16 << 20

    public init(configuration: ReadConfiguration) throws {
        let file = configuration.file
        let compressed = try configuration.contents()
        compressedSize = file.fileAttributes.size
        let limit = min(Self.outputLimit, file.readLimit)
        let gzip = compressed.starts(with: [0x1F, 0x8B])
        compression = gzip ? "gzip" : Decompressor.filter(of: compressed) ?? configuration.contentType.preferredFilenameExtension ?? "compressed"
        let result = gzip ? Inflater.inflate(compressed, limit: limit) : Decompressor.decompress(compressed, limit: limit)
        guard result.error == nil || !result.output.isEmpty else {
            throw DocumentReadError("the \(compression) stream is damaged or cut short: \(result.error!)")
        }
        decompressedSize = result.output.count
        if let error = result.error {
            problem = DocumentProblem(file.isTruncated ? .warning : .error, kind: .corruptGzip,
                                      file.isTruncated ? "Only the head of the file was decompressed." : "The compressed stream is damaged: \(error).")
        } else if result.hitLimit {
            problem = DocumentProblem(.warning, kind: .truncated, "Decompression stopped at \(limit) bytes.")
        } else {
            problem = nil
        }
        let complete = result.error == nil && !result.hitLimit
        postScript = PostScriptComments(result.output)
        dvi = postScript == nil ? DVIText(result.output) : nil
        text = dvi?.text ?? (postScript == nil ? DecodedText(result.output, isComplete: complete)?.string : nil)
        innerName = file.filename.map(Self.innerName(of:))
        let name = innerName
        innerType = name.flatMap { configuration.contentType.registry.types(forFileName: $0).first?.type }
        let isManPage = innerType?.identifier == "org.troff.man-page" || (innerName?.range(of: #"\.[0-9][a-z]*$"#, options: .regularExpression) != nil)
        manPage = text.flatMap { isManPage && ManPage.looksLikeManPage($0) ? ManPage($0) : nil }
    }

    /// `name` without its compression's extension (`ls.1.gz` → `ls.1`; `notes.tgz` stays).
    static func innerName(of name: String) -> String {
        let lowered = name.lowercased()
        for suffix in [".gz", ".bz2", ".xz", ".lzma", ".zst", ".zstd"] where lowered.hasSuffix(suffix) && lowered.count > suffix.count {
            return String(name.dropLast(suffix.count))
        }
        return name
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata()
        if let manPage {
            metadata = manPage.metadata
            metadata.append("Contains", .text("man page"))
        } else if let postScript {
            metadata = postScript.metadata
            metadata.innerContentType = postScript.isEncapsulated ? "com.adobe.encapsulated-postscript" : "com.adobe.postscript"
        } else if let dvi {
            metadata = dvi.metadata
            metadata.innerContentType = "org.freedesktop.mime.application.x-dvi"
        } else {
            metadata.append("Contains", innerType.map { .text($0.localizedDescription ?? $0.identifier) })
            // A text (not code) titled as it sets out its title.
            if let text, let tex = UTType("org.tug.tex"), innerType?.conforms(to: tex) == true {
                (metadata.title, metadata.headings) = LaTeXOutline.of(text)
            } else if let text, innerType.map({ !$0.conforms(to: .sourceCode) }) ?? true {
                metadata.title = TextTitle.of(text)
            }
        }
        // What it holds, when that is known and read: a man page, or text of a type its name says (else plain text).
        if manPage != nil {
            metadata.innerContentType = "org.troff.man-page"
        } else if text != nil, dvi == nil {
            metadata.innerContentType = innerType.flatMap { $0.conforms(to: .text) ? $0.identifier : nil } ?? UTType.plainText.identifier
        }
        metadata.append("Compression", .text(compression))
        metadata.append("Compressed", .integer(Int(compressedSize)))
        metadata.append("Decompressed", .integer(decompressedSize))
        if let text { metadata.append("Lines", .integer(text.lineCount)) }
        if let problem { metadata.problems.append(problem) }
        return metadata
    }

    /// The text the index stores: a man page rendered, other text as it is.
    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(manPage?.text ?? text ?? "") }

    /// Compressed files' viewing group: what is inside, and the head of its text.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: CompressedDocument.self) { configuration in
            let document = configuration.document
            if let page = document.manPage {
                Note.problems(document.metadata.problems)
                ManPageDocument.page(page)
            } else {
                if let name = document.innerName { Title(name) }
                Note.problems(document.metadata.problems)
                Metadata(document.metadata.fields)
                if let text = document.text {
                    PlainTextDocument.textHead(text)
                } else if document.postScript != nil {
                    Note(PostScriptComments.noText)
                } else {
                    Note("The decompressed content is not text.")
                }
            }
        }
        .revision(12)  // 2: man pages rendered; 3: no-fill macro lines and continued lines as man shows them; filed under what it holds; 4: bzip2, xz, lzma, Zstandard; 5: tbl tables laid out; 6: man pages titled as whatis says; 7: a definition ended by `.  .`; 8: a text with stray NULs read (GNU info manuals were "not text"); 9: a text titled as it sets out its title; 10: PostScript read for its DSC fields, not indexed as its code; 11: a LaTeX source titled and sectioned by its commands; 12: DVI read for its text
    }
}

/// The name this type had when it read gzip alone.
@available(*, deprecated, renamed: "CompressedDocument")
public typealias GzipDocument = CompressedDocument

/// bzip2, xz, lzma and Zstandard streams, decompressed by libarchive (its raw format: one
/// stream, no archive), bounded as `Inflater` is. Only those filters are enabled, each built
/// into Debian's libarchive: no external program is ever run.
enum Decompressor {
    private static func reader() -> OpaquePointer? {
        guard let archive = archive_read_new() else { return nil }
        archive_read_support_filter_bzip2(archive)
        archive_read_support_filter_xz(archive)
        archive_read_support_filter_lzma(archive)
        archive_read_support_filter_zstd(archive)
        archive_read_support_format_raw(archive)
        return archive
    }

    /// The compression of `input` as libarchive names it; nil when it is none of these.
    static func filter(of input: Data) -> String? {
        guard let archive = reader() else { return nil }
        defer { archive_read_free(archive) }
        return input.withUnsafeBytes { raw -> String? in
            var entry: OpaquePointer?
            guard archive_read_open_memory(archive, raw.baseAddress, raw.count) == ARCHIVE_OK,
                  archive_read_next_header(archive, &entry) == ARCHIVE_OK, archive_filter_code(archive, 0) != ARCHIVE_FILTER_NONE
            else { return nil }
            return archive_filter_name(archive, 0).map { String(cString: $0) }
        }
    }

    static func decompress(_ input: Data, limit: Int) -> Inflater.Result {
        guard let archive = reader() else { return Inflater.Result(output: Data(), hitLimit: false, error: "libarchive could not start") }
        defer { archive_read_free(archive) }
        var output = Data(count: min(limit, 256 << 10))
        var produced = 0
        var error: String?
        var hitLimit = false
        func failure() -> String { archive_error_string(archive).map { String(cString: $0) } ?? "damaged stream" }
        input.withUnsafeBytes { raw in
            var entry: OpaquePointer?
            guard archive_read_open_memory(archive, raw.baseAddress, raw.count) == ARCHIVE_OK,
                  archive_read_next_header(archive, &entry) == ARCHIVE_OK, archive_filter_code(archive, 0) != ARCHIVE_FILTER_NONE
            else { error = "not a stream of bzip2, xz, lzma or Zstandard"; return }
            while true {
                if produced == output.count {
                    guard output.count < limit else { hitLimit = true; return }
                    output.count = min(limit, output.count * 2)
                }
                let room = output.count - produced
                let read = output.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress! + produced, room) }
                if read == 0 { return }
                if read < 0 { error = failure(); return }
                produced += read
            }
        }
        output.count = produced
        return Inflater.Result(output: output, hitLimit: hitLimit, error: error)
    }
}

/// zlib's inflate over gzip (and zlib) streams, concatenated members included, bounded.
enum Inflater {
    struct Result {
        var output: Data
        var hitLimit: Bool
        var error: String?
    }

    static func inflate(_ input: Data, limit: Int) -> Result {
        var stream = z_stream()
        // 15 + 32: the largest window, and detect a gzip or zlib header automatically.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return Result(output: Data(), hitLimit: false, error: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        // Inflated in place into one buffer sized from the gzip trailer (the size mod 2^32 of
        // the last member: exact for a single member), grown only when that was wrong: a
        // 12.7 MB text is not copied chunk by chunk into a buffer that doubles as it goes.
        var output = Data(count: min(limit, Self.expectedSize(of: input) ?? 256 << 10))
        var produced = 0
        var error: String?
        var hitLimit = false
        input.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else {
                error = "empty file"
                return
            }
            stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(raw.count)
            while true {
                if produced == output.count {
                    guard output.count < limit else { hitLimit = true; return }
                    output.count = min(limit, max(output.count * 2, 64 << 10))
                }
                let room = min(output.count - produced, Int(uInt.max))
                let rc = output.withUnsafeMutableBytes { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self) + produced
                    stream.avail_out = uInt(room)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                produced += room - Int(stream.avail_out)
                switch rc {
                case Z_OK:
                    if stream.avail_in == 0 && stream.avail_out != 0 { error = "unexpected end of data"; return }
                case Z_STREAM_END:
                    if stream.avail_in == 0 { return }
                    // Another gzip member follows (as `cat a.gz b.gz` makes); trailing zeros are padding.
                    let rest = UnsafeBufferPointer(start: stream.next_in, count: Int(stream.avail_in))
                    if rest.allSatisfy({ $0 == 0 }) { return }
                    inflateReset(&stream)
                case Z_BUF_ERROR:
                    // No progress: out of input (a cut stream), or out of room (grown above).
                    if stream.avail_out != 0 { error = "unexpected end of data"; return }
                default:
                    error = stream.msg.map { String(cString: $0) } ?? "zlib error \(rc)"
                    return
                }
            }
        }
        output.count = produced
        return Result(output: output, hitLimit: hitLimit, error: error)
    }

    /// A gzip stream's decompressed size as its trailer states it (RFC 1952: ISIZE, the last
    /// four bytes, little-endian); nil for anything else or an empty claim.
    static func expectedSize(of input: Data) -> Int? {
        guard input.count >= 18, input[input.startIndex] == 0x1F, input[input.startIndex + 1] == 0x8B else { return nil }
        let size = input.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        return size > 0 ? size : nil
    }
}
