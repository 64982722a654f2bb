// Fuzz target: a user's content-types.yaml.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import FuzzSupport
import ContentTypes

/// One input, as Docent meets such bytes.
@Sendable func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    _ = DeclarationFile.parse(String(decoding: bytes, as: UTF8.self), file: "fuzz.yaml", isUserFile: true)
}

runFuzzer(fuzzOne)
