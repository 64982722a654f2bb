import Dispatch
@testable import Engine
import Foundation
import Index
import Testing
import TestSupport

/// How a cold index's workers hand their full batches to the one writing: a batch that fills
/// while another worker writes is left for it, and the worker reads on; nothing is lost.
@Suite("Batches left for the worker writing")
struct BatchWritingTests {
    static func rows(_ range: Range<Int>, text: (Int) -> String = { "kettle w\($0)x" }) -> [IndexedFile] {
        range.map { i in
            IndexedFile(path: Array("/r/\(i).txt".utf8), device: 1, inode: Int64(i + 1), size: 5, modified: 1, changed: 1,
                        contentType: "public.plain-text", text: text(i))
        }
    }

    /// Runs `body` while another thread holds the writer's lock, as a worker writing does.
    static func whileAnotherWrites(_ state: RunState, _ body: () throws -> Void) throws {
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            state.writer.withLock { _ in
                held.signal()
                release.wait()
            }
            done.signal()
        }.start()
        held.wait()
        defer {
            release.signal()
            done.wait()
        }
        try body()
    }

    @Test("Full batches wait while another worker writes; the next write and the run's end write them all")
    func leftAndWritten() throws {
        let dir = try TemporaryDirectory()
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        let indexer = Indexer(index: index, settings: .defaults(), workers: 2)
        let state = RunState(progress: nil, start: .now)
        let batch = RunState.batchRows

        // Two full batches and part of a third while another worker writes: the full ones are
        // left, and this worker goes on.
        try Self.whileAnotherWrites(state) {
            state.store(Self.rows(0..<batch), indexer: indexer)
            state.store(Self.rows(batch..<2 * batch), indexer: indexer)
            state.store(Self.rows(2 * batch..<2 * batch + 10), indexer: indexer)
            let written = try index.count()
            #expect(written == 0)
        }

        // The next full batch is written by the worker that fills it, with those left before it.
        state.store(Self.rows(2 * batch + 10..<3 * batch), indexer: indexer)
        #expect(try index.count() == 3 * batch)
        // The run's end writes what is left, part of a batch or whole ones.
        state.store(Self.rows(3 * batch..<3 * batch + 7), indexer: indexer)
        let (stored, errors) = try state.finish(indexer: indexer)
        #expect(stored == 3 * batch + 7 && errors == 0)
        #expect(try index.count() == 3 * batch + 7)
        for i in [0, batch - 1, batch, 2 * batch + 9, 3 * batch + 6] {
            #expect(try index.count(SearchRequest(match: .term("w\(i)x"))) == 1, "row \(i)")
        }
    }

    @Test("The run's end writes full batches left when no other write came")
    func leftUntilTheEnd() throws {
        let dir = try TemporaryDirectory()
        let index = try FileIndex(path: dir.path + "/index.sqlite")
        let indexer = Indexer(index: index, settings: .defaults(), workers: 2)
        let state = RunState(progress: nil, start: .now)
        try Self.whileAnotherWrites(state) { state.store(Self.rows(0..<RunState.batchRows), indexer: indexer) }
        #expect(try index.count() == 0)
        _ = try state.finish(indexer: indexer)
        #expect(try index.count() == RunState.batchRows)
    }
}
