package import DocumentModel
import FileAccess
package import Foundation
package import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Why the helper process gave no extraction.
package enum ExtractionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The document took longer than its time budget; the helper was killed.
    case timedOut(seconds: Double)
    /// The helper died while reading the document (a crash, or the memory budget).
    case crashed(signal: Int32?, memoryBytes: Int)
    /// No document type could open the file.
    case unopenable(String)
    /// There is no helper to run.
    case unavailable(String)

    /// The error kind stored on the file's row.
    package var kind: DocumentProblem.Kind {
        switch self {
        case .timedOut: .timeBudget
        case .crashed: .crashed
        case .unopenable: .unopenable
        case .unavailable: .unavailable
        }
    }

    package var description: String {
        switch self {
        case .timedOut(let seconds):
            "stopped after \(String(format: "%g", seconds)) s (limits.documentSeconds); not tried again until the file changes"
        case .crashed(let signal, let memory):
            "the reader crashed\(signal.map { " (signal \($0))" } ?? ""), or needed more than its memory budget of "
                + "\(memory >> 20) MiB (limits.documentMemoryBytes); not tried again until the file changes"
        case .unopenable(let message): message
        case .unavailable(let message): message
        }
    }
}

/// One helper process (`docent _extract`), started on first use and again after it dies,
/// connected by a socket pair. Used by one thread at a time.
final class ExtractionHelper {
    let budget: DocumentBudget
    private var process: ChildProcess?
    private var socket: Int32 = -1

    init(budget: DocumentBudget) {
        self.budget = budget
    }

    deinit { shutDown(kill: false) }

    /// The helper's resident memory that is its own, not pages of its executable and
    /// libraries that every helper shares (`/proc/PID/statm`: resident minus shared); nil
    /// when no helper runs.
    var ownResidentBytes: Int? {
        guard let process, let statm = WholeFile.read("/proc/\(process.pid)/statm", limit: 256) else { return nil }
        let fields = statm.split(separator: UInt8(ascii: " ")).compactMap { Int(String(decoding: $0, as: UTF8.self)) }
        guard fields.count >= 3 else { return nil }
        return (fields[1] - fields[2]) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Ends the helper if a document left it holding more than `bytes` of its own memory:
    /// MuPDF's objects and glibc's heap stay after a long manual, through every later file.
    /// The next document starts a new helper.
    /// The old helper is waited for (a second at most, then killed), so its memory is given
    /// back before a new one starts: otherwise both were alive for a moment at the run's peak.
    func retire(above bytes: Int) {
        guard let resident = ownResidentBytes, resident > bytes else { return }
        end()
    }

    /// Ends the helper (it reads the end of its input and exits; a second at most, then it is
    /// killed). The next document starts a new one.
    func end() {
        shutDown(kill: false)
    }

    /// Reads `prepared` in the helper: its extraction, nil when the file is gone, or the
    /// failure. The helper is handed the open file and its type, never the path to open.
    func extract(_ prepared: PreparedFile, preview: Bool, text: Bool, textBytes: Int) -> Result<Extraction?, ExtractionFailure> {
        let path = prepared.classification.path
        var request = ExtractionRequest(path: Data(path.bytes).base64EncodedString(), readBytes: budget.readBytes,
                                        textBytes: textBytes, preview: preview, text: text)
        let file = prepared.classification.file
        if file != nil {
            request.contentType = prepared.configuration.contentType.identifier
            request.contentDescription = prepared.configuration.contentDescription
        }
        if text, let ocr = budget.ocr {
            request.ocr = ocr
            request.seconds = budget.seconds
        }
        return exchange(request, attaching: file?.descriptor).flatMap { reply, _ in
            if reply.gone { return .success(nil) }
            if let extraction = reply.extraction { return .success(extraction) }
            return .failure(.unopenable(reply.error ?? "no document type could read it"))
        }
    }

    /// A PNG picture of `path` fitting `size` pixels (`Pictures`): nil when the file is gone.
    func picture(_ path: FilePath, size: Int, page: Int) -> Result<Data?, ExtractionFailure> {
        let request = ExtractionRequest(path: Data(path.bytes).base64EncodedString(), readBytes: budget.readBytes,
                                        textBytes: 0, preview: false, text: false, picture: size, page: page)
        return exchange(request).flatMap { reply, payload in
            if reply.gone { return .success(nil) }
            if reply.hasPicture { return .success(payload) }
            return .failure(.unopenable(reply.error ?? "no picture could be made of it"))
        }
    }

    /// Sends `request` and reads the reply's two frames, under the time budget: the reply
    /// with its text in place, and the second frame's bytes when they are not a text.
    private func exchange(_ request: ExtractionRequest, attaching file: Int32? = nil) -> Result<(ExtractionReply, Data), ExtractionFailure> {
        if process == nil, let failure = start() { return .failure(failure) }
        guard let data = try? JSONEncoder().encode(request),
              file.map({ Frame.write(data, to: socket, attaching: $0) }) ?? Frame.write(data, to: socket) else {
            return .failure(died())
        }
        let deadline = ContinuousClock.now + .milliseconds(Int64(budget.seconds * 1000))
        func lost() -> ExtractionFailure {
            if ContinuousClock.now >= deadline {
                shutDown(kill: true)
                return .timedOut(seconds: budget.seconds)
            }
            return died()
        }
        guard let answer = Frame.read(from: socket, deadline: deadline) else { return .failure(lost()) }
        guard let reply = try? JSONDecoder().decode(ExtractionReply.self, from: answer) else {
            shutDown(kill: true)
            return .failure(.unavailable("the helper's answer could not be read"))
        }
        // A text is read straight into the extraction's string; a picture as bytes.
        if reply.hasText {
            guard let text = Frame.readText(from: socket, deadline: deadline) else { return .failure(lost()) }
            var reply = reply
            reply.extraction?.text = text
            return .success((reply, Data()))
        }
        guard let payload = Frame.read(from: socket, deadline: deadline) else { return .failure(lost()) }
        return .success((reply, payload))
    }

    /// Starts the helper; the failure when it cannot be.
    private func start() -> ExtractionFailure? {
        guard let executable = Self.executable else {
            return .unavailable("the helper process (the docent-engine executable) was not found; set DOCENT_HELPER")
        }
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            return .unavailable("socketpair: \(Errno(rawValue: errno))")
        }
        defer { close(ends[1]) }
        do {
            process = try ChildProcess.spawn([executable, "_extract", "--memory", String(budget.memoryBytes)],
                                             descriptors: [0: .duplicate(ends[1]), 1: .duplicate(ends[1]), 2: .null])
        } catch {
            close(ends[0])
            return .unavailable("the helper could not be started: \(error)")
        }
        socket = ends[0]
        return nil
    }

