import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

/// Requests answered by a router in process, as HummingbirdTesting's `.router` mode answers
/// them — a request made in memory, a context over a testing channel, the body collected —
/// without the HTTP client that product links (AsyncHTTPClient, NIOSSL and BoringSSL: minutes
/// of every clean build, in the debug and the sanitizer builds alike, for tests that need no
/// socket). The process and browser tests keep the real socket.
struct RouterClient<Responder: HTTPResponder> where Responder.Context == BasicRequestContext {
    let responder: Responder
    let logger = Logger(label: "docent.viewer.test")

    /// A response as the tests read it.
    struct Response {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer
    }

    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:]) async throws -> Response {
        let request = Request(head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
                              body: RequestBody(buffer: ByteBuffer()))
        let context = BasicRequestContext(source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: logger))
        let response: Hummingbird.Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            response = Hummingbird.Response(status: .internalServerError)  // as a server answers what the router did not
        }
        let collected = Collected()
        try await response.body.write(collected)
        return Response(status: response.status, headers: response.headers, body: collected.body.withLock { $0 })
    }

    /// Gathers a response body.
    final class Collected: ResponseBodyWriter, Sendable {
        let body = Mutex(ByteBuffer())
        func write(_ buffer: ByteBuffer) async throws { _ = body.withLock { $0.writeImmutableBuffer(buffer) } }
        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}

extension Router where Context == BasicRequestContext {
    /// Calls `body` with a client of this router.
    func test(_ body: (RouterClient<RouterResponder<Context>>) async throws -> Void) async throws {
        try await body(RouterClient(responder: buildResponder()))
    }
}
