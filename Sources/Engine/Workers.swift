import Foundation

/// Work spread over threads started for it, which inherit the caller's scheduling (nice value
/// and policy), unlike Dispatch's shared pool, whose threads serve the whole process.
enum Workers {
    /// Runs `body(0..<count)`, `0` on this thread and the rest on threads of their own, and
    /// returns when all have.
    static func run(_ count: Int, name: String, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else {
            if count == 1 { body(0) }
            return
        }
        let group = DispatchGroup()
        for worker in 1..<count {
            group.enter()
            let thread = Thread {
                body(worker)
                group.leave()
            }
            thread.name = name
            thread.start()
        }
        body(0)
        group.wait()
    }
}
