import FileAccess
import Dispatch

/// A bounded first-in first-out queue between one producer and several consumer threads:
/// `put` waits while the queue is full, `take` waits while it is empty, so a fast crawl
/// never piles up more than `capacity` items ahead of the workers.
final class WorkQueue<Item: Sendable>: Sendable {
    private let slots: DispatchSemaphore
    private let items = DispatchSemaphore(value: 0)
    private let buffer = Locked<[Item?]>([])

    init(capacity: Int) {
        slots = DispatchSemaphore(value: capacity)
    }

    /// Adds `item`, waiting for room.
    func put(_ item: Item) {
        enqueue(item)
    }

    /// Tells `consumers` consumers that nothing more is coming.
    func close(consumers: Int) {
        for _ in 0..<consumers { enqueue(nil) }
    }

    /// The next item, waiting for one; nil once the queue is closed.
    func take() -> Item? {
        items.wait()
        let item = buffer.withLock { $0.removeFirst() }
        slots.signal()
        return item
    }

    private func enqueue(_ item: Item?) {
        slots.wait()
        buffer.withLock { $0.append(item) }
        items.signal()
    }
}
