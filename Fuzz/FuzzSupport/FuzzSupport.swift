import CLibFuzzer
#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with this program's arguments as its flags, calling `one` with each input;
/// exits with libFuzzer's status. (libFuzzer's own `main` cannot be used: SwiftPM gives every
/// executable one.)
public func runFuzzer(_ one: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Void) -> Never {
    FuzzInput.handler = one
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        FuzzInput.handler?(UnsafeBufferPointer(start: data, count: size))
        return 0
    })
}

/// The target's handler, for the C callback (which cannot capture it).
enum FuzzInput {
    // Set once, before libFuzzer starts; read by libFuzzer's single fuzzing thread.
    nonisolated(unsafe) static var handler: (@Sendable (UnsafeBufferPointer<UInt8>) -> Void)?
}
