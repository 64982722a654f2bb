// Fuzz target: PostScript, as a .ps or .eps file is read (its DSC comments).
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import FuzzSupport
import Documents

/// What the input is read as.
enum Input {
    static let type = DocumentFuzzing.type("com.adobe.postscript")
}

/// One input, as Docent meets such bytes.
@Sendable func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    DocumentFuzzing.open(bytes, as: Input.type)
}

runFuzzer(fuzzOne)
