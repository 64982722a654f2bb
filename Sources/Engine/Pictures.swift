import CPicture
import CTagLib
import Classifier
package import ContentTypes
import FileAccess
import Foundation
package import SystemPackage

/// Pictures of documents, made in the helper process (the image decoders, poppler and
/// TagLib read untrusted bytes): an image scaled down, a PDF's page (the first, or any the
/// reader shows beside its text), the cover art an audio or video file carries. Each is a
/// PNG with the freedesktop thumbnail keys
/// (`Thumb::URI`, `Thumb::MTime`, `Thumb::Size`, `Thumb::Mimetype`), so it can be kept in
/// the thumbnail cache file managers share (`ThumbnailCache`).
package enum Pictures {
    /// The largest file a picture is made of (an image, a PDF, a song): past this the
    /// helper says no rather than read it.
    package static let largestFile = 256 << 20

    /// Whether a picture can be made of a file of `type`.
    package static func canPicture(_ type: UTType) -> Bool {
        type.conforms(to: .image) || type.conforms(to: .pdf) || type.conforms(to: .audiovisualContent)
    }

    /// The helper's side: the reply and the PNG (empty when there is none).
    static func make(_ path: FilePath, size: Int, page: Int = 0, loader: DocumentLoader) -> (ExtractionReply, Data) {
        var reply = ExtractionReply()
        guard let prepared = try? loader.prepare(path), let status = prepared.classification.status else {
            reply.gone = true
            return (reply, Data())
        }
        let type = prepared.classification.contentType
        do {
            guard status.kind == .regular else { throw PictureError("not a regular file") }
            guard status.size <= Int64(largestFile) else { throw PictureError("larger than \(largestFile >> 20) MiB") }
            let file = try ReadOnlyFile(path, expected: status)
            let source: docent_picture_source
            var bytes: [UInt8]
            if type.conforms(to: .pdf) {
                source = DOCENT_PICTURE_PDF
                bytes = try file.read(upTo: largestFile)
            } else if type.conforms(to: .image) {
                source = DOCENT_PICTURE_IMAGE
                bytes = try file.read(upTo: largestFile)
            } else if type.conforms(to: .audiovisualContent) {
                source = DOCENT_PICTURE_IMAGE
                bytes = try cover(of: file, name: path.lastComponent?.string ?? "")
            } else {
                throw PictureError("no picture is made of \(type.identifier)")
            }
            guard page == 0 || source == DOCENT_PICTURE_PDF else { throw PictureError("only a PDF has pages") }
            let png = try png(of: bytes, source: source, page: page, size: size, path: path, status: status,
                              mimeType: prepared.classification.mimeType ?? type.preferredMIMEType)
            reply.hasPicture = true
            return (reply, png)
        } catch let error as PictureError {
            reply.error = error.message
        } catch {
            reply.error = "\(error)"
        }
        return (reply, Data())
    }

    /// The cover art TagLib finds in `file`.
    private static func cover(of file: ReadOnlyFile, name: String) throws -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        guard docent_media_cover(file.descriptor, file.status.size, name, &bytes, &length) == 0, let bytes else {
            throw PictureError("it carries no cover art")
        }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    private static func png(of bytes: [UInt8], source: docent_picture_source, page: Int, size: Int, path: FilePath,
                            status: FileStatus, mimeType: String?) throws -> Data {
        let uri = fileURI(path)
        var png: UnsafeMutablePointer<UInt8>?
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        let result = uri.withCString { uri in
            (mimeType ?? "").withCString { mime in
                var keys = docent_picture_keys(uri: uri, mtime: status.modified / 1_000_000_000, size: status.size,
                                               mime_type: mimeType == nil ? nil : mime)
                return docent_picture_png(bytes, bytes.count, source, Int32(clamping: page), Int32(min(size, 4096)), &keys, &png, &length, &error)
            }
        }
        defer {
            docent_picture_free(png)
            docent_picture_free(error)
        }
        guard result == 0, let png else { throw PictureError(error.map { String(cString: $0) } ?? "no picture") }
        return Data(bytes: png, count: length)
    }

    /// The `file:` URI of an absolute path, escaped as GLib (and so file managers) escape it.
    package static func fileURI(_ path: FilePath) -> String {
        guard let uri = path.withPlatformString({ docent_file_uri($0) }) else { return "file://" + path.string }
        defer { docent_picture_free(uri) }
        return String(cString: uri)
    }

    /// The MD5 of `text`'s UTF-8 as lowercase hex: a thumbnail's name.
    static func md5(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard let hex = docent_md5_hex(bytes, bytes.count) else { return "" }
        defer { docent_picture_free(hex) }
        return String(cString: hex)
    }
}

struct PictureError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
