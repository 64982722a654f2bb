// Fuzz target: DVI, as a .dvi file is read (its typesetting commands).
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import FuzzSupport
import Documents

/// What the input is read as.
enum Input {
    static let type = DocumentFuzzing.type("org.freedesktop.mime.application.x-dvi")
}

/// One input, as Docent meets such bytes.
@Sendable func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    DocumentFuzzing.open(bytes, as: Input.type)
}

runFuzzer(fuzzOne)
