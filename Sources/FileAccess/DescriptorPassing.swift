import CFileSystem
#if canImport(Glibc)
import Glibc
#endif

/// Open files handed from one process to another over a Unix socket (`SCM_RIGHTS`): the
/// indexer opens a file once and its helper reads that same open file, never the path again.
public enum DescriptorPassing {
    /// Sends all of `bytes` on `socket`, the descriptor `fd` attached to the first of them;
    /// false when the other end is gone.
    ///
    /// The corresponding C function is `sendmsg`.
    public static func send(_ bytes: UnsafeRawBufferPointer, with fd: Int32, on socket: Int32) -> Bool {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return false }
        let first = docent_send_descriptor(socket, base, bytes.count, fd)
        guard first > 0 else { return false }
        var offset = first
        while offset < bytes.count {
            let n = Glibc.send(socket, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    /// Receives at most `buffer.count` bytes from `socket`, and the descriptor that came with
    /// them (close-on-exec), if any: the count (0 at the end of input, -1 on an error).
    ///
    /// The corresponding C function is `recvmsg`.
    public static func receive(into buffer: UnsafeMutableRawBufferPointer, on socket: Int32) -> (count: Int, descriptor: Int32?) {
        guard let base = buffer.baseAddress else { return (0, nil) }
        var fd: Int32 = -1
        let count = docent_receive_descriptor(socket, base, buffer.count, &fd)
        return (count, fd >= 0 ? fd : nil)
    }
}
