#if canImport(Glibc)
import Glibc
#endif
public import SystemPackage

extension FilePath {
    /// The path's bytes, exactly as the kernel sees them (they need not be UTF-8).
    public var bytes: [UInt8] { withPlatformString { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } }

    /// The path made of `bytes` (up to the first NUL, which no path can hold).
    public init(bytes: [UInt8]) {
        self = (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { FilePath(platformString: $0.baseAddress!) }
        }
    }
}
