import CLibPQ
import Foundation
import Index

/// A value bound to a statement's parameter: sent as text, except bytes (binary), so user
/// data never becomes SQL.
enum SQLValue {
    case text(String)
    case bytes([UInt8])
    case int(Int64)
    case double(Double)
    case null

    init(_ text: String?) { self = text.map { .text($0) } ?? .null }
}

/// One libpq connection (libpq loaded on first use, see docent_pq.h). libpq reads the address's parts, and what it leaves out, from where
/// every PostgreSQL client looks: `PGHOST`, `PGUSER`, `PGPASSWORD` and the rest of the
/// environment, the service file (`PGSERVICE`, `~/.pg_service.conf`) and the password file
/// (`PGPASSFILE`, `~/.pgpass`). Not thread-safe: `PostgresIndex` holds it under a lock.
final class Connection {
    private var handle: OpaquePointer?
    let address: String
    /// The server settings this connection was started with (`-c name=value` in libpq's
    /// `options`): none when the address names options of its own, which are left as they are.
    let settings: [String: String]

    /// Connects (blocking); throws `IndexError.unreachable` with libpq's message. `settings`
    /// go in the startup packet, so they cost no statement.
    init(address: String, settings: [String: String] = [:]) throws(IndexError) {
        self.address = address
        self.settings = address.contains("options") ? [:] : settings
        guard docent_pq_load() == 0 else {
            throw IndexError.cannotOpen(path: Self.redacted(address), message: "PostgreSQL's client library cannot be loaded ("
                                        + String(cString: docent_pq_load_error()) + "): install it, `apt-get install libpq5`")
        }
        if self.settings.isEmpty {
            handle = docent_PQconnectdb(address)
        } else {
            // The address expanded as the dbname parameter (URI or key=value), the options after it.
            let options = self.settings.sorted { $0.key < $1.key }.map { "-c \($0.key)=\($0.value)" }.joined(separator: " ")
            handle = ["dbname", "options"].withCStringArray { keywords in
                [address, options].withCStringArray { values in docent_PQconnectdbParams(keywords, values, 1) }
            }
        }
        guard docent_PQstatus(handle) == Int32(DOCENT_CONNECTION_OK) else {
            let message = Self.message(handle)
            docent_PQfinish(handle)
            handle = nil
            throw IndexError.unreachable(address: Self.redacted(address), message: message)
        }
        // Docent's texts are UTF-8; a database in another encoding would mangle them.
        let encoding = docent_PQparameterStatus(handle, "server_encoding").map { String(cString: $0) } ?? "unknown"
        guard encoding == "UTF8" else {
            docent_PQfinish(handle)
            handle = nil
            throw IndexError.cannotOpen(path: Self.redacted(address),
                                        message: "the database's encoding is \(encoding); Docent needs UTF8 (createdb -E UTF8)")
        }
        // The server's notices ("terminating connection due to shutdown", "skipping") are not
        // the user's business on standard error: a lost connection comes back as an error of
        // its own. (Dropped here, not with `SET client_min_messages`: a round trip less.)
        docent_PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { docent_PQfinish(handle) }

    /// Whether the connection is up (as far as libpq knows without asking the server).
    var isUp: Bool { handle != nil && docent_PQstatus(handle) == Int32(DOCENT_CONNECTION_OK) }

    /// The connection's socket, for poll (a listener's).
    var socket: Int32 { docent_PQsocket(handle) }

    /// The notifications that arrived (`LISTEN`), taken: how many, or -1 when the connection failed.
    func takeNotifications() -> Int { Int(docent_pq_take_notifications(handle)) }

    /// Connects again after the server went away (libpq's `PQreset`).
    func reset() throws(IndexError) {
        docent_PQreset(handle)
        guard docent_PQstatus(handle) == Int32(DOCENT_CONNECTION_OK) else {
            throw IndexError.unreachable(address: Self.redacted(address), message: Self.message(handle))
        }
    }

    /// Runs one statement with its parameters; rows come back as text.
    @discardableResult
    func execute(_ sql: String, _ parameters: [SQLValue] = []) throws(IndexError) -> Result {
        // Each parameter's bytes, kept alive until the call returns.
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { for buffer in buffers { free(buffer) } }
        for parameter in parameters {
            func copy(_ bytes: some Collection<UInt8>, binary: Bool) {
                let buffer = malloc(bytes.count + 1)!.assumingMemoryBound(to: UInt8.self)
                var i = 0
                for byte in bytes { buffer[i] = byte; i += 1 }
                buffer[i] = 0
                buffers.append(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: CChar.self))
                lengths.append(Int32(bytes.count))
                formats.append(binary ? 1 : 0)
            }
            switch parameter {
            case .text(let text):
                // Copied once with memcpy (texts are megabytes); PostgreSQL's text holds no NUL
                // character: each becomes a space.
                var text = text
                text.withUTF8 { utf8 in
                    let buffer = malloc(utf8.count + 1)!
                    if let source = utf8.baseAddress { memcpy(buffer, source, utf8.count) }
                    buffer.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
                    var rest = buffer
                    var left = utf8.count
                    while left > 0, let nul = memchr(rest, 0, left) {
                        nul.storeBytes(of: 0x20, as: UInt8.self)
                        left -= nul - rest + 1
                        rest = nul + 1
                    }
                    buffers.append(buffer.assumingMemoryBound(to: CChar.self))
                    lengths.append(Int32(utf8.count))
                    formats.append(0)
                }
            case .bytes(let bytes): copy(bytes, binary: true)
            case .int(let value): copy(Array(String(value).utf8), binary: false)
            case .double(let value): copy(Array(String(value).utf8), binary: false)
            case .null:
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
            }
        }
        let result = parameters.isEmpty ? docent_PQexecParams(handle, sql, 0, nil, nil, nil, nil, 0) : buffers.withUnsafeBufferPointer { values in
            values.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: values.count) { values in
                docent_PQexecParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, 0)
            }
        }
        let status = docent_PQresultStatus(result)
        guard status == Int32(DOCENT_PGRES_COMMAND_OK) || status == Int32(DOCENT_PGRES_TUPLES_OK) else {
            let state = result.flatMap { docent_PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
            let message = result.flatMap { docent_PQresultErrorField($0, Int32(UInt8(ascii: "M"))) }.map { String(cString: $0) }
                ?? Self.message(handle)
            docent_PQclear(result)
            if docent_PQstatus(handle) != Int32(DOCENT_CONNECTION_OK) || state == nil || state!.hasPrefix("08") || state == "57P01" || state == "57P03" {
                throw IndexError.unreachable(address: Self.redacted(address), message: message)
            }
            throw IndexError.database(message: message + " (SQLSTATE \(state!))")
        }
        return Result(result)
    }

    /// The connection's last error, on one line.
    static func message(_ handle: OpaquePointer?) -> String {
        guard let handle, let text = docent_PQerrorMessage(handle) else { return "out of memory" }
        return String(cString: text).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    /// `address` without a password in it, for messages (libpq's parser: URIs and key=value).
    static func redacted(_ address: String) -> String {
        if address.contains("://"), let components = URLComponents(string: address) {
            var copy = components
            if copy.password != nil { copy.password = "…" }
            copy.queryItems = copy.queryItems?.map { $0.name == "password" ? URLQueryItem(name: "password", value: "…") : $0 }
            return copy.string ?? address
        }
        return address.split(separator: " ").map { $0.hasPrefix("password=") ? "password=…" : String($0) }.joined(separator: " ")
    }

    /// A statement's rows, as text; freed when dropped.
    final class Result {
        private let handle: OpaquePointer?

        init(_ handle: OpaquePointer?) { self.handle = handle }
        deinit { docent_PQclear(handle) }

        var count: Int { Int(docent_PQntuples(handle)) }
        /// Rows changed by an UPDATE, DELETE or INSERT.
        var changed: Int { Int(String(cString: docent_PQcmdTuples(handle))) ?? 0 }

        /// Whether the value is NULL, or there is no such row (a lookup that found nothing).
        func isNull(_ row: Int, _ column: Int) -> Bool { row >= count || docent_PQgetisnull(handle, Int32(row), Int32(column)) != 0 }

        func string(_ row: Int, _ column: Int) -> String? {
            guard !isNull(row, column) else { return nil }
            let length = Int(docent_PQgetlength(handle, Int32(row), Int32(column)))
            let value = docent_PQgetvalue(handle, Int32(row), Int32(column))!
            return value.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
        }

        func int(_ row: Int, _ column: Int) -> Int64 { string(row, column).flatMap { Int64($0) } ?? 0 }

        func double(_ row: Int, _ column: Int) -> Double? { string(row, column).flatMap { Double($0) } }

        /// A `bytea` column (text form: `\x` then two hex digits a byte).
        func bytes(_ row: Int, _ column: Int) -> [UInt8] {
            guard !isNull(row, column) else { return [] }
            let length = Int(docent_PQgetlength(handle, Int32(row), Int32(column)))
            guard length >= 2 else { return [] }
            let value = UnsafeRawPointer(docent_PQgetvalue(handle, Int32(row), Int32(column))!).assumingMemoryBound(to: UInt8.self)
            func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c &- 48 : (c | 0x20) &- 87 }
            var out = [UInt8](repeating: 0, count: (length - 2) / 2)
            for i in 0..<out.count { out[i] = nibble(value[2 + 2 * i]) << 4 | nibble(value[3 + 2 * i]) }
            return out
        }
    }
}

extension Array where Element == String {
    /// The strings as a NULL-terminated array of C strings, for the call.
    func withCStringArray<T>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies = map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