    /// The helper is gone: why, from how it ended.
    private func died() -> ExtractionFailure {
        .crashed(signal: shutDown(kill: true), memoryBytes: budget.memoryBytes)
    }

    /// Ends the helper and reaps it: the signal that ended it, if one did. With `kill`, it is
    /// killed at once; without, it reads the end of its input and exits (a second at most,
    /// then it is killed).
    @discardableResult
    private func shutDown(kill killing: Bool) -> Int32? {
        if socket >= 0 { close(socket) }
        socket = -1
        guard let process else { return nil }
        self.process = nil
        if killing { process.kill() }
        return process.end(grace: .seconds(1)).signal
    }

    /// The executable that serves `_extract`: `$DOCENT_HELPER`, this one when it serves it
    /// (`docent-engine` and every `DocentApp` run `DocentMain`, which says so; an app's
    /// helper must know its groups), or the `docent-engine` beside this executable (a
    /// benchmark's, a test bundle's).
    static let executable: String? = {
        if let set = ProcessInfo.processInfo.environment["DOCENT_HELPER"], !set.isEmpty { return set }
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        if AppDocuments.servesHelper { return own }
        let beside = ((own as NSString).deletingLastPathComponent as NSString).appendingPathComponent("docent-engine")
        return FileManager.default.isExecutableFile(atPath: beside) ? beside : nil
    }()
}

