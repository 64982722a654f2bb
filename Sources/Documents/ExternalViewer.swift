package import ContentTypes
package import DocumentModel
import FileAccess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A viewer that is a command, declared in `config.yaml` by someone who does not write
/// Swift (Recoll's filters and lesspipe are the idea):
///
/// ```yaml
/// viewers:
///   - types: [com.example.notes, text/x-org, rst]  # identifiers, MIME types or extensions
///     command: [pandoc, -t, plain]                  # argv; the file's bytes on standard input
///     output: plain-text                            # or markdown
/// ```
///
/// The command runs in the helper process, under the same budgets as the built-in readers of
/// untrusted formats, and under its own: it is killed (with anything it started) when it
/// outlasts `seconds` or writes more than `outputBytes`. A command that cannot be run, fails,
/// hangs or floods costs the file an error row with what went wrong. An argument `{path}` is
/// replaced by the file's path (standard input is then empty). Its output is the file's
/// text and, for `markdown`, its preview's blocks.
package struct ExternalViewer: Sendable, Equatable {
    package enum Output: String, Sendable, Equatable, CaseIterable {
        case plainText = "plain-text"
        case markdown
    }

    /// Content types as written: identifiers, MIME types (with a `/`) or extensions (no dot,
    /// or a leading one).
    package var types: [String]
    package var command: [String]
    package var output: Output
    /// Its own time limit (at most the document budget's).
    package var seconds: Double?
    /// The most it may write.
    package var outputBytes: Int?

    package init(types: [String], command: [String], output: Output = .plainText, seconds: Double? = nil, outputBytes: Int? = nil) {
        self.types = types
        self.command = command
        self.output = output
        self.seconds = seconds
        self.outputBytes = outputBytes
    }

    /// Its name as a document type (in `docent info`, `status`, the index): `viewer: pandoc -t plain`.
    package var name: String { "viewer: " + command.joined(separator: " ") }

    /// `types` as content types (in the shared registry, where files are classified).
    package var contentTypes: [UTType] {
        types.compactMap { written in
            if written.contains("/") { return UTType(mimeType: written, conformingTo: .data) }
            if written.hasPrefix(".") { return UTType(filenameExtension: String(written.dropFirst()), conformingTo: .data) }
            if !written.contains(".") { return UTType(filenameExtension: written, conformingTo: .data) }
            return UTType(written)
        }
    }

    /// Its viewing group, opened in the helper. `seconds` and `outputBytes` default to
    /// `defaultSeconds` (a little under the document budget, so the viewer, not the helper,
    /// is stopped) and `defaultOutputBytes` (the index's text limit).
    package func group(defaultSeconds: Double, defaultOutputBytes: Int) -> DocumentGroup {
        let limit = min(seconds ?? defaultSeconds, defaultSeconds), most = outputBytes ?? defaultOutputBytes
        let viewer = self
        return DocumentGroup(named: name, readableContentTypes: contentTypes, detail: "\(output.rawValue) \(command)") { configuration in
            let path = configuration.file.fileURL?.path ?? ""
            let usesPath = viewer.command.contains("{path}")
            let argv = viewer.command.map { $0 == "{path}" ? path : $0 }
            let input = usesPath ? Data() : (configuration.file.regularFileContents ?? Data())
            let written = try Self.run(argv, input: input, seconds: limit, outputBytes: most)
            let text = String(decoding: written, as: UTF8.self)
            var metadata = DocumentMetadata()
            metadata.fields = [MetadataField(key: "Viewer", value: .text(viewer.command.joined(separator: " ")))]
            switch viewer.output {
            case .plainText:
                return RuntimeRendition(metadata: metadata, preview: [.code(language: nil, text)], plainText: text)
            case .markdown:
                let markdown = CommonMark(text)
                metadata.title = markdown.headings().first?.text  // titled by its first heading, as Markdown files are
                return RuntimeRendition(metadata: metadata, preview: markdown.elements().0, plainText: markdown.plainText())
            }
        }.isolated()
    }

    /// Why a viewer gave no text.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Runs `argv` with `input` on standard input; its standard output, or why there is none.
    /// The command runs in a process group of its own, killed whole on a timeout or a flood.
    static func run(_ argv: [String], input: Data, seconds: Double, outputBytes: Int) throws(Failure) -> Data {
        guard let program = argv.first else { throw Failure(description: "the viewer has no command") }
        // Close-on-exec from their making: neither this process's other children nor the
        // command itself keep the ends it does not use (the command gets its three as 0, 1, 2).
        var pipes: [(read: Int32, write: Int32)] = []
        do {
            for _ in 0..<3 { pipes.append(try ChildProcess.pipe()) }
        } catch {
            for pipe in pipes { close(pipe.read); close(pipe.write) }
            throw Failure(description: "cannot make pipes: \(error)")
        }
        let (stdin, stdout, stderr) = (pipes[0], pipes[1], pipes[2])
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(argv, descriptors: [0: .duplicate(stdin.read), 1: .duplicate(stdout.write), 2: .duplicate(stderr.write)],
                                           search: true, newGroup: true)
        } catch {
            for pipe in pipes { close(pipe.read); close(pipe.write) }
            throw Failure(description: "cannot run \(program): \(error)")
        }
        for fd in [stdin.read, stdout.write, stderr.write] { close(fd) }
        // Standard input from a thread of its own (a command may read it all before writing);
        // one that stops reading gets EPIPE here, not SIGPIPE (ignored in this process).
        signal(SIGPIPE, SIG_IGN)
        let writer = stdin.write
        let fed = DispatchSemaphore(value: 0)
        Thread {
            input.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let n = write(writer, bytes.baseAddress! + offset, bytes.count - offset)
                    if n < 0, errno == EINTR { continue }
                    guard n > 0 else { break }
                    offset += n
                }
            }
            close(writer)
            fed.signal()
        }.start()

        var output = Data(), errors = Data()
        var problem: String?
        var open = [stdout.read, stderr.read]
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty, problem == nil {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                problem = "did not finish in \(Self.format(seconds)) s"
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(min(Double(Int32.max), left / .milliseconds(1) + 1))
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            for entry in fds where entry.revents != 0 {
                let n = read(entry.fd, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                if n <= 0 {
                    open.removeAll { $0 == entry.fd }
                } else if entry.fd == stdout.read {
                    output.append(contentsOf: buffer[..<n])
                    if output.count > outputBytes { problem = "wrote more than \(outputBytes) bytes" }
                } else if errors.count < 4096 {
                    errors.append(contentsOf: buffer[..<min(n, 4096 - errors.count)])
                }
            }
        }
        if problem != nil { child.kill(group: true) }
        close(stdout.read)
        close(stderr.read)
        let ending = child.reap()
        if problem != nil { _ = kill(-child.pid, SIGKILL) }  // and whatever it started that still lives
        fed.wait()
        if let problem { throw Failure(description: "\(program) \(problem)") }
        let said = String(decoding: errors, as: UTF8.self).split(separator: "\n").first.map { ": " + $0 } ?? ""
        switch ending {
        case .killed(let signal): throw Failure(description: "\(program) was killed by signal \(signal)\(said)")
        case .exited(let code) where code != 0: throw Failure(description: "\(program) exited with status \(code)\(said)")
        case .exited: return output
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}
