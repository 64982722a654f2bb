import Foundation
import Testing
import TestSupport

/// The two places an index can live; suites that hold for both run against each.
enum TestStore: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgresql

    var testDescription: String { rawValue }

    /// The environment that makes `docent` use this store: for PostgreSQL, a `config.yaml` in
    /// `directory/config` naming a new database of its own on the suite's server.
    func environment(_ base: [String: String], directory: String) throws -> [String: String] {
        guard self == .postgresql else { return base }
        let address = try SharedPostgres.newDatabase()
        try FileManager.default.createDirectory(atPath: directory + "/config", withIntermediateDirectories: true)
        try "index: \(address)\n".write(toFile: directory + "/config/config.yaml", atomically: false, encoding: .utf8)
        return base.merging(["DOCENT_CONFIG_DIR": directory + "/config"]) { $1 }
    }
}

/// One PostgreSQL server for the test process (Debian's, in a temporary directory, see
/// `PostgresServer`), started on first use and stopped at exit; a database per test.
enum SharedPostgres {
    nonisolated(unsafe) private static var running: PostgresServer?
    private static let lock = NSLock()
    private static let made = LockedCounter()

    static var server: PostgresServer {
        get throws {
            lock.lock()
            defer { lock.unlock() }
            if let running { return running }
            let server = try PostgresServer()
            running = server
            atexit { SharedPostgres.stopAtExit() }
            return server
        }
    }

    /// A new empty database; its address.
    static func newDatabase() throws -> String {
        let server = try server
        let name = "docent_\(getpid())_\(made.next())"
        try server.createDatabase(name)
        return server.address(name)
    }

    private static func stopAtExit() {
        lock.lock()
        let server = running
        running = nil
        lock.unlock()
        try? server?.stop()
        if let server { try? FileManager.default.removeItem(atPath: server.directory) }
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// This machine's name, as Docent records it in rows.
enum LocalHostName {
    static let name: String = {
        var buffer = [UInt8](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { $0.withMemoryRebound(to: CChar.self) { _ = gethostname($0.baseAddress!, 255) } }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }()
}
