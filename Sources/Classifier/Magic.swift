import CMagic
#if canImport(Glibc)
import Glibc
#endif

/// An error from libmagic, carrying libmagic's own message.
public struct MagicError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with a remedy.
    public var message: String
    public var description: String { message }
}

/// What libmagic says about some bytes.
public struct MagicEvidence: Sendable, Hashable {
    /// The MIME type as libmagic spells it, such as `text/x-script.python`.
    public var mimeType: String
    /// The character encoding, such as `us-ascii`, `utf-8` or `binary`.
    public var encoding: String?
    /// The human-readable description, such as "Python script, ASCII text executable";
    /// nil when it was not asked for.
    public var description: String?
}

/// One libmagic handle. libmagic handles are not thread-safe: each worker owns its own.
///
/// The corresponding C functions are `magic_open`, `magic_load`, `magic_buffer` and `magic_close`.
public final class MagicHandle {
    private let cookie: magic_t
    /// The MIME type alone: libmagic's encoding analysis is asked for only with `describe`.
    private static let mimeFlags = MAGIC_MIME_TYPE | MAGIC_ERROR | MAGIC_NO_CHECK_COMPRESS

    /// Opens a handle and loads the compiled magic database (`databasePath`, or libmagic's
    /// default, which the `MAGIC` environment variable can change).
    public init(databasePath: String? = nil, maxBytes: Int? = nil) throws(MagicError) {
        guard let cookie = magic_open(Self.mimeFlags) else {
            throw MagicError(message: "libmagic could not start (magic_open failed: \(String(cString: strerror(errno))))")
        }
        let rc = databasePath.map { magic_load(cookie, $0) } ?? magic_load(cookie, nil)
        if rc != 0 {
            let reason = magic_error(cookie).map { String(cString: $0) } ?? "unknown error"
            magic_close(cookie)
            throw MagicError(message: "libmagic could not load its database (\(reason)); install the libmagic-mgc package or set MAGIC to a compiled .mgc file")
        }
        if var limit = maxBytes {
            _ = magic_setparam(cookie, Int32(MAGIC_PARAM_BYTES_MAX), &limit)
        }
        self.cookie = cookie
    }

    deinit { magic_close(cookie) }

    /// The MIME type of `bytes`; with `describe`, also the encoding and the description
    /// (two more passes over the bytes).
    public func evidence(for bytes: UnsafeRawBufferPointer, describe: Bool) throws(MagicError) -> MagicEvidence {
        let base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        guard let mimeC = magic_buffer(cookie, base, bytes.count) else { throw lastError() }
        let full = String(cString: mimeC)
        let mime = full.firstIndex(of: ";").map { String(full[..<$0]) } ?? full
        var description: String?, encoding: String?
        if describe {
            defer { magic_setflags(cookie, Self.mimeFlags) }
            magic_setflags(cookie, MAGIC_MIME_ENCODING | MAGIC_ERROR | MAGIC_NO_CHECK_COMPRESS)
            if let e = magic_buffer(cookie, base, bytes.count) { encoding = String(cString: e) }
            magic_setflags(cookie, MAGIC_ERROR | MAGIC_NO_CHECK_COMPRESS)
            guard let d = magic_buffer(cookie, base, bytes.count) else { throw lastError() }
            description = String(cString: d)
        }
        return MagicEvidence(mimeType: mime, encoding: encoding, description: description)
    }

    private func lastError() -> MagicError {
        MagicError(message: "libmagic failed: " + (magic_error(cookie).map { String(cString: $0) } ?? "unknown error"))
    }
}
