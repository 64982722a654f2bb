import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A few lines of HTTP/1.1 over a socket to 127.0.0.1: what a test needs to send exactly
/// the request it means (a foreign Host, a `../` left unnormalised), which an HTTP library
/// would not let it.
struct RawHTTP {
    let port: Int

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends `GET target` with `headers` (Host defaults to 127.0.0.1:port) and reads the whole answer.
    func get(_ target: String, cookie: String? = nil, headers: [String: String] = [:]) throws -> Response {
        var lines = ["GET \(target) HTTP/1.1"]
        var all = ["Host": "127.0.0.1:\(port)", "Connection": "close"]
        if let cookie { all["Cookie"] = cookie }
        for (name, value) in headers { all[name] = value }
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { lines.append("\(name): \(value)") }
        let fd = try connect()
        defer { close(fd) }
        try send(fd, lines.joined(separator: "\r\n") + "\r\n\r\n")
        var data = Data()
        while let chunk = read(fd, within: 30), !chunk.isEmpty { data += chunk }
        return try Self.parse(data)
    }

    /// Opens `target` as a Server-Sent Events stream; `events` reads from it.
    func stream(_ target: String, cookie: String) throws -> EventStream {
        let fd = try connect()
        try send(fd, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: \(cookie)\r\nAccept: text/event-stream\r\n\r\n")
        return EventStream(fd: fd)
    }

    final class EventStream {
        let fd: Int32
        private var buffer = ""
        init(fd: Int32) { self.fd = fd }
        deinit { close(fd) }

        /// The data of the next event named `name`, waiting up to `seconds`.
        func next(_ name: String, within seconds: Double = 20) -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                while let end = buffer.range(of: "\n\n") {
                    let block = String(buffer[..<end.lowerBound])
                    buffer.removeSubrange(..<end.upperBound)
                    let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
                    guard lines.contains("event: \(name)") else { continue }
                    return lines.filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }.joined(separator: "\n")
                }
                guard let chunk = RawHTTP.read(fd, within: deadline.timeIntervalSinceNow), !chunk.isEmpty else { return nil }
                buffer += String(decoding: chunk, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            }
            return nil
        }
    }

    private func connect() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return fd
    }

    private func send(_ fd: Int32, _ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw POSIXError(.EPIPE) }
            offset += n
        }
    }

    /// What arrives within `seconds`: nil on timeout, empty at the end.
    /// The next bytes from `fd` within `seconds`: nil when none came, empty at its end. A
    /// signal to the test process (a child's SIGCHLD while other tests run) interrupts poll
    /// and read (EINTR) whatever SA_RESTART says: they are tried again, not read as the end.
    static func read(_ fd: Int32, within seconds: Double) -> Data? {
        let deadline = Date().addingTimeInterval(seconds)
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, Int32(max(0, deadline.timeIntervalSinceNow) * 1000))
            if ready > 0 { break }
            guard ready < 0, errno == EINTR else { return nil }
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var n: Int
        repeat { n = Glibc.read(fd, &buffer, buffer.count) } while n < 0 && errno == EINTR
        return n <= 0 ? Data() : Data(buffer[..<n])
    }

    private func read(_ fd: Int32, within seconds: Double) -> Data? { Self.read(fd, within: seconds) }

    static func parse(_ data: Data) throws -> Response {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { throw POSIXError(.EBADMSG) }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Response(status: status, headers: headers, body: body)
    }

    static func dechunk(_ data: Data) -> Data {
        var out = Data()
        var rest = data[...]
        while let line = rest.range(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: rest[..<line.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = line.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let stop = rest.index(start, offsetBy: size)
            out += rest[start..<stop]
            rest = rest[stop...].dropFirst(2)
        }
        return out
    }
}
