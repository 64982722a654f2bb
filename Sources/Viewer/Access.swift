import FileAccess
import Foundation
import HTTPTypes
import Hummingbird

/// Who may use the viewer, checked before every route: a `Host` that names this server
/// (a DNS-rebinding page names its own domain), no cross-site request (the browser's
/// `Sec-Fetch-Site`), and the access token — in the address once, then as a cookie that is
/// `HttpOnly` and `SameSite=Strict`. Every answer carries the security headers.
struct AccessGuard: RouterMiddleware {
    typealias Context = BasicRequestContext
    let token: String
    /// The bound port, known only once listening when port 0 was asked for: filled in before
    /// the first request can arrive.
    let port: Locked<Int>
    /// Host names (without the port) requests may carry.
    let names: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let port = port.withLock { $0 }
        var response = try await decide(request, port: port, context: context, next: next)
        Self.secure(&response.headers)
        return response
    }

    private func decide(_ request: Request, port: Int, context: Context,
                        next: (Request, Context) async throws -> Response) async throws -> Response {
        // The cookie's name carries the port: cookies are per host, not per port.
        let cookieName = "docent-\(port)"
        guard let host = request.head.authority, accepts(host: host, port: port) else {
            return Self.refusal(.misdirectedRequest, "Wrong address",
                                "This server answers only to the address `docent serve` printed (Host: 127.0.0.1 or localhost with its port).")
        }
        if request.headers[.secFetchSite] == "cross-site" {
            return Self.refusal(.forbidden, "Refused", "Another site asked for this page.")
        }
        if let given = request.uri.queryParameters.get("token") {
            guard Self.same(given, token) else {
                return Self.refusal(.unauthorized, "Wrong token", "The token in this address is not the one `docent serve` printed.")
            }
            // The token leaves the address bar (and the history): a cookie carries it from now on.
            var headers = HTTPFields()
            headers[.location] = Self.withoutToken(path: request.uri.path, query: request.uri.query)
            headers[.setCookie] = "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
            return Response(status: .seeOther, headers: headers)
        }
        guard let cookie = request.cookies[cookieName]?.value, Self.same(cookie, token) else {
            return Self.refusal(.unauthorized, "Token needed",
                                "Open the address `docent serve` printed (it ends in ?token=…); `docent serve --open` opens it for you.")
        }
        return try await next(request, context)
    }

    /// Whether `host` (the `Host` header) is one of this server's names with its port.
    func accepts(host: String, port: Int) -> Bool {
        let lowered = host.lowercased()
        let name: Substring, portPart: Substring?
        if lowered.hasPrefix("["), let close = lowered.firstIndex(of: "]") {
            name = lowered[...close]
            let rest = lowered[lowered.index(after: close)...]
            portPart = rest.hasPrefix(":") ? rest.dropFirst() : (rest.isEmpty ? nil : rest)
        } else if let colon = lowered.lastIndex(of: ":") {
            name = lowered[..<colon]
            portPart = lowered[lowered.index(after: colon)...]
        } else {
            name = lowered[...]
            portPart = nil
        }
        guard names.contains(String(name)) else { return false }
        return portPart.map { Int($0) == port } ?? (port == 80)
    }

    /// Compares in time that does not depend on where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// The request's path and query with the `token` parameter removed.
    static func withoutToken(path: String, query: String?) -> String {
        let kept = (query ?? "").split(separator: "&").filter { !$0.hasPrefix("token=") && $0 != "token" }
        let path = path.hasPrefix("/") ? path : "/"
        return kept.isEmpty ? path : path + "?" + kept.joined(separator: "&")
    }

    /// The headers every answer carries: a Content-Security-Policy with no inline script or
    /// style and no other origin (a route may have set a stricter one), no sniffing, no
    /// framing, no referrer, nothing cached that holds a file's text.
    static func secure(_ headers: inout HTTPFields) {
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = pagePolicy }
        headers[.xContentTypeOptions] = "nosniff"
        headers[.xFrameOptions] = "DENY"
        headers[.referrerPolicy] = "no-referrer"
        headers[.crossOriginResourcePolicy] = "same-origin"
        headers[.crossOriginOpenerPolicy] = "same-origin"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }

    static let pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func refusal(_ status: HTTPResponse.Status, _ title: String, _ message: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: Pages.refusal(title, message))))
    }
}

extension HTTPField.Name {
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let crossOriginResourcePolicy = HTTPField.Name("Cross-Origin-Resource-Policy")!
    static let crossOriginOpenerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")!
}
