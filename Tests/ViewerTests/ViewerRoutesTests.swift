import DocentKit
import Engine
import FileAccess
import Foundation
import HTTPTypes
import Hummingbird
import Index
import Testing
import TestSupport
@testable import Viewer

/// The viewer's guard and routes in process, through its router's responder (no socket,
/// no child process): the token, its cookie, the Host and Sec-Fetch-Site checks, and paths
/// from the URL that are never files. The process and browser tests (`ServeTests`) keep what
/// only a real server or Chromium shows: the loopback socket, live streams, pictures.
@Suite("The viewer's routes")
struct ViewerRoutesTests {
    let dir: TemporaryDirectory
    let index: FileIndex
    let token = String(repeating: "ab", count: 32)

    init() throws {
        dir = try TemporaryDirectory()
        index = try FileIndex(path: dir.path + "/index.sqlite", privateDirectory: true)
        let row = IndexedFile(path: Array((dir.path + "/plan.txt").utf8), device: 1, inode: 2, size: 20, modified: 0, changed: 0,
                              contentType: "public.plain-text", text: "the quarterly plan")
        try index.upsert([row])
    }

    /// The server's router over the index, on loopback with the guard's port `port` (the
    /// test requests name `localhost` without a port: port 80).
    func application(port: Int = 80) -> Router<BasicRequestContext> {
        let documents = ViewerDocuments(budget: Settings.defaults().budget, previews: nil,
                                        thumbnails: ThumbnailCache(directory: dir.path + "/thumbnails"))
        let server = ViewerServer(index: index, documents: documents, commits: IndexChanges([any IndexCommits]()), statusChanges: IndexChanges([any IndexCommits]()),
                                  token: token, bind: "127.0.0.1", port: port, watching: false)
        return server.router(boundPort: Locked(port))
    }

    var cookie: HTTPFields { [.cookie: "docent-80=\(token)"] }

    @Test("No token, a wrong one, a wrong cookie: refused; the right token: a cookie, and the token leaves the address")
    func token() async throws {
        let (token, cookie) = (self.token, self.cookie)
        try await application().test { client in
            #expect(try await client.execute(uri: "/", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/?token=" + String(repeating: "0", count: 64), method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/?token=short", method: .get).status == .unauthorized)
            let wrongCookie: HTTPFields = [.cookie: "docent-80=" + String(repeating: "1", count: 64)]
            #expect(try await client.execute(uri: "/", method: .get, headers: wrongCookie).status == .unauthorized)
            // A cookie of another port's server is not this one's.
            #expect(try await client.execute(uri: "/", method: .get, headers: [.cookie: "docent-8080=\(token)"]).status == .unauthorized)
            let first = try await client.execute(uri: "/?q=plan&token=\(token)", method: .get)
            #expect(first.status == .seeOther && first.headers[.location] == "/?q=plan")
            let setCookie = try #require(first.headers[.setCookie])
            #expect(setCookie.contains("docent-80=\(token)") && setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            let page = try await client.execute(uri: "/?q=plan", method: .get, headers: cookie)
            #expect(page.status == .ok && String(buffer: page.body).contains("plan.txt"))
            // Every answer, refusals too, carries the strict headers.
            for response in [first, page] {
                #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
                #expect(response.headers[.xFrameOptions] == "DENY" && response.headers[.xContentTypeOptions] == "nosniff")
            }
        }
    }

    @Test("Only its own Host, with its port (DNS rebinding), and no cross-site request")
    func host() async throws {
        let (token, cookie) = (self.token, self.cookie)
        // The router's requests name `localhost`: a server on another port does not answer to
        // it, even with the token.
        try await application(port: 8080).test { client in
            let response = try await client.execute(uri: "/", method: .get, headers: [.cookie: "docent-8080=\(token)"])
            #expect(response.status == .misdirectedRequest)
            #expect(try await client.execute(uri: "/?token=\(token)", method: .get).status == .misdirectedRequest)
        }
        try await application().test { client in
            var crossSite = cookie
            crossSite[.secFetchSite] = "cross-site"
            let response = try await client.execute(uri: "/", method: .get, headers: crossSite)
            #expect(response.status == .forbidden)
        }
        // The names a Host may carry: loopback names for a loopback address, else the address alone.
        let guardOn = AccessGuard(token: token, port: Locked(8123), names: ViewerServer.names(for: "127.0.0.1"))
        #expect(guardOn.accepts(host: "127.0.0.1:8123", port: 8123) && guardOn.accepts(host: "LOCALHOST:8123", port: 8123))
        #expect(guardOn.accepts(host: "[::1]:8123", port: 8123))
        #expect(!guardOn.accepts(host: "evil.example:8123", port: 8123) && !guardOn.accepts(host: "127.0.0.1:1", port: 8123))
        #expect(!guardOn.accepts(host: "127.0.0.1", port: 8123) && !guardOn.accepts(host: "localhost.evil.example:8123", port: 8123))
        // Bound to an address of its own: that address too, never a DNS name.
        #expect(ViewerServer.names(for: "192.0.2.7") == ["127.0.0.1", "localhost", "[::1]", "192.0.2.7"])
        #expect(ViewerServer.names(for: "FE80::1").contains("[fe80::1]"))
    }

    @Test("Paths from the URL are never files: traversal, encoded or not, and unknown ids find nothing")
    func paths() async throws {
        let (cookie, root) = (self.cookie, dir.path)
        try await application().test { client in
            for target in ["/raw/../../../../etc/passwd", "/raw/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/doc/..%2F..%2Fetc%2Fpasswd",
                           "/static/../../../etc/passwd", "/export/1/../../../etc/passwd?as=txt", "/etc/passwd",
                           "/raw/\(root)/plan.txt", "/doc/99999", "/doc/-1", "/api/preview/abc", "/thumb/99999"] {
                let response = try await client.execute(uri: target, method: .get, headers: cookie)
                #expect(response.status == .notFound || response.status == .badRequest, "\(target): \(response.status)")
                #expect(!String(buffer: response.body).contains("root:x:0:0"), "\(target)")
            }
        }
    }
}
