public import ContentTypes
public import DocumentModel
import Foundation

/// Photographs — JPEG and TIFF: what `ImageDocument` reads from the header (JPEG), and the
/// EXIF data read with libexif (camera, lens, date taken, orientation, exposure, GPS).
///
/// Runs isolated (in the helper process): libexif is C over untrusted data. PNG, GIF, WebP,
/// BMP and SVG stay with `ImageDocument`, in-process.
public struct PhotoDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.jpeg, .tiff] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The header, for a JPEG.
    public let image: ImageDocument?
    /// The format (`JPEG`, `TIFF`, a raw camera format).
    public let format: String
    package let exif: EXIFTags?
    /// How much of a TIFF is given to libexif (its directories may sit after the pixels).
    static let tiffBytes = 64 << 20

    public init(configuration: ReadConfiguration) throws {
        let isTIFF = configuration.contentType.conforms(to: .tiff)
        if isTIFF {
            image = nil
            format = "TIFF"
            let bytes = try configuration.file.prefix(Self.tiffBytes)
            guard bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) else {
                throw DocumentReadError("not a TIFF image (no II*/MM* header)")
            }
            exif = EXIFTags(bytes, isTIFF: true)
        } else {
            // One read serves both: the frame header and the EXIF segment are in the head.
            let head = try configuration.file.prefix(ImageDocument.headerBytes)
            let image = try ImageDocument(header: head, isWholeFile: Int64(head.count) == configuration.file.fileAttributes.size)
            self.image = image
            format = image.format
            exif = EXIFTags(head, isTIFF: false)
        }
    }

    /// The width in pixels.
    public var width: Int? { image?.width ?? exif?.width }
    /// The height in pixels.
    public var height: Int? { image?.height ?? exif?.height }

    public var metadata: DocumentMetadata {
        var metadata = image?.metadata ?? {
            var metadata = DocumentMetadata()
            metadata.append("Format", .text(format))
            if let width, let height { metadata.append("Dimensions", .text("\(width) × \(height)")) }
            return metadata
        }()
        metadata.title = exif?.description
        for (key, value) in exif?.fields ?? [] { metadata.append(key, value.map { .text($0) }) }
        if let exif, let latitude = exif.latitude, let longitude = exif.longitude {
            metadata.append("Latitude", .text(String(format: "%.6f", latitude)))
            metadata.append("Longitude", .text(String(format: "%.6f", longitude)))
        }
        return metadata
    }

    /// The text the index stores: a line describing the image, then the EXIF words.
    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        var line = "\(format) image"
        if let width, let height { line += " \(width)×\(height)" }
        return .text(([line] + [exif?.text].compactMap { $0 }).joined(separator: "\n"))
    }

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
    public static var group: DocumentGroup {
        DocumentGroup(viewing: PhotoDocument.self) { configuration in
            let document = configuration.document
            let metadata = document.metadata
            if let title = metadata.title { Title(title) }
            Note.problems(metadata.problems)
            Metadata(metadata.fields.filter { !["Width", "Height", "Latitude", "Longitude"].contains($0.key) })
            if let url = configuration.fileURL {
                Image(url.path, alternativeText: configuration.file.filename, width: document.width, height: document.height)
            }
        }
        .isolated()
    }
}
