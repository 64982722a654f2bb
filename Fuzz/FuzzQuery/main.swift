// Fuzz target: the search query language, parsed and turned into an FTS5 expression.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import CLibFuzzer
import Index
#if canImport(Glibc)
import Glibc
#endif

/// One input, as Docent meets such bytes.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    if let query = try? SearchQuery.parse(String(decoding: bytes, as: UTF8.self)) { _ = query.match?.matchString }
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzOne(UnsafeBufferPointer(start: data, count: size))
    return 0
})
