// Fuzz target: the helper process's replies: frames, JSON, text.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import FuzzSupport
import Engine

/// One input, as Docent meets such bytes.
@Sendable func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    HelperReplyFuzzing.read(bytes)
}

runFuzzer(fuzzOne)
