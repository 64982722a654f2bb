import CMalloc
package import ContentTypes
package import DocumentModel
import Documents
import FileAccess
import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// What the indexer asks of the helper process: one file.
struct ExtractionRequest: Codable {
    /// The path's bytes, base64 (a path need not be UTF-8).
    var path: String
    var readBytes: Int
    var textBytes: Int
    var preview: Bool
    var text: Bool
    /// A picture fitting this many pixels instead of an extraction (`Pictures`).
    var picture: Int? = nil
    /// The page pictured, counted from 0 (a PDF's; nil: the first).
    var page: Int? = nil
    /// OCR for an image or a scanned PDF's pages, with the time budget it shares with the
    /// reading (nil: off).
    var ocr: OCRSettings? = nil
    var seconds: Double? = nil
    /// The type the indexer decided (its identifier) and libmagic's description, sent with
    /// the open file itself: the helper reads that file as that type, and never opens the
    /// path or classifies it again. Nil: the helper opens and classifies the path.
    var contentType: String? = nil
    var contentDescription: String? = nil
}

/// The helper's answer.
struct ExtractionReply: Codable {
    var extraction: Extraction?
    /// The file could not be examined at all (it is gone).
    var gone = false
    /// No document type could open it.
    var error: String?
    /// Whether the extraction has a text, which follows in a frame of its own as raw UTF-8
    /// (as a JSON string every character would be escaped and parsed: seconds on a corpus).
    var hasText = false
    /// Whether a PNG picture follows in the second frame (instead of a text).
    var hasPicture = false

    /// The reply as its two frames: the JSON without the text, then the text (sent from the
    /// string's own UTF-8, not a copy: a long manual's text is megabytes).
    func frames() throws -> (json: Data, text: String) {
        var reply = self
        let text = reply.extraction?.text
        reply.extraction?.text = nil
        reply.hasText = text != nil
        return (try JSONEncoder().encode(reply), text ?? "")
    }
}

