import Foundation
import Testing
import TestSupport

/// The man page in docs/ and the completion scripts stay true to the commands: every
/// command and option the command line knows is in them.
@Suite("The man page and shell completions cover every command and option")
struct ManualAndCompletionTests {
    /// Each command (with the root as "") and its option names, from the command line's own
    /// description of itself.
    func commandsAndOptions() throws -> [String: [String]] {
        let engine = Docent.binary.deletingLastPathComponent().appendingPathComponent("docent-engine")
        let (status, output) = try runTool(engine.path, ["--experimental-dump-help"])
        #expect(status == 0)
        let root = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        var found: [String: [String]] = [:]
        func walk(_ command: [String: Any], _ name: String) {
            let arguments = command["arguments"] as? [[String: Any]] ?? []
            found[name] = arguments.compactMap { argument in
                guard argument["kind"] as? String != "positional", argument["shouldDisplay"] as? Bool != false else { return nil }
                let names = argument["names"] as? [[String: Any]] ?? []
                return names.first { $0["kind"] as? String == "long" }?["name"] as? String
            }.filter { $0 != "help" && $0 != "version" }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                if let subName = sub["commandName"] as? String, subName != "help" { walk(sub, name.isEmpty ? subName : name + " " + subName) }
            }
        }
        walk(try #require(root["command"] as? [String: Any]), "")
        return found
    }

    @Test("docent --version names the release and the commit the executable was built from")
    func version() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let result = try Docent.run(["--version"])
        #expect(result.status == 0)
        let line = result.stdout.trimmingCharacters(in: .newlines)
        #expect(line.wholeMatch(of: /[0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}|unknown)\)/) != nil, "\(line)")
        // The release is CHANGELOG.md's newest.
        let changelog = try String(contentsOf: repository.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.firstMatch(of: /\n## ([0-9]+\.[0-9]+\.[0-9]+)/).map { String($0.output.1) }
        #expect(newest != nil && line.hasPrefix(newest! + " "), "\(line) against CHANGELOG.md's \(newest ?? "nothing")")
        // Built in a git checkout: its commit (the build runs again when HEAD moves).
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        git.arguments = ["-C", repository.path, "rev-parse", "--short=12", "HEAD"]
        let pipe = Pipe()
        (git.standardOutput, git.standardError) = (pipe, FileHandle.nullDevice)
        guard (try? git.run()) != nil else { return }
        let head = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .newlines)
        git.waitUntilExit()
        if git.terminationStatus == 0 { #expect(line.hasSuffix("(commit \(head))"), "\(line) against HEAD \(head)") }
    }

    @Test("docs/docent.1 names every command and option (make it again as docs/Install.md says)")
    func manualIsCurrent() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: repository.appendingPathComponent("docs/docent.1"), encoding: .utf8)
        let commands = try commandsAndOptions()
        #expect(commands.count >= 8, "\(commands.keys)")
        // ".It Fl v , -verbose", ".It Fl -index Ar index": the long names the page lists.
        let listed = Set(page.split(separator: "\n").filter { $0.hasPrefix(".It Fl") }.flatMap { line in
            line.split(separator: " ").filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) }
        })
        for (command, options) in commands {
            // A subcommand ("desktop install") is listed by its own name, under its command's.
            if let name = command.split(separator: " ").last { #expect(page.contains(".It Em \(name)\n"), "docs/docent.1 lacks the command \(command)") }
            for option in options {
                #expect(listed.contains(option), "docs/docent.1 lacks \(command) --\(option)")
            }
        }
    }

    @Test("Completion scripts for bash, zsh and fish: valid for their shell, every command in each")
    func completions() throws {
        let commands = try commandsAndOptions().keys.filter { !$0.isEmpty && !$0.contains(" ") }
        for shell in ["bash", "zsh", "fish"] {
            let r = try Docent.run(["--generate-completion-script", shell])
            #expect(r.status == 0, "\(shell): \(r.stderr)")
            for command in commands { #expect(r.stdout.contains(command), "\(shell) completion lacks \(command)") }
            if shell == "bash" {
                let dir = try TemporaryDirectory()
                let script = try dir.write("docent.bash", r.stdout)
                #expect(try runTool("/bin/bash", ["-n", script]).status == 0, "bash -n rejects the script")
            }
        }
        // Completing `docent ` in bash offers the commands.
        let dir = try TemporaryDirectory()
        let script = try dir.write("docent.bash", try Docent.run(["--generate-completion-script", "bash"]).stdout)
        let probe = """
            source \(script)
            COMP_WORDS=(docent ""); COMP_CWORD=1; COMP_LINE="docent "; COMP_POINT=${#COMP_LINE}
            _docent; printf '%s\\n' "${COMPREPLY[@]}"
            """
        let (status, output) = try runTool("/bin/bash", ["-O", "extglob", "-c", probe])
        let offered = Set(String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init))
        #expect(status == 0)
        #expect(Set(commands).isSubset(of: offered), "offered \(offered.sorted())")
    }
}
