// Fuzz target: PNG, JPEG, GIF, WebP and BMP headers, as image files are read.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import FuzzSupport
import Documents

/// What the input is read as.
enum Input {
    static let types = ["public.png", "public.jpeg", "com.compuserve.gif", "org.webmproject.webp", "com.microsoft.bmp"]
        .map(DocumentFuzzing.type)
}

/// One input, as Docent meets such bytes.
@Sendable func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    // The first byte chooses the format, the rest is the file.
    guard let first = bytes.first else { return }
    DocumentFuzzing.open(UnsafeBufferPointer(rebasing: bytes.dropFirst()), as: Input.types[Int(first) % Input.types.count])
}

runFuzzer(fuzzOne)
