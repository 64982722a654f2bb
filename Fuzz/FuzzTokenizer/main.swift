// Fuzz target: the `docent` FTS5 tokenizer (CJK bigrams, the rest through unicode61) and the
// snippet's token counting, which must agree with it exactly (docent_tokenizer_check).
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import CSnippet
import FuzzSupport
import GRDB

/// One in-memory connection with Docent's functions and tokenizer.
nonisolated(unsafe) let queue: DatabaseQueue = {
    let queue = try! DatabaseQueue()
    try! queue.inDatabase { db in
        _ = docent_register_search_functions(UnsafeMutableRawPointer(db.sqliteConnection))
    }
    return queue
}()

/// One input, as Docent meets such bytes: text of any kind, valid UTF-8 or not.
@Sendable func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let problem = try! queue.inDatabase { db in
        bytes.withMemoryRebound(to: CChar.self) { text in
            docent_tokenizer_check(UnsafeMutableRawPointer(db.sqliteConnection), text.baseAddress, Int32(text.count))
        }
    }
    if problem != 0 { fatalError("docent_tokenizer_check: \(problem)") }
}

runFuzzer(fuzzOne)
