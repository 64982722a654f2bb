import Foundation
import Rendering
#if canImport(Glibc)
import Glibc
#endif

/// The terminal the user is looking at, if any.
package enum Terminal {
    /// Its width in columns (`TIOCGWINSZ` on standard output, else standard error, else
    /// `$COLUMNS`, else 80).
    package static var columns: Int {
        var size = winsize()
        for descriptor in [STDOUT_FILENO, STDERR_FILENO] where ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
    }

    /// Whether standard error is a terminal (for progress lines).
    package static let standardErrorIsTerminal = isatty(STDERR_FILENO) == 1

    /// Replaces the status line on standard error; text from files is shown safely and
    /// cut to the width, keeping its end (a path's end says the most).
    package static func status(_ text: String) {
        let safe = text.terminalSafe
        let width = max(10, columns - 1)
        let shown = safe.count > width ? "…" + safe.suffix(width - 1) : safe
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + shown).utf8))
    }

    /// Whether `NO_COLOR` asks for no colour (https://no-color.org: set and not empty).
    /// (getenv, not ProcessInfo, which copies the whole environment into a dictionary: this is
    /// asked once per search hit.)
    package static var noColor: Bool { getenv("NO_COLOR").map { $0.pointee != 0 } ?? false }
}
