import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The fuzz target's way into the helper's reply framing (`Fuzz/FuzzHelperReply`): bytes
/// as a helper process might send them — length-prefixed frames, a JSON reply, a text —
/// read and decoded as `ExtractionHelper.extract` reads them.
package enum HelperReplyFuzzing {
    /// Reads `bytes` (at most 64 KiB: one pipe's buffer) as a stream of replies.
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>) {
        var ends: [Int32] = [-1, -1]
        guard bytes.count <= 65_536, pipe(&ends) == 0 else { return }
        defer { close(ends[0]) }
        var offset = 0
        while offset < bytes.count {
            let n = write(ends[1], bytes.baseAddress! + offset, bytes.count - offset)
            guard n > 0 else { break }
            offset += n
        }
        close(ends[1])
        while let answer = Frame.read(from: ends[0], deadline: .now + .seconds(1)) {
            guard var reply = try? JSONDecoder().decode(ExtractionReply.self, from: answer) else { return }
            if reply.hasText {
                guard let text = Frame.readText(from: ends[0], deadline: .now + .seconds(1)) else { return }
                reply.extraction?.text = text
            } else {
                guard Frame.read(from: ends[0], deadline: .now + .seconds(1)) != nil else { return }
            }
            _ = reply.extraction?.preview?.elements.count
        }
    }
}
