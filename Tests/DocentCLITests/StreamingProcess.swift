import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `docent` process whose output is read line by line while it runs (`--follow`).
final class StreamingProcess: @unchecked Sendable {
    // Unchecked: `buffer` is only touched under `lock`.
    private let process = Process()
    private let lock = NSCondition()
    private var buffer = Data()
    private var ended = false

    init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = Docent.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["DOCENT_CONFIG_DIR"] = "/nonexistent/docent-test-config"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.lock()
            if data.isEmpty { self.ended = true; handle.readabilityHandler = nil } else { self.buffer += data }
            self.lock.broadcast()
            self.lock.unlock()
        }
        try process.run()
    }

    deinit { stop() }

    var pid: Int32 { process.processIdentifier }

    /// The next whole line of output, waiting up to `seconds`; nil if none came.
    func nextLine(within seconds: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            if ended || !lock.wait(until: deadline) { return nil }
        }
    }

    /// The next line as a JSON object.
    func nextObject(within seconds: Double = 10) -> [String: Any]? {
        nextLine(within: seconds).flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    /// Sends `signal` and waits for the exit; the exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }
}