/// The helper process's side: documents whose readers run on C parsers of untrusted formats
/// are opened here, one at a time, so a crash or a hang costs this process (which the
/// indexer restarts), never the indexer. The address space is limited with `RLIMIT_AS`; the
/// indexer enforces the time budget by killing the process.
package enum ExtractionServer {
    /// Serves requests on standard input, replies on standard output, until standard input ends.
    package static func serve(memoryBytes: Int, documents: DocumentRegistry = AppDocuments.registry,
                             types: UTTypeRegistry = .shared) -> Never {
        // The memory budget is an address-space limit; a sanitizer's shadow memory alone is
        // larger, so a sanitizer build runs its helpers without one (and says so nowhere else).
        if !Sanitizers.active {
            var limit = rlimit(rlim_cur: rlim_t(memoryBytes), rlim_max: rlim_t(memoryBytes))
            _ = setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
        }
        var loaders: [Int: DocumentLoader] = [:]
        let fault = Fault(ProcessInfo.processInfo.environment["DOCENT_HELPER_FAULT"])
        var handed: Int32?
        while let frame = Frame.read(from: STDIN_FILENO, deadline: nil, receiving: &handed) {
            var reply = ExtractionReply()
            let file = handed.flatMap { try? ReadOnlyFile(adopting: $0) }  // adopted, or closed
            handed = nil
            if let request = try? JSONDecoder().decode(ExtractionRequest.self, from: frame),
               let bytes = Data(base64Encoded: request.path) {
                let path = FilePath(bytes: [UInt8](bytes))
                fault?.strike(path)
                if loaders[request.readBytes] == nil {
                    loaders[request.readBytes] = try? DocumentLoader(documents: documents, types: types, readLimit: request.readBytes)
                }
                if let loader = loaders[request.readBytes], let size = request.picture {
                    var picture = Data()
                    (reply, picture) = Pictures.make(path, size: size, page: request.page ?? 0, loader: loader)
                    guard let json = try? JSONEncoder().encode(reply), Frame.write(json, to: STDOUT_FILENO),
                          Frame.write(picture, to: STDOUT_FILENO) else { exit(1) }
                    continue
                } else if let loader = loaders[request.readBytes] {
                    reply = extract(path, request, file: file, loader: loader, documents: documents, types: types)
                } else {
                    reply.error = "libmagic could not be loaded"
                }
            } else {
                reply.error = "a request the helper could not read"
            }
            guard var frames = try? reply.frames(), Frame.write(frames.json, to: STDOUT_FILENO),
                  frames.text.withUTF8({ Frame.write($0, to: STDOUT_FILENO) }) else { exit(1) }
            // A long document's pieces, freed, would otherwise stay resident until the helper ends.
            docent_trim_malloc()
        }
        exit(0)
    }

    static func extract(_ path: FilePath, _ request: ExtractionRequest, file: ReadOnlyFile?, loader: DocumentLoader,
                        documents: DocumentRegistry, types: UTTypeRegistry) -> ExtractionReply {
        var reply = ExtractionReply()
        let prepared: PreparedFile
        do {
            if let identifier = request.contentType, let file, let type = UTType(identifier, registry: types) {
                prepared = try loader.prepare(path, handed: file, contentType: type, description: request.contentDescription)
            } else {
                prepared = try loader.prepare(path)
            }
        } catch {
            reply.gone = true
            return reply
        }
        let started = ContinuousClock.now
        do {
            let document = try documents.openSynchronously(prepared.configuration)
            reply.extraction = try Extraction(document, preview: request.preview, text: request.text, textBytes: request.textBytes)
        } catch {
            reply.error = "\(error)"
        }
        if let settings = request.ocr, request.text, var extraction = reply.extraction,
           OCR.applies(to: prepared.configuration.contentType) {
            // What is left of the time budget, less a margin for the reply: OCR stops with what
            // it has rather than the helper being killed with nothing.
            let spent = ContinuousClock.now - started
            let left = (request.seconds ?? 30) * 0.8 - spent.seconds
            extraction.addOCR(path: path, type: prepared.configuration.contentType, settings: settings,
                              readBytes: request.readBytes, textBytes: request.textBytes, seconds: left)
            reply.extraction = extraction
        }
        return reply
    }

    /// Misbehaviour on demand, for tests of what cannot be caused at will in a well-kept
    /// library: `DOCENT_HELPER_FAULT=crash:NAME,hang:NAME,allocate:NAME` makes the helper
    /// abort, stop answering, or allocate until its memory budget stops it, on the file NAME.
    struct Fault {
        let faults: [String: Substring]

        init?(_ setting: String?) {
            var faults: [String: Substring] = [:]
            for item in (setting ?? "").split(separator: ",") {
                let parts = item.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { faults[String(parts[1])] = parts[0] }
            }
            guard !faults.isEmpty else { return nil }
            self.faults = faults
        }

        func strike(_ path: FilePath) {
            guard let name = path.lastComponent?.string, let kind = faults[name] else { return }
            // Dies at once, as a crashing C library would without the Swift runtime's
            // backtracer (which, under a sanitizer, outlasts the time budget).
            func crash() -> Never {
                signal(SIGABRT, SIG_DFL)
                abort()
            }
            switch kind {
            case "crash": crash()
            case "hang": while true { pause() }
            case "allocate":
                // A sanitizer build has no budget to reach (see `serve`): it would take the
                // machine's memory instead. What the budget does, a crash, is done at once.
                if Sanitizers.active { crash() }
                // Address space is what RLIMIT_AS counts: reserving it is enough to reach the budget.
                var blocks: [UnsafeMutableRawPointer] = []
                while let block = malloc(64 << 20) { blocks.append(block) }
                crash()  // malloc failed: the address space budget held
            default: return
            }
        }
    }
}

/// Length-prefixed messages between the indexer and its helper: a 4-byte little-endian
/// length, then that many bytes (JSON, or a text's UTF-8).
enum Frame {
    static let largest = 256 << 20

    /// Writes one message; false when the other end is gone.
    static func write(_ payload: Data, to fd: Int32) -> Bool {
        payload.withUnsafeBytes { write($0, to: fd) }
    }

    /// Writes one message from bytes in place: the length, then the bytes themselves (no
    /// copy joins them). With `attaching`, that open file goes with the length (`SCM_RIGHTS`).
    static func write(_ payload: UnsafeRawBufferPointer, to fd: Int32, attaching file: Int32? = nil) -> Bool {
        var length = UInt32(payload.count).littleEndian
        return withUnsafeBytes(of: &length) { header in
            if let file { return DescriptorPassing.send(header, with: file, on: fd) }
            return send(header, to: fd)
        } && send(payload, to: fd)
    }

