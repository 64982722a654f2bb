import Foundation

/// Timing helpers: every figure is the median of several runs.
enum Measure {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let d = try clock.measure(body)
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// Runs `command` with `/bin/sh -c`, standard output to `stdoutPath` (or /dev/null).
    @discardableResult
    static func shell(_ command: String, stdoutPath: String? = nil) throws -> Int32 {
        try Spawn.run(["/bin/sh", "-c", command], stdoutPath: stdoutPath).status
    }
}
