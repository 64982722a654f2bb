// Fuzz target: a user's content-types.yaml.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import CLibFuzzer
import ContentTypes
#if canImport(Glibc)
import Glibc
#endif

/// One input, as Docent meets such bytes.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    _ = DeclarationFile.parse(String(decoding: bytes, as: UTF8.self), file: "fuzz.yaml", isUserFile: true)
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzOne(UnsafeBufferPointer(start: data, count: size))
    return 0
})
