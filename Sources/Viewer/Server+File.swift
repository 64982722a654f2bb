import ContentTypes
import DocentKit
import FileAccess
import Foundation
import HTTPTypes
import Hummingbird
import Index
import NIOCore
import SystemPackage

/// The file itself: its bytes (`/raw/ID`), and the desktop's opener run on it or on its folder
/// (`POST /open/ID`, `POST /reveal/ID`). Always by the row's id, never a path from the request;
/// only this machine's files.
extension ViewerServer {
    /// Types a browser shows without running anything of the file's: served inline.
    static func showsInline(_ type: UTType) -> Bool {
        if Pages.isBrowserImage(type) { return !type.conforms(to: UTType("public.svg-image", registry: .shared) ?? .data) }
        for identifier in ["com.adobe.pdf", "public.audio", "public.movie"] {
            if let safe = UTType(identifier, registry: .shared), type.conforms(to: safe) { return true }
        }
        return false
    }

    /// Whether the file is text shown as plain text (`text/plain`, never as markup).
    static func showsAsText(_ type: UTType) -> Bool {
        type.conforms(to: .plainText) || (type.conforms(to: .text) && !runsInBrowser(type))
    }

    /// Markup and code a browser would run or render as a page of this origin: never inline.
    static func runsInBrowser(_ type: UTType) -> Bool {
        ["public.html", "public.xhtml", "public.xml", "public.svg-image", "com.netscape.javascript-source", "public.script"].contains {
            UTType($0, registry: .shared).map(type.conforms(to:)) ?? false
        }
    }

    /// The file's bytes as they are on disk now, streamed: inline for what a browser only shows
    /// (images, PDF, audio, video, text as plain text), as an attachment for the rest; never
    /// sniffed, and under a policy that runs nothing.
    func rawFile(_ file: IndexedFile, download: Bool) -> Response {
        let path = FilePath(bytes: file.path)
        guard let handle = try? ReadOnlyFile(path), handle.status.kind == .regular else { return Self.notFound() }
        let type = UTTypeRegistry.shared.type(identifier: file.contentType) ?? .data
        var headers = HTTPFields()
        let asText = Self.showsAsText(type)
        headers[.contentType] = asText ? "text/plain; charset=utf-8" : (type.preferredMIMEType ?? "application/octet-stream")
        let inline = !download && (asText || Self.showsInline(type))
        headers[.contentDisposition] = inline ? "inline" : Self.attachment(file.name)
        // A PDF is drawn by the browser's own viewer, which a sandbox would refuse.
        headers[.contentSecurityPolicy] = type.conforms(to: .pdf) && inline ? "default-src 'none'; object-src 'self'; plugin-types application/pdf"
            : Self.imagePolicy
        headers[.cacheControl] = "private, no-cache"
        let size = Int(handle.status.size)
        headers[.contentLength] = String(size)
        return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: size) { writer in
            var offset = 0
            while offset < size {
                let chunk = try handle.read(upTo: min(1 << 20, size - offset), at: offset)
                if chunk.isEmpty { break }  // cut short while being read: what was there is sent
                try await writer.write(ByteBuffer(bytes: chunk))
                offset += chunk.count
            }
            try await writer.finish(nil)
        })
    }

    /// Runs the opener (`opener:` in config.yaml, xdg-open by default) on the file, or on its
    /// folder: only for a request from the viewer's own page (the token's cookie, and
    /// `Sec-Fetch-Site: same-origin`, which no other site can send).
    func open(_ file: IndexedFile, folder: Bool, request: Request) -> Response {
        guard request.headers[.secFetchSite] == "same-origin" else {
            return AccessGuard.refusal(.forbidden, "Refused", "Files are opened only from the viewer's own page.")
        }
        guard file.host == nil else { return Self.notFound() }
        var path = FilePath(bytes: file.path)
        guard (try? FileStatus.lstat(path)) != nil else { return AccessGuard.refusal(.notFound, "Gone", "The file is no longer there.") }
        if folder { path = path.removingLastComponent() }
        do { try Detached.start(opener + [path.string]) } catch {
            return AccessGuard.refusal(.internalServerError, "Cannot open", "\(opener.first ?? "the opener") could not be started: \(error)")
        }
        return Response(status: .noContent)
    }
}
