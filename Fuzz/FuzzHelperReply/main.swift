// Fuzz target: the helper process's replies: frames, JSON, text.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import CLibFuzzer
import Engine
#if canImport(Glibc)
import Glibc
#endif

/// One input, as Docent meets such bytes.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    HelperReplyFuzzing.read(bytes)
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzOne(UnsafeBufferPointer(start: data, count: size))
    return 0
})
