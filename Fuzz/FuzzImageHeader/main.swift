// Fuzz target: PNG, JPEG, GIF, WebP and BMP headers, as image files are read.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import CLibFuzzer
import Documents
#if canImport(Glibc)
import Glibc
#endif

/// What the input is read as.
enum Input {
    static let types = ["public.png", "public.jpeg", "com.compuserve.gif", "org.webmproject.webp", "com.microsoft.bmp"]
        .map(DocumentFuzzing.type)
}

/// One input, as Docent meets such bytes.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    // The first byte chooses the format, the rest is the file.
    guard let first = bytes.first else { return }
    DocumentFuzzing.open(UnsafeBufferPointer(rebasing: bytes.dropFirst()), as: Input.types[Int(first) % Input.types.count])
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzOne(UnsafeBufferPointer(start: data, count: size))
    return 0
})
