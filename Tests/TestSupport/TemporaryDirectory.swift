public import Foundation

/// A fresh directory for one test, removed when the value is released.
public final class TemporaryDirectory {
    public let path: String

    public init() throws {
        let template = NSTemporaryDirectory() + "docent-test-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { throw CocoaError(.fileWriteUnknown) }
        path = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    public func write(_ relative: String, _ text: String) throws -> String {
        let full = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: false, encoding: .utf8)
        return full
    }
}

extension TemporaryDirectory {
    /// Writes `bytes` to `relative` (creating directories) and returns the full path.
    @discardableResult
    public func write(_ relative: String, bytes: some Sequence<UInt8>) throws -> String {
        let full = path + "/" + relative
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }
}

/// Runs a system tool (`gzip`, `cjpeg`, `file`) and returns its status and output.
public func runTool(_ executable: String, _ arguments: [String], stdin: Data? = nil) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    let input = Pipe()
    if stdin != nil { process.standardInput = input }
    try process.run()
    if let stdin {
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
    }
    let output = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

/// How much longer a deadline may be: 5 under a sanitizer (`swift test --sanitize=…`, which
/// makes every Docent process 2 to 15 times slower), else 1.
public let deadlineFactor: Double = dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil ? 5 : 1

/// Reads two pipes to their ends at once (the second on a thread of its own): a child that
/// fills one pipe while the test waits for the other's end would otherwise wait forever.
public func readToEnd(_ first: FileHandle, _ second: FileHandle) -> (Data, Data) {
    final class Output: @unchecked Sendable {  // written by the thread before `done` is signalled
        var data = Data()
    }
    let secondOutput = Output()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        secondOutput.data = second.readDataToEndOfFile()
        done.signal()
    }
    let firstData = first.readDataToEndOfFile()
    done.wait()
    return (firstData, secondOutput.data)
}
