import Index
package import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing to standard output and standard error; a closed pipe ends the program quietly.
package enum Output {
    /// Whether standard output is a terminal.
    package static let isTerminal = isatty(STDOUT_FILENO) == 1

    /// Writes `text` and a newline.
    package static func line(_ text: String) {
        write(text + "\n")
    }

    /// Writes `text` as it is.
    package static func write(_ text: String) {
        var text = text
        text.withUTF8 { write($0) }
    }

    /// Writes `data` as it is.
    package static func write(_ data: Data) {
        data.withUnsafeBytes { write($0.bindMemory(to: UInt8.self)) }
    }

    private static func write(_ buffer: UnsafeBufferPointer<UInt8>) {
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                exit(errno == EPIPE ? 0 : 2)  // the reader went away: not an error
            }
            offset += n
        }
    }

    package static func error(_ text: String) { note(text) }

    package static func note(_ text: String) {
        FileHandle.standardError.write(Data(("docent: " + text + "\n").utf8))
    }

    /// A long migration of the index (a new field indexed again) is said on standard error
    /// before it starts: the command that first opens an older index waits for it.
    package static func noticeSlowMigrations() {
        FileIndex.noticeSlowMigrations { note($0) }
    }

    package static func warning(_ text: String) {
        FileHandle.standardError.write(Data(("docent: warning: " + text + "\n").utf8))
    }

    /// One JSON object on one line, keys sorted so output is stable.
    package static func json(_ object: [String: Any]) {
        if let text = jsonLine(object) { line(text) }
    }

    /// The line `json` prints, for callers that print later.
    package static func jsonLine(_ object: [String: Any]) -> String? {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Ignore SIGPIPE so a closed pipe surfaces as EPIPE, handled in `line`.
    package static func ignoreSIGPIPE() { signal(SIGPIPE, SIG_IGN) }
}