    /// Writes one message with the open file `file` attached.
    static func write(_ payload: Data, to fd: Int32, attaching file: Int32) -> Bool {
        payload.withUnsafeBytes { write($0, to: fd, attaching: file) }
    }

    static func write(_ payload: UnsafeBufferPointer<UInt8>, to fd: Int32) -> Bool {
        write(UnsafeRawBufferPointer(payload), to: fd)
    }

    /// Sends all of `buffer`.
    private static func send(_ buffer: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR { continue }
                // Not a socket (a pipe, when run by hand): plain write.
                if errno == ENOTSOCK {
                    let w = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if w > 0 { offset += w; continue }
                    if w < 0, errno == EINTR { continue }
                }
                return false
            }
            offset += n
        }
        return true
    }

    /// Reads one message, waiting until `deadline` at most; nil on end of input, an error,
    /// or the deadline.
    static func read(from fd: Int32, deadline: ContinuousClock.Instant?) -> Data? {
        var ignored: Int32?
        return read(from: fd, deadline: deadline, receiving: &ignored)
    }

    /// Reads one message and the open file sent with it, if any (`received`, close-on-exec;
    /// the caller owns it).
    static func read(from fd: Int32, deadline: ContinuousClock.Instant?, receiving received: inout Int32?) -> Data? {
        guard let length = readLength(from: fd, deadline: deadline, receiving: &received) else { return nil }
        var data = Data(count: length)
        let complete = data.withUnsafeMutableBytes { fill($0, from: fd, deadline: deadline) }
        return complete ? data : nil
    }

    /// Reads one message of UTF-8 text straight into a string (invalid sequences replaced),
    /// with no intermediate copy of what may be megabytes.
    static func readText(from fd: Int32, deadline: ContinuousClock.Instant?) -> String? {
        guard let length = readLength(from: fd, deadline: deadline) else { return nil }
        var complete = false
        let text = String(unsafeUninitializedCapacity: length) { buffer in
            complete = fill(UnsafeMutableRawBufferPointer(buffer), from: fd, deadline: deadline)
            return complete ? length : 0
        }
        return complete ? text : nil
    }

    private static func readLength(from fd: Int32, deadline: ContinuousClock.Instant?) -> Int? {
        var ignored: Int32?
        return readLength(from: fd, deadline: deadline, receiving: &ignored)
    }

    /// The next message's length; a descriptor sent with it lands in `received` (any other
    /// that came is closed). The header is read with `recvmsg`: a plain `read` would drop it.
    private static func readLength(from fd: Int32, deadline: ContinuousClock.Instant?, receiving received: inout Int32?) -> Int? {
        var header: UInt32 = 0
        let complete = withUnsafeMutableBytes(of: &header) { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                guard wait(fd, until: deadline) else { return false }
                let (n, descriptor) = DescriptorPassing.receive(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]), on: fd)
                if let descriptor {
                    if let earlier = received { close(earlier) }
                    received = descriptor
                }
                if n < 0, errno == EINTR { continue }
                // Not a socket (a pipe, when run by hand): plain reads.
                if n < 0, errno == ENOTSOCK {
                    return fill(UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]), from: fd, deadline: deadline)
                }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
        guard complete else { return nil }
        let length = Int(UInt32(littleEndian: header))
        return length <= largest ? length : nil
    }

    /// Fills `buffer` from `fd`; false on end of input, an error, or the deadline.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, from fd: Int32, deadline: ContinuousClock.Instant?) -> Bool {
        var offset = 0
        while offset < buffer.count {
            guard wait(fd, until: deadline) else { return false }
            let n = Glibc.read(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    /// Waits until `fd` has input (or its end) or `deadline` passes: false at the deadline.
    private static func wait(_ fd: Int32, until deadline: ContinuousClock.Instant?) -> Bool {
        guard let deadline else { return true }
        while true {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            let milliseconds = Int32(min(Double(Int32.max), left.seconds * 1000 + 1))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            return ready > 0
        }
    }
}
