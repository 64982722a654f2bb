import ContentTypes
import DocentCLI
import DocentKit
import Engine
import FileAccess
import Foundation
import HTTPTypes
import Hummingbird
import Index
import Logging
import NIOCore
import SystemPackage
import Watcher

/// The viewer's HTTP server: routes over one index, behind `AccessGuard`. Files are named
/// in requests by their index id only, never by a path; nothing is written but the shared
/// thumbnail cache and the preview cache.
struct ViewerServer: Sendable {
    let index: any IndexStore
    let documents: ViewerDocuments
    /// Each commit to the index; each commit or watcher status change.
    let commits: IndexChanges
    let statusChanges: IndexChanges
    let token: String
    let bind: String
    let port: Int
    /// Whether a watcher keeps the index current (this process's or another's).
    let watching: Bool
    /// The most hits a search shows.
    static let limit = 20
    /// The reader's last texts and marks.
    let readerCache = ReaderCache()
    /// What opens a file on the desktop (`opener:`), the file's path appended.
    var opener: [String] = ["xdg-open"]

    /// Runs until SIGINT or SIGTERM; `started` gets the bound port once the server listens.
    func run(logger: Logger, started: @escaping @Sendable (Int) -> Void) async throws {
        // The guard needs the port, which is known only once bound when asked for port 0:
        // it reads it from a box filled in before the first request can arrive.
        let boundPort = Locked(port)
        let router = router(boundPort: boundPort)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(bind, port: port), serverName: nil, reuseAddress: true),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                boundPort.withLock { $0 = port }
                started(port)
            },
            logger: logger)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        commits.stop()
        statusChanges.stop()
    }

    /// Every route, behind the guard (tests answer requests with it in process, no socket).
    func router(boundPort: Locked<Int>) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: AccessGuard(token: token, port: boundPort, names: Self.names(for: bind)))
        routes(router)
        return router
    }

    /// The names a `Host` header may carry: the loopback names for a loopback address, else
    /// the address given; IP literals only besides `localhost` (a rebinding attack needs a
    /// DNS name of its own).
    static func names(for bind: String) -> Set<String> {
        let loopback: Set<String> = ["127.0.0.1", "localhost", "[::1]"]
        if bind == "127.0.0.1" || bind == "::1" || bind == "localhost" { return loopback }
        if bind == "0.0.0.0" || bind == "::" {
            var names = loopback
            for address in Self.interfaceAddresses() { names.insert(address.contains(":") ? "[\(address)]" : address) }
            return names
        }
        return loopback.union([bind.contains(":") ? "[\(bind.lowercased())]" : bind.lowercased()])
    }

    static func interfaceAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var out: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            if getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                out.append(text.split(separator: "%").first.map(String.init) ?? "")
            }
        }
        return out
    }

    // MARK: Routes

    private func routes(_ router: Router<BasicRequestContext>) {
        router.get("/") { request, _ in
            let (query, group, root) = Self.parameters(request)
            let (order, offset) = Self.paging(request)
            let outcome = try await offPool { try search(query: query, group: group, root: root, order: order, offset: offset) }
            let (groups, roots) = try await offPool { try filters() }
            return Self.html(Pages.search(query: query, group: group, root: root, order: order, groups: groups, roots: roots,
                                          outcome: outcome, watching: watching))
        }
        router.get("/api/search") { request, _ in
            let (query, group, root) = Self.parameters(request)
            let (order, offset) = Self.paging(request)
            let started = ContinuousClock.now
            let outcome = try await offPool { try search(query: query, group: group, root: root, order: order, offset: offset) }
            let searched = ContinuousClock.now
            var response = Self.html(Pages.results(outcome, picturesLater: true))
            // The server's share of a keystroke's time, for the browser's developer tools and the benchmark.
            let now = ContinuousClock.now
            response.headers[Self.serverTiming] = "search;dur=\(Self.milliseconds(now - started)), "
                + "index;dur=\(Self.milliseconds(searched - started)), html;dur=\(Self.milliseconds(now - searched))"
            return response
        }
        router.get("/events/search") { request, _ in
            let (query, group, root) = Self.parameters(request)
            return Response.eventStream(searchEvents(query: query, group: group, root: root), for: request)
        }
        router.get("/doc/:id") { request, context in
            guard let (id, file) = try await row(context) else { return Self.notFound() }
            let query = Self.form(request.uri.query)["q"] ?? ""
            let (view, reader) = try await offPool { documentAndReader(file, id: id, query: query) }
            return Self.html(Pages.previewPage(view, reader: reader, query: query))
        }
        router.get("/api/preview/:id") { request, context in
            guard let (id, file) = try await row(context) else { return Self.notFound() }
            let query = Self.form(request.uri.query)["q"] ?? ""
            let (view, reader) = try await offPool { documentAndReader(file, id: id, query: query) }
            return Self.html(Pages.preview(view, reader: reader))
        }
        // The reader again from line `from` (a match not loaded yet; the file changed).
        router.get("/api/reader/:id") { request, context in
            guard let (id, file) = try await row(context) else { return Self.notFound() }
            let form = Self.form(request.uri.query)
            let reader = try await offPool { readerSection(file, id: id, query: form["q"] ?? "", from: form["from"].flatMap(Int.init)) }
            return Self.html(reader ?? "")
        }
        // A stretch of lines, as the reader scrolls.
        router.get("/api/lines/:id") { request, context in
            guard let (id, file) = try await row(context) else { return Self.notFound() }
            let form = Self.form(request.uri.query)
            guard let from = form["from"].flatMap(Int.init), from >= 1 else {
                return AccessGuard.refusal(.badRequest, "Which lines", "Say from which line: ?from=1")
            }
            let count = min(max(form["count"].flatMap(Int.init) ?? Self.readerLines, 1), Self.readerLines)
            let html = try await offPool { () -> String in
                guard let (text, _) = readerText(file, id: id) else { return "" }
                let marks = Self.marks(in: text, from: from, count: count, of: highlighted(form["q"] ?? ""))
                return Self.lines(text, marks: marks, from: from, count: count)
            }
            return Self.html(html)
        }
        // The lines of every match of the query in the text, for "3 of 17" (JSON: {"lines": […]}).
        router.get("/api/marks/:id") { request, context in
            guard let (id, file) = try await row(context) else { return Self.notFound() }
            let query = Self.form(request.uri.query)["q"] ?? ""
            let lines = try await offPool { reader(file, id: id, query: query)?.1.lines ?? [] }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "{\"lines\":[" + lines.map(String.init).joined(separator: ",") + "]}")))
        }
        router.get("/events/preview/:id") { request, context in
            guard let (id, file) = try await row(context) else { return Self.notFound() }
            return Response.eventStream(file.host == nil ? previewEvents(id: id, file: file) : remotePreviewEvents(id: id, file: file),
                                        for: request)
        }
        // What reads the file itself serves only this machine's files: another host's path
        // here is another file, or none.
        router.get("/raw/:id") { request, context in
            guard let (_, file) = try await row(context), file.host == nil else { return Self.notFound() }
            let download = Self.form(request.uri.query)["download"] != nil
            return try await offPool { rawFile(file, download: download) }
        }
        router.post("/open/:id") { request, context in
            guard let (_, file) = try await row(context) else { return Self.notFound() }
            return open(file, folder: false, request: request)
        }
        router.post("/reveal/:id") { request, context in
            guard let (_, file) = try await row(context) else { return Self.notFound() }
            return open(file, folder: true, request: request)
        }
        router.get("/thumb/:id") { request, context in
            guard let (_, file) = try await row(context), file.host == nil else { return Self.notFound() }
            let size = Self.form(request.uri.query)["size"].flatMap(ThumbnailCache.Size.init(rawValue:)) ?? .large
            return try await offPool { Self.png(documents.picture(file, size: size)) }
        }
        // The file's picture; `?page=N`, a PDF's page N as the reader shows it beside the page's text.
        router.get("/picture/:id") { request, context in
            guard let (_, file) = try await row(context), file.host == nil else { return Self.notFound() }
            let page = Self.form(request.uri.query)["page"].flatMap(Int.init).map { max($0, 1) - 1 }
            return try await offPool { Self.png(page.map { documents.pagePicture(file, page: $0) } ?? documents.picture(file, size: .xLarge)) }
        }
        router.get("/export/:id") { request, context in
            guard let (_, file) = try await row(context), file.host == nil else { return Self.notFound() }
            guard let name = Self.form(request.uri.query)["as"], let type = RenditionTypes.resolve(name, in: .shared) else {
                return AccessGuard.refusal(.badRequest, "Unknown type", "Say which rendition: ?as=public.plain-text")
            }
            switch await documents.export(file, as: type) {
            case .success(let data):
                var headers = HTTPFields()
                headers[.contentType] = (type.preferredMIMEType ?? "application/octet-stream") + (type.conforms(to: .text) ? "; charset=utf-8" : "")
                headers[.contentDisposition] = Self.attachment(Self.downloadName(file.name, as: type))
                // A rendition may be HTML: downloaded, never run as a page of this origin.
                headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
            case .failure(.notFound(let message)):
                return AccessGuard.refusal(.notFound, "No such rendition", message)
            }
        }
        router.get("/status") { _, _ in
            Self.html(Pages.statusPage(try await offPool { try statusFragment() }))
        }
        router.get("/api/status") { _, _ in
            Self.html(try await offPool { try statusFragment() })
        }
        router.get("/events/status") { request, _ in
            Response.eventStream(statusEvents(), for: request)
        }
        router.get("/static/app.js") { _, _ in Self.asset(PackageResources.app_js, type: "text/javascript; charset=utf-8") }
        router.get("/static/app.css") { _, _ in Self.asset(PackageResources.app_css, type: "text/css; charset=utf-8") }
        router.get("/static/icon.svg") { _, _ in Self.asset(PackageResources.icon_svg, type: "image/svg+xml") }
        // Debian's highlight.js (libjs-highlight.js), from its fixed place, for the reader's colours.
        router.get("/static/highlight.js") { _, _ in
            guard let script = Self.highlighter else { return AccessGuard.refusal(.notFound, "Not installed", "libjs-highlight.js is not installed.") }
            var response = Self.asset(script, type: "text/javascript; charset=utf-8")
            response.headers[.cacheControl] = "private, max-age=86400"
            return response
        }
    }

    // MARK: Documents

    /// The row a route's `:id` names; nil when there is none.
    private func row(_ context: BasicRequestContext) async throws -> (Int64, IndexedFile)? {
        guard let id = context.parameters.get("id", as: Int64.self) else { return nil }
        return try await offPool { try index.file(id: id).map { (id, $0) } }
    }

    /// The document's view and its reader, from one opening of the file (the preview and the
    /// reader's text read together).
    func documentAndReader(_ file: IndexedFile, id: Int64, query: String) -> (DocumentView, String?) {
        let view = file.host == nil ? documents.view(file, id: id, text: true, fromRow: Self.isPaged(file)) : documentView(file, id: id)
        let read = view.text.flatMap { text in view.status.map { (text, $0.signature) } }
        return (view, readerSection(file, id: id, query: query, from: nil, read: read))
    }

    /// The row's view: this machine's file opened (`ViewerDocuments.view`), another host's
    /// made from what that host stored in the index (`RemoteFile`).
    func documentView(_ file: IndexedFile, id: Int64, text: Bool = false) -> DocumentView {
        guard let host = file.host else { return documents.view(file, id: id, text: text) }
        let text = (try? index.storedText(id: id, limit: documents.budget.textBytes)) ?? nil
        let (preview, fields) = RemoteFile.preview(of: file, host: host, text: text ?? "")
        let extraction = Extraction(contentType: file.contentType, documentType: file.documentType ?? "",
                                    selection: "stored in the index by \(host)", title: file.title, metadata: fields, preview: preview)
        return DocumentView(id: id, file: file, status: nil, extraction: extraction, problem: nil, explanation: nil, renditions: [],
                            contentType: UTTypeRegistry.shared.type(identifier: file.contentType))
    }

    /// Another host's file: its preview now, then again each time the index commits and what
    /// its host stored has changed.
    func remotePreviewEvents(id: Int64, file: IndexedFile) -> AsyncStream<ServerSentEvent> {
        Self.rendered("preview", on: commits.subscribe(), sendingFirst: true) {
            try index.file(id: id).map { Pages.preview(documentView($0, id: id)) }
        }
    }

    /// An event named `name` with what `render` makes (nothing when it makes nil): the first
    /// at once when `sendingFirst`, then after each of `updates` that changed it, waiting
    /// `pause` after each. Made off the cooperative pool; ends with the stream.
    static func rendered(_ name: String, on updates: AsyncStream<Void>, sendingFirst: Bool, pause: Duration? = nil,
                         _ render: @escaping @Sendable () throws -> String?) -> AsyncStream<ServerSentEvent> {
        let (events, continuation) = AsyncStream<ServerSentEvent>.makeStream()
        let task = Task {
            var shown = (try? await offPool(render)) ?? nil
            if sendingFirst, let shown { continuation.yield(ServerSentEvent(name: name, data: shown)) }
            for await _ in updates {
                guard let now = (try? await offPool(render)) ?? nil, now != shown else { continue }
                shown = now
                continuation.yield(ServerSentEvent(name: name, data: now))
                if let pause { try? await Task.sleep(for: pause) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return events
    }

    /// The preview now, then again each time the file changes on disk: the file is followed
    /// with inotify, by this connection, while it is open.
    func previewEvents(id: Int64, file: IndexedFile) -> AsyncStream<ServerSentEvent> {
        let (events, continuation) = AsyncStream<ServerSentEvent>.makeStream()
        guard let follower = try? FileFollower(files: [FilePath(bytes: file.path)], settle: .milliseconds(5)) else {
            continuation.finish()
            return events
        }
        let documents = self.documents
        OwnThreads.start("docent-serve-preview") {
            // First the preview as it is now: the page fetched its copy before this stream
            // was followed, and a change in between would otherwise never reach it.
            var shown = Pages.preview(documents.view(file, id: id))
            continuation.yield(ServerSentEvent(name: "preview", data: shown))
            while follower.wait() {
                let now = Pages.preview(documents.view(file, id: id))
                guard now != shown else { continue }
                shown = now
                continuation.yield(ServerSentEvent(name: "preview", data: now))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in follower.stop() }
        return events
    }

    /// An image file's own bytes, for the types a browser shows; under a policy of its own
    /// (an SVG's scripts never run, even opened directly).
    // MARK: Status

    func statusFragment() throws -> String {
        let statistics = try index.statistics()
        let watch = WatchStatus.running(at: index.watchStatusPath)
        return Pages.status(statistics, watch: watch, path: index.path)
    }

    /// The status again when it changes, at most once a second.
    func statusEvents() -> AsyncStream<ServerSentEvent> {
        Self.rendered("status", on: statusChanges.subscribe(), sendingFirst: false, pause: .seconds(1)) { try statusFragment() }
    }

    // MARK: Responses

    static let serverTiming = HTTPField.Name("Server-Timing")!

    /// `duration` in milliseconds with a tenth's precision, as Server-Timing writes it.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    static func html(_ page: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// The policy of every image answer: nothing runs, not even an SVG's script opened as a
    /// page; the browser's own image page may style itself.
    static let imagePolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    static func png(_ data: Data?) -> Response {
        guard let data else { return notFound() }
        var headers = HTTPFields()
        headers[.contentType] = "image/png"
        headers[.contentSecurityPolicy] = imagePolicy
        headers[.cacheControl] = "private, max-age=3600"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Debian's highlight.js, read once; nil when the package is not installed.
    static let highlighter: [UInt8]? = WholeFile.read("/usr/share/javascript/highlight.js/highlight.min.js").map { [UInt8]($0) }

    static func asset(_ bytes: [UInt8], type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func notFound() -> Response {
        AccessGuard.refusal(.notFound, "Not found", "No indexed file has that id.")
    }

    /// `name` with the rendition's extension in place of its own ("notes.md" as HTML: "notes.html").
    static func downloadName(_ name: String, as type: UTType) -> String {
        guard let ext = type.preferredFilenameExtension else { return name }
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let own = dot.map { String(name[name.index(after: $0)...]).lowercased() }
        return own.map { type.tags[.filenameExtension]?.contains($0) == true } == true ? name : stem + "." + ext
    }

    /// A Content-Disposition for downloading as `name` (RFC 6266: an ASCII fallback and the UTF-8 name).
    static func attachment(_ name: String) -> String {
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ascii
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}
