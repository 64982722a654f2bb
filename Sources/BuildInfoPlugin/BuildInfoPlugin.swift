import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` for the target it is applied to: the commit the package was built
/// from (`git rev-parse`), for `docent --version`. Run again when the checked-out commit moves
/// (its inputs are `.git/HEAD` and the ref it names); "unknown" outside a git checkout.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BuildInfo.swift")
        let git = package.appendingPathComponent(".git")
        var inputs: [URL] = []
        let head = git.appendingPathComponent("HEAD")
        if let text = try? String(contentsOf: head, encoding: .utf8) {
            inputs.append(head)
            if text.hasPrefix("ref: ") {
                let ref = git.appendingPathComponent(text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines))
                if FileManager.default.fileExists(atPath: ref.path) { inputs.append(ref) }
            }
            let packed = git.appendingPathComponent("packed-refs")
            if FileManager.default.fileExists(atPath: packed.path) { inputs.append(packed) }
        }
        let script = """
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || commit=unknown
            printf '/// Written by the BuildInfo plugin.\\npackage enum BuildInfo {\\n    /// The commit built from.\\n    package static let commit = "%s"\\n}\\n' "$commit" > "$2"
            """
        return [.buildCommand(displayName: "Recording the commit built from", executable: URL(fileURLWithPath: "/bin/sh"),
                              arguments: ["-c", script, "sh", package.path, output.path], inputFiles: inputs, outputFiles: [output])]
    }
}
