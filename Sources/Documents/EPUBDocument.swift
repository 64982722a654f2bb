public import ContentTypes
public import DocumentModel
import Foundation

/// An EPUB book (2 or 3): the package's metadata (title, creators, language, publisher,
/// date, subjects, description), its table of contents (the EPUB 3 navigation document or
/// the EPUB 2 NCX), and the text of its spine, chapter by chapter.
///
/// The zip is read with libarchive, the package and navigation streamed with libxml2, the
/// chapters parsed by `HTMLDocument`. Runs isolated (in the helper process).
public struct EPUBDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [UTType("org.idpf.epub-container") ?? .data] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The book's title (`dc:title`).
    public var title: String?
    /// Its authors (`dc:creator`), in order.
    public var creators: [String] = []
    /// Its language (`dc:language`).
    public var language: String?
    /// Its publisher.
    public var publisher: String?
    /// Its publication date, as written.
    public var date: String?
    /// Its description.
    public var description: String?
    /// Its identifier (an ISBN, a UUID).
    public var identifier: String?
    /// Its subjects.
    public var subjects: [String] = []
    /// The EPUB version the package declares (`3.0`).
    public var version: String?
    /// Table of contents entries: depth (0 for the top level) and label.
    public var contents: [(depth: Int, label: String)] = []
    /// The spine's chapters, in reading order: their text.
    public var chapters: [String] = []
    /// What could not be read.
    public var problems: [DocumentProblem] = []

    public init(configuration: ReadConfiguration) throws {
        let data = try configuration.contents()
        let members = try data.withUnsafeBytes { raw in
            try ZipMembers(raw) { name in
                let lower = name.lowercased()
                return lower == "meta-inf/container.xml" || [".opf", ".ncx", ".xhtml", ".html", ".htm", ".xml"].contains { lower.hasSuffix($0) }
            }
        }
        if let cut = DocumentProblem.cutAtReadLimit(configuration.file) { problems.append(cut) }
        if let damage = DocumentProblem.damagedZip(members) { problems.append(damage) }
        if !members.cut.isEmpty {
            problems.append(DocumentProblem(.warning, kind: .truncated, "Parts cut at their size limit: \(members.cut.joined(separator: ", "))."))
        }
        let parts = members.contents
        guard let container = parts["META-INF/container.xml"] else {
            throw DocumentReadError("a zip file without META-INF/container.xml: not an EPUB")
        }
        guard let packagePath = try XMLText.attributes(container, element: "rootfile", attribute: "full-path").first,
              let package = parts[packagePath] else {
            throw DocumentReadError("the EPUB's package document (the .opf file) is missing")
        }
        let opf = try Package(package)
        let base = Self.directory(of: packagePath)
        (title, creators, language) = (opf.fields["title"]?.first, opf.fields["creator"] ?? [], opf.fields["language"]?.first)
        (publisher, date, description) = (opf.fields["publisher"]?.first, opf.fields["date"]?.first, opf.fields["description"]?.first)
        identifier = opf.fields["identifier"]?.first
        subjects = opf.fields["subject"] ?? []
        version = opf.version
        if let nav = opf.manifest.values.first(where: { $0.properties.contains("nav") }),
           let bytes = parts[Self.resolve(nav.href, against: base)] {
            contents = try Self.navigation(bytes)
        }
        if contents.isEmpty, let ncxID = opf.tocID ?? opf.manifest.first(where: { $0.value.mediaType == "application/x-dtbncx+xml" })?.key,
           let ncx = opf.manifest[ncxID], let bytes = parts[Self.resolve(ncx.href, against: base)] {
            contents = try Self.ncx(bytes)
        }
        var missing: [String] = []
        for idref in opf.spine {
            guard let item = opf.manifest[idref] else { missing.append(idref); continue }
            let path = Self.resolve(item.href, against: base)
            guard let bytes = parts[path] else { missing.append(path); continue }
            do {
                chapters.append(try HTMLDocument(html: Data(bytes)).text)
            } catch {
                problems.append(DocumentProblem(.warning, kind: .damagedChapter, "\(path) could not be read: \(error)."))
            }
        }
        if !missing.isEmpty {
            problems.append(DocumentProblem(.warning, kind: .missingChapter, "Spine items missing from the book: \(missing.prefix(5).joined(separator: ", "))."))
        }
    }

    /// What the package document (`content.opf`) says.
    private struct Package {
        struct Item { var href: String; var mediaType: String; var properties: [String] }
        var fields: [String: [String]] = [:]
        var manifest: [String: Item] = [:]
        var spine: [String] = []
        var tocID: String?
        var version: String?

        static let dublinCore: Set<String> = ["title", "creator", "language", "publisher", "date", "description", "identifier", "subject"]

        init(_ bytes: [UInt8]) throws {
            guard let stream = XMLStream(bytes) else { throw DocumentReadError("the package document could not be read") }
            var field: String?
            var value = ""
            while let node = try stream.next() {
                switch node.type {
                case 1:
                    switch node.localName {
                    case "package": version = stream.attribute("version")
                    case "item":
                        if let id = stream.attribute("id"), let href = stream.attribute("href") {
                            manifest[id] = Item(href: href, mediaType: stream.attribute("media-type") ?? "",
                                                properties: (stream.attribute("properties") ?? "").split(separator: " ").map(String.init))
                        }
                    case "itemref":
                        if let idref = stream.attribute("idref"), stream.attribute("linear") != "no" { spine.append(idref) }
                    case "spine": tocID = stream.attribute("toc")
                    case let name where node.namespaceURI == "http://purl.org/dc/elements/1.1/" && Self.dublinCore.contains(name):
                        (field, value) = (name, "")
                    default: break
                    }
                case 3, 4, 14: if field != nil { value += node.value ?? "" }
                case 15:
                    if let name = field, node.localName == name {
                        let text = value.collapsingWhitespace
                        if !text.isEmpty { fields[name, default: []].append(text) }
                        field = nil
                    }
                default: break
                }
            }
        }
    }

    /// The entries of an EPUB 3 navigation document's `<nav epub:type="toc">`.
    static func navigation(_ bytes: [UInt8]) throws -> [(depth: Int, label: String)] {
        guard let stream = XMLStream(bytes) else { return [] }
        var entries: [(Int, String)] = []
        var navDepth: Int?, listDepth = 0
        var label: String?
        while let node = try stream.next() {
            switch node.type {
            case 1 where node.localName == "nav":
                if navDepth == nil, (stream.attribute("epub:type") ?? stream.attribute("role") ?? "").contains("toc") { navDepth = node.depth }
            case 1 where navDepth != nil && node.localName == "ol": listDepth += 1
            case 1 where navDepth != nil && (node.localName == "a" || node.localName == "span"): label = ""
            case 3, 4, 14: if label != nil { label! += node.value ?? "" }
            case 15 where navDepth != nil:
                switch node.localName {
                case "a", "span":
                    if let text = label?.collapsingWhitespace, !text.isEmpty { entries.append((max(listDepth - 1, 0), text)) }
                    label = nil
                case "ol": listDepth -= 1
                case "nav" where node.depth == navDepth: return entries
                default: break
                }
            default: break
            }
        }
        return entries
    }

    /// The `navPoint` labels of an EPUB 2 NCX, by depth.
    static func ncx(_ bytes: [UInt8]) throws -> [(depth: Int, label: String)] {
        guard let stream = XMLStream(bytes) else { return [] }
        var entries: [(Int, String)] = []
        var depth = 0
        var label: String?
        while let node = try stream.next() {
            switch node.type {
            case 1 where node.localName == "navPoint": depth += 1
            case 1 where node.localName == "text" && depth > 0: label = ""
            case 3, 4, 14: if label != nil { label! += node.value ?? "" }
            case 15 where node.localName == "text":
                if let text = label?.collapsingWhitespace, !text.isEmpty { entries.append((depth - 1, text)) }
                label = nil
            case 15 where node.localName == "navPoint": depth -= 1
            default: break
            }
        }
        return entries
    }

    /// The directory part of a member path, with its slash (`OEBPS/`), or "".
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    /// A manifest `href` (relative to the package, percent-encoded, maybe with a fragment)
    /// as a member path.
    static func resolve(_ href: String, against base: String) -> String {
        let bare = String(href.prefix { $0 != "#" })
        let decoded = bare.removingPercentEncoding ?? bare
        var parts: [Substring] = []
        for part in (base + decoded).split(separator: "/", omittingEmptySubsequences: true) {
            if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }

    /// The book's text: chapters in spine order, a blank line between them.
    public var text: String { chapters.filter { !$0.isEmpty }.joined(separator: "\n\n") }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: title, problems: problems)
        metadata.append("Authors", creators.isEmpty ? nil : .list(creators))
        metadata.append("Language", language.map { .text($0) })
        metadata.append("Publisher", publisher.map { .text($0) })
        metadata.append("Date", date.map { .text($0) })
        metadata.append("Subjects", subjects.isEmpty ? nil : .list(subjects))
        metadata.append("Identifier", identifier.map { .text($0) })
        metadata.append("Description", description.map { .text($0) })
        metadata.append("Chapters", .integer(chapters.count))
        metadata.append("Words", .integer(text.wordCount))
        metadata.append("EPUB version", version.map { .text($0) })
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let header = [title, creators.isEmpty ? nil : creators.joined(separator: ", ")].compactMap { $0 }
        return .text((header + [text]).filter { !$0.isEmpty }.joined(separator: "\n\n"))
    }

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
    public static var group: DocumentGroup {
        DocumentGroup(viewing: EPUBDocument.self) { configuration in
            let document = configuration.document
            if let title = document.title { Title(title) }
            Metadata(document.metadata.fields)
            Note.problems(document.problems)
            if !document.contents.isEmpty {
                Section("Contents") {
                    List(items: document.contents.prefix(100).map { [.text(String(repeating: "  ", count: min($0.depth, 6)) + $0.label)] })
                }
            }
            let head = document.text.head()
            if !head.text.isEmpty { Section("Text") { Text(head.text) } }
            if head.isCut { Note("Showing the beginning of \(document.chapters.count) chapters.") }
        }
        .isolated()
    }
}
