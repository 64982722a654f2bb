public import ContentTypes
public import DocumentModel
import Foundation

/// Images: dimensions and colour information read from the header (PNG, JPEG, GIF, WebP,
/// BMP) or the root element (SVG), never by decoding the picture.
public struct ImageDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.png, .jpeg, .gif, .webP, .bmp, .svg] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The format's name (`PNG`).
    public let format: String
    /// The width in pixels, from the header.
    public let width: Int?
    /// The height in pixels, from the header.
    public let height: Int?
    let header: ImageHeader?
    /// An SVG's `<title>`.
    public let title: String?
    /// An SVG's text (title, description, text elements).
    public let text: String
    /// A structural problem (a truncated file).
    public let problem: String?

    /// How much of a file the header parsers look at: enough for a JPEG's EXIF and
    /// colour-profile segments before its frame header.
    static let headerBytes = 256 << 10

    public init(configuration: ReadConfiguration) throws {
        let file = configuration.file
        if configuration.contentType.conforms(to: .svg) {
            self.init(svg: try SVGHeader(try configuration.contents(), isComplete: !file.isTruncated))
            return
        }
        let bytes: Data
        do { bytes = try file.prefix(Self.headerBytes) } catch { throw DocumentReadError("unreadable: \(error)") }
        try self.init(header: bytes, isWholeFile: Int64(bytes.count) == file.fileAttributes.size)
    }

    private init(svg: SVGHeader) {
        format = "SVG"
        (width, height, title, text, problem) = (svg.width, svg.height, svg.title, svg.text, svg.problem)
        header = nil
    }

    /// Reads the header in `bytes`, the head of a raster image (`headerBytes` at most).
    init(header bytes: Data, isWholeFile: Bool) throws {
        do {
            let parsed = try ImageHeader.parse([UInt8](bytes), isWholeFile: isWholeFile)
            header = parsed
            format = parsed.format
            width = parsed.width
            height = parsed.height
            problem = parsed.problem
        } catch {
            throw DocumentReadError(error.description)
        }
        title = nil
        text = ""
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: title)
        metadata.append("Format", .text(format))
        if let width, let height {
            metadata.append("Dimensions", .text("\(width) × \(height)"))
            metadata.append("Width", .integer(width))
            metadata.append("Height", .integer(height))
        }
        if let header {
            metadata.append("Colour", header.colourModel.map(MetadataValue.text))
            metadata.append("Bit depth", header.bitDepth.map(MetadataValue.integer))
            metadata.append("Alpha", header.hasAlpha.map(MetadataValue.boolean))
            metadata.append("Interlaced", header.isInterlaced.map(MetadataValue.boolean))
            metadata.append("Animated", header.isAnimated.map(MetadataValue.boolean))
            metadata.append("Colour profile", header.colourProfile.map(MetadataValue.text))
        }
        if let problem { metadata.problems.append(DocumentProblem(.error, kind: .truncatedImage, problem)) }
        return metadata
    }

    /// The text the index stores: a line describing the image, and an SVG's text.
    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        var line = "\(format) image"
        if let width, let height { line += " \(width)×\(height)" }
        return .text(([line] + (text.isEmpty ? [] : [text])).joined(separator: "\n"))
    }

    /// Images' viewing group: what the header says, and a reference to the picture.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: ImageDocument.self) { configuration in
            let document = configuration.document
            if let title = document.title { Title(title) }
            Note.problems(document.metadata.problems)
            Metadata(document.metadata.fields.filter { $0.key != "Width" && $0.key != "Height" })
            if let url = configuration.fileURL {
                Image(url.path, alternativeText: configuration.file.filename, width: document.width, height: document.height)
            }
            if !document.text.isEmpty { Text(document.text) }
        }
    }
}

/// What an SVG's root element and text say.
struct SVGHeader {
    var width: Int?, height: Int?
    var title: String?
    var text: String
    var problem: String?

    init(_ data: Data, isComplete: Bool) throws {
        guard let stream = XMLStream([UInt8](data)) else { throw DocumentReadError("libxml2 could not start reading") }
        var texts: [String] = []
        var inTitle = false
        var sawRoot = false
        do {
            while let node = try stream.next() {
                if node.type == 1 {
                    if !sawRoot {
                        guard node.localName == "svg" else { throw DocumentReadError("the root element is <\(node.localName)>, not <svg>") }
                        sawRoot = true
                        width = stream.attribute("width").flatMap(Self.pixels)
                        height = stream.attribute("height").flatMap(Self.pixels)
                        if width == nil || height == nil, let box = stream.attribute("viewBox") {
                            let parts = box.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
                            if parts.count == 4 { (width, height) = (Int(parts[2]), Int(parts[3])) }
                        }
                    }
                    inTitle = node.localName == "title" && title == nil
                } else if node.type == 15 {  // end element
                    inTitle = false
                } else if let value = node.value?.collapsingWhitespace, !value.isEmpty, texts.count < 10_000 {
                    if inTitle { title = value }
                    texts.append(value)
                }
            }
        } catch let error as DocumentReadError where sawRoot {
            if isComplete { problem = "Not well-formed: \(error.message)" }
        }
        guard sawRoot else { throw DocumentReadError("not an SVG image") }
        text = texts.joined(separator: "\n")
    }

    /// A length in pixels from an SVG length (`120`, `120px`, `12.5`); nil for relative units.
    static func pixels(_ value: String) -> Int? {
        let number = value.trimmingSpace.replacingOccurrences(of: "px", with: "")
        return Double(number).map { Int($0.rounded()) }
    }
}
