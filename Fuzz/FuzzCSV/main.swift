// Fuzz target: CSV, as a .csv file is read.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import FuzzSupport
import Documents

/// What the input is read as.
enum Input {
    static let type = DocumentFuzzing.type("public.comma-separated-values-text")
}

/// One input, as Docent meets such bytes.
@Sendable func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    DocumentFuzzing.open(bytes, as: Input.type)
}

runFuzzer(fuzzOne)
