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

/// What every benchmark command prints with: progress on standard error, figures to two
/// places, percentiles (nearest rank).
protocol BenchOutput {}

extension BenchOutput {
    func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }
    func fmt(_ d: Double) -> String { String(format: "%.2f", d) }

    func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p / 100).rounded(.up)) - 1)]
    }
}
