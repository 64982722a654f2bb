package import ContentTypes

/// The built-in document types and what each reads, in their declaration order — the table
/// `docent` uses for `docent info`'s `document:` line without loading the readers (poppler,
/// GMime, TagLib and the rest stay in `docent-engine`). A test holds it equal to
/// `BuiltInDocuments.groups`.
package enum BuiltInReaders {
    package static let table: [(name: String, readable: [String])] = [
        ("MarkdownDocument", ["net.daringfireball.markdown"]),
        ("ManPageDocument", ["org.troff.man-page"]),
        ("RTFDocument", ["public.rtf"]),
        ("JSONDocument", ["public.json"]),
        ("CSVDocument", ["public.comma-separated-values-text", "public.tab-separated-values-text"]),
        ("HTMLDocument", ["public.html"]),
        ("XMLDocument", ["public.xml"]),
        ("PhotoDocument", ["public.jpeg", "public.tiff"]),
        ("ImageDocument", ["public.png", "public.jpeg", "com.compuserve.gif", "org.webmproject.webp", "com.microsoft.bmp", "public.svg-image"]),
        ("PDFDocument", ["com.adobe.pdf", "org.freedesktop.mime.application.x-gzpdf"]),
        ("PostScriptDocument", ["com.adobe.postscript", "com.adobe.encapsulated-postscript"]),
        ("DVIDocument", ["org.freedesktop.mime.application.x-dvi"]),
        ("SourceCodeDocument", ["public.source-code"]),
        ("PlainTextDocument", ["public.plain-text", "public.text"]),
        ("CompressedDocument", ["org.gnu.gnu-zip-archive", "public.bzip2-archive", "org.tukaani.xz-archive", "org.freedesktop.mime.application.x-lzma", "com.facebook.zstandard-archive"]),
        ("OfficeDocument", ["org.openxmlformats.openxml", "org.oasis-open.opendocument", "org.oasis-open.opendocument.text-flat-xml", "org.oasis-open.opendocument.spreadsheet-flat-xml", "org.oasis-open.opendocument.presentation-flat-xml"]),
        ("EPUBDocument", ["org.idpf.epub-container"]),
        ("ArchiveDocument", ["public.archive", "org.gnu.gnu-zip-tar-archive", "public.tar-archive", "public.cpio-archive", "public.iso-image"]),
        ("SQLiteDocument", ["org.sqlite.sqlite3"]),
        ("MediaDocument", ["public.mp3", "org.xiph.flac", "org.xiph.ogg-audio", "public.mpeg-4", "public.aiff-audio", "public.aifc-audio", "com.microsoft.waveform-audio", "org.freedesktop.mime.audio.x-ms-wma", "org.freedesktop.mime.video.x-ms-wmv", "org.freedesktop.mime.application.vnd.ms-asf", "org.freedesktop.mime.audio.x-ape", "org.freedesktop.mime.audio.x-musepack", "org.freedesktop.mime.audio.x-wavpack", "org.freedesktop.mime.audio.x-tta", "org.freedesktop.mime.audio.x-speex+ogg", "org.freedesktop.mime.audio.x-flac+ogg", "org.freedesktop.mime.audio.x-m4b", "org.freedesktop.mime.video.ogg"]),
        ("MailDocument", ["public.email-message", "io.docent.mbox"]),
        ("GenericDocument", ["public.item"]),
    ]

    /// The table with types from `registry` (identifiers it does not declare are left out, as
    /// the readers' `UTType(_:)` leaves them out).
    package static func readers(in registry: UTTypeRegistry = .shared) -> [(name: String, readable: [UTType])] {
        table.map { entry in (entry.name, entry.readable.compactMap { registry.type(identifier: $0) }) }
    }
}
