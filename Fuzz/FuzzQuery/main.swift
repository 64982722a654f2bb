// Fuzz target: the search query language, parsed and turned into an FTS5 expression.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import FuzzSupport
import Index

/// One input, as Docent meets such bytes.
@Sendable func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    if let query = try? SearchQuery.parse(String(decoding: bytes, as: UTF8.self)) { _ = query.match?.matchString }
}

runFuzzer(fuzzOne)
