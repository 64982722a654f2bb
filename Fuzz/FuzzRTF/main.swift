// Fuzz target: Rich Text, as an .rtf file is read.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import CLibFuzzer
import Documents
#if canImport(Glibc)
import Glibc
#endif

/// What the input is read as.
enum Input {
    static let type = DocumentFuzzing.type("public.rtf")
}

/// One input, as Docent meets such bytes.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    DocumentFuzzing.open(bytes, as: Input.type)
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzOne(UnsafeBufferPointer(start: data, count: size))
    return 0
})
