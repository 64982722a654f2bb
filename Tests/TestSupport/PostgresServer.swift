import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server for one test: Debian's `initdb` and `pg_ctl` (postgresql-15) in a
/// temporary directory, listening on a free port on 127.0.0.1 alone, trusting local
/// connections; stopped and removed when released. PostgreSQL refuses to run as root: under
/// root (CI) its programs run as the `postgres` user that Debian's package creates.
public final class PostgresServer {
    public let directory: String
    public let port: Int
    private let bin: String
    private let asUser: [String]

    /// Where Debian keeps the server's programs; nil when PostgreSQL is not installed.
    public static let binDirectory: String? = {
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { "\(base)/\($0)/bin" }.flatMap { FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl") ? $0 : nil }
    }()

    /// The server's `-c` settings: a test's throwaway server skips fsync; the benchmark's keeps
    /// PostgreSQL's defaults (`[]`), as a real server would.
    private let settings: [String]

    public init(settings: [String] = ["fsync=off", "shared_buffers=32MB"]) throws {
        self.settings = settings
        guard let bin = Self.binDirectory else { throw PostgresServerError("PostgreSQL's server is not installed (apt-get install postgresql)") }
        self.bin = bin
        let template = NSTemporaryDirectory() + "docent-pg-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { throw CocoaError(.fileWriteUnknown) }
        directory = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        port = try Self.freePort()
        if geteuid() == 0 {
            asUser = ["/usr/sbin/runuser", "-u", "postgres", "--"]
            _ = try runTool("/bin/chown", ["postgres", directory])
        } else {
            asUser = []
        }
        let initdb = try run([bin + "/initdb", "-D", directory + "/data", "-A", "trust", "-U", "docent", "-E", "UTF8", "--locale=C.UTF-8",
                              "--no-sync"])
        guard initdb.status == 0 else { throw PostgresServerError("initdb failed: " + initdb.output) }
        try start()
    }

    deinit {
        _ = try? run([bin + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The address of database `name` (made by `createDatabase`).
    public func address(_ name: String = "docent") -> String { "postgresql://docent@127.0.0.1:\(port)/\(name)" }

    public func start() throws {
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1" + settings.map { " -c " + $0 }.joined()
        let started = try run([bin + "/pg_ctl", "-D", directory + "/data", "-l", directory + "/log", "-o", options, "-w", "-t", "60", "start"])
        guard started.status == 0 else {
            let log = Self.read(directory + "/log")
            throw PostgresServerError("pg_ctl start failed: " + started.output + log)
        }
    }

    /// Stops the server at once (`immediate`: open connections are cut, as in a crash).
    public func stop() throws {
        _ = try run([bin + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"])
    }

    public func createDatabase(_ name: String = "docent") throws {
        let made = try run([bin + "/createdb", "-h", "127.0.0.1", "-p", "\(port)", "-U", "docent", name], asServerUser: false)
        guard made.status == 0 else { throw PostgresServerError("createdb failed: " + made.output) }
    }

    /// `psql -c` against database `name`: its output, unaligned, tuples only.
    public func psql(_ sql: String, database: String = "docent") throws -> String {
        let result = try run(["/usr/bin/psql", "-h", "127.0.0.1", "-p", "\(port)", "-U", "docent", "-d", database, "-X", "-A", "-t", "-q",
                              "-v", "ON_ERROR_STOP=1", "-c", sql], asServerUser: false)
        guard result.status == 0 else { throw PostgresServerError("psql failed: " + result.output) }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `command` (as the postgres user under root) and waits for it, its output in a file,
    /// with no other descriptor of this process inherited (`IsolatedProcess`).
    private func run(_ command: [String], asServerUser: Bool = true) throws -> (status: Int32, output: String) {
        let full = (asServerUser ? asUser : []) + command
        let outputPath = directory + "/command-output-" + UUID().uuidString
        let pid = try IsolatedProcess.start(full, output: outputPath)
        let exited = IsolatedProcess.wait(pid)
        let output = Self.read(outputPath)
        unlink(outputPath)
        return (exited, output)
    }

    /// A small file's text, read with read(2): Foundation's String(contentsOfFile:) leaks a
    /// 4 KB buffer for an empty file (LeakSanitizer in CI: createdb says nothing).
    static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += buffer[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A port nobody listens on now (bound to port 0, the kernel's choice, and released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresServerError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw PostgresServerError("bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

public struct PostgresServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