/// Helpers kept between files, one per thread using one.
package final class HelperPool: @unchecked Sendable {
    // Unchecked: `idle` is only touched under `lock`; a helper is used by one thread at a time.
    let budget: DocumentBudget
    private let lock = NSLock()
    /// Helpers waiting for a document, each with the turn it was put back at and the alarm
    /// that ends it.
    private var idle: [(helper: ExtractionHelper, turn: UInt64, alarm: OwnThreads.Alarm)] = []
    private var turns: UInt64 = 0

    /// A helper idle this long is ended: an idle helper still holds about 30 MB (its own heap
    /// and the pages of code only helpers run), through a cold index's last phase (long texts
    /// read in this process) and through a watcher's quiet hours. Starting one again costs
    /// some 50 ms. With OCR on, Tesseract's model is kept loaded longer.
    let idleLifetime: Duration

    /// A helper left holding more of its own memory than this after a document is ended (an
    /// idle one holds about 8 MB; after a 2,400-page PDF, about 60 MB stayed for good). With
    /// OCR on, the bound leaves room for Tesseract (the `tesseract` command peaks at 60 MB on a
    /// page here), whose model a helper keeps loaded from document to document: loading it
    /// again for each would cost more than the memory.
    let retireAboveBytes: Int

    /// The one pool of this process for `budget`: helpers are shared by the indexer, the
    /// preview cache and the viewer, never started once per consumer.
    package static func shared(_ budget: DocumentBudget) -> HelperPool {
        sharedPools.withLock { pools in
            if let pool = pools[budget] { return pool }
            let pool = HelperPool(budget: budget)
            pools[budget] = pool
            return pool
        }
    }

    private static let sharedPools = Locked([DocumentBudget: HelperPool]())

    package init(budget: DocumentBudget) {
        self.budget = budget
        retireAboveBytes = budget.ocr == nil ? 20 << 20 : 128 << 20
        idleLifetime = budget.ocr == nil ? .seconds(2) : .seconds(30)
        register()
    }

    /// Reads `prepared` in a helper process, handed the open file and its type: its
    /// extraction (with the preview and the text when asked, the text cut at `textBytes`,
    /// the budget's by default), nil when the file is gone, or why there is none.
    package func extract(_ prepared: PreparedFile, preview: Bool, text: Bool, textBytes: Int? = nil) -> Result<Extraction?, ExtractionFailure> {
        withHelper { $0.extract(prepared, preview: preview, text: text, textBytes: textBytes ?? budget.textBytes) }
    }

    /// A PNG picture of `path` made in a helper process, under the budgets: an image scaled
    /// to fit `size` pixels, a PDF's first page, an audio or video file's cover; nil when the
    /// file is gone, or why there is none. The PNG carries the freedesktop thumbnail keys.
    /// `page` (from 0) pictures another page of a PDF.
    package func picture(_ path: FilePath, size: Int, page: Int = 0) -> Result<Data?, ExtractionFailure> {
        withHelper { $0.picture(path, size: size, page: page) }
    }

    /// Runs `body` with an idle helper (or a new one), returned to the pool afterwards.
    private func withHelper<T>(_ body: (ExtractionHelper) -> T) -> T {
        lock.lock()
        let taken = idle.popLast()
        lock.unlock()
        if let alarm = taken?.alarm { OwnThreads.cancel(alarm) }
        let helper = taken?.helper ?? ExtractionHelper(budget: budget)
        defer {
            helper.retire(above: retireAboveBytes)
            if Self.held.withLock({ $0.held }) {
                helper.end()  // paused: nothing is kept, and no timer is left to wake the process
            } else {
                lock.lock()
                turns += 1
                let turn = turns
                // One timer per return (no loop): if the helper is still idle from this same
                // turn when it fires, it is ended; taken again, its alarm is cancelled.
                let alarm = OwnThreads.after(idleLifetime) { [weak self] in
                    self?.endIfIdle(since: turn)
                }
                idle.append((helper, turn, alarm))
                lock.unlock()
            }
        }
        return body(helper)
    }

    /// Ends the helper put back at `turn` if nothing took it since.
    private func endIfIdle(since turn: UInt64) {
        lock.lock()
        let index = idle.firstIndex { $0.turn == turn }
        let helper = index.map { idle.remove(at: $0).helper }
        lock.unlock()
        helper?.end()
    }

    /// Ends every idle helper now, and cancels their alarms.
    private func endIdle() {
        lock.lock()
        let helpers = idle
        idle.removeAll()
        lock.unlock()
        for (helper, _, alarm) in helpers {
            OwnThreads.cancel(alarm)
            helper.end()
        }
    }

    /// Every pool of this process (weakly), and whether helpers are held back.
    private static let held = Locked((held: false, pools: [WeakPool]()))
    private struct WeakPool { weak var pool: HelperPool? }

    /// Holds back helpers in every pool of this process while Docent is paused: idle helpers
    /// are ended now, and one that finishes its document is ended instead of kept. A paused
    /// watcher then holds no helper and no idle timer fires later to end one (work, however
    /// small, while paused). Released, helpers are started again as documents need them.
    package static func hold(_ hold: Bool) {
        let pools = held.withLock { state in
            state.held = hold
            state.pools.removeAll { $0.pool == nil }
            return state.pools.compactMap(\.pool)
        }
        if hold { for pool in pools { pool.endIdle() } }
    }

    /// Adds this pool to the list (and drops the pools gone since: a server makes one per
    /// request, and the list must not grow with them).
    private func register() {
        Self.held.withLock { state in
            state.pools.removeAll { $0.pool == nil }
            state.pools.append(WeakPool(pool: self))
        }
    }
}
