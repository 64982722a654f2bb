import FileAccess
import Foundation
import Yams

/// Reads declaration files: a YAML list of entries with `identifier`, `conformsTo`,
/// `description`, `mimeTypes` and `extensions`, and optionally `globs` (name patterns),
/// `magic` (content rules: `{string: "@startuml", offset: "0:64", priority: 60}`, or
/// `bytes:` in hex) and `rootXML` (`{namespace: URI, localName: name}`).
///
/// A malformed entry is reported with its file and line and skipped; the rest loads.
/// A file that is not YAML at all is one diagnostic and no declarations.
package enum DeclarationFile {
    /// The keys an entry may have.
    static let knownKeys: Set<String> = [
        "identifier", "conformsTo", "description", "mimeTypes", "extensions", "globs", "magic", "rootXML",
    ]

    /// Parses `text`, naming `file` in diagnostics; `userFile` marks entries as the user's.
    package static func parse(
        _ text: String, file: String, isUserFile: Bool
    ) -> (declarations: [UTTypeDeclaration], diagnostics: [DeclarationDiagnostic]) {
        var diagnostics: [DeclarationDiagnostic] = []
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            let (line, problem) = lineAndProblem(of: error)
            return ([], [DeclarationDiagnostic(file: file, line: line, message: "not valid YAML: \(problem)")])
        } catch {
            return ([], [DeclarationDiagnostic(file: file, line: nil, message: "not valid YAML: \(error)")])
        }
        guard let root else { return ([], []) }  // an empty file declares nothing
        guard let entries = root.sequence else {
            return ([], [DeclarationDiagnostic(
                file: file, line: root.mark?.line,
                message: "expected a list of type declarations (lines starting with '- identifier: ...')")])
        }
        var declarations: [UTTypeDeclaration] = []
        for entry in entries {
            let line = entry.mark?.line
            switch declaration(from: entry) {
            case .success(var declaration):
                if isUserFile { declaration.origin = .user(file: file, line: line ?? 0) }
                declarations.append(declaration)
            case .failure(let problem):
                diagnostics.append(DeclarationDiagnostic(file: file, line: problem.line ?? line, message: problem.message + "; entry skipped"))
            }
        }
        return (declarations, diagnostics)
    }

    /// Reads and parses the file at `path`; a missing file declares nothing.
    package static func load(path: String, isUserFile: Bool) -> (declarations: [UTTypeDeclaration], diagnostics: [DeclarationDiagnostic]) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], []) }
        guard let data = WholeFile.read(path) else {
            return ([], [DeclarationDiagnostic(file: path, line: nil, message: "cannot be read; check its permissions")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return ([], [DeclarationDiagnostic(file: path, line: nil, message: "is not UTF-8 text")])
        }
        return parse(text, file: path, isUserFile: isUserFile)
    }

    private struct Problem: Error {
        var line: Int?
        var message: String
    }

    private static func declaration(from node: Node) -> Result<UTTypeDeclaration, Problem> {
        guard let mapping = node.mapping else {
            return .failure(Problem(message: "a declaration must be a mapping with at least 'identifier'"))
        }
        var fields: [String: Node] = [:]
        for (key, value) in mapping {
            guard let name = key.string else {
                return .failure(Problem(line: key.mark?.line, message: "keys must be strings"))
            }
            guard knownKeys.contains(name) else {
                return .failure(Problem(
                    line: key.mark?.line,
                    message: "unknown key '\(name)' (expected one of: \(knownKeys.sorted().joined(separator: ", ")))"))
            }
            fields[name] = value
        }
        guard let idNode = fields["identifier"] else {
            return .failure(Problem(message: "missing 'identifier'"))
        }
        guard let identifier = idNode.scalar?.string, UTTypeDeclaration.isValidIdentifier(identifier) else {
            return .failure(Problem(
                line: idNode.mark?.line,
                message: "'identifier' must be a reverse-DNS name such as com.example.notes"))
        }
        func list(_ key: String, validate: (String) -> Bool, expected: String) -> Result<[String], Problem> {
            guard let value = fields[key] else { return .success([]) }
            let items: [Node]
            if let sequence = value.sequence { items = Array(sequence) }
            else if value.scalar != nil { items = [value] }
            else { return .failure(Problem(line: value.mark?.line, message: "'\(key)' must be a list of \(expected)")) }
            var strings: [String] = []
            for item in items {
                guard let s = item.scalar?.string, validate(s) else {
                    return .failure(Problem(line: item.mark?.line ?? value.mark?.line, message: "'\(key)' must be a list of \(expected)"))
                }
                strings.append(s)
            }
            return .success(strings)
        }
        do {
            let conformsTo = try list("conformsTo", validate: UTTypeDeclaration.isValidIdentifier, expected: "type identifiers").get()
            let mimeTypes = try list("mimeTypes", validate: MIMEType.isValid, expected: "MIME types such as text/x-notes").get()
                .map { $0.lowercased() }
            let extensions = try list("extensions", validate: { !$0.isEmpty && !$0.contains("/") && !$0.hasPrefix(".") },
                                      expected: "filename extensions without the dot").get()
            let globs = try list("globs", validate: { !$0.isEmpty && !$0.contains("/") },
                                 expected: "file name patterns such as Dockerfile or *.nix").get()
            let magic = try magicRules(fields["magic"])
            let rootXML = try roots(fields["rootXML"])
            var description: String?
            if let d = fields["description"] {
                guard let s = d.scalar?.string else {
                    return .failure(Problem(line: d.mark?.line, message: "'description' must be text"))
                }
                description = s
            }
            var declaration = UTTypeDeclaration(
                identifier: identifier, conformsTo: conformsTo, description: description,
                mimeTypes: mimeTypes, filenameExtensions: extensions)
            declaration.globs = globs
            declaration.magic = magic
            declaration.rootXML = rootXML
            return .success(declaration)
        } catch {
            return .failure(error)
        }
    }

    /// `magic:` — a list of `{string: TEXT | bytes: HEX, offset: N | "N:M", priority: P, and: [...]}`;
    /// `and` lists further rules of which one must hold too.
    private static func magicRules(_ node: Node?, depth: Int = 0) throws(Problem) -> [MagicDeclaration] {
        guard let node else { return [] }
        let expected = "'magic' must be a list of {string: TEXT or bytes: HEX, offset: N or \"N:M\", priority: 0-100, and: [...]}"
        guard let items = node.sequence else { throw Problem(line: node.mark?.line, message: expected) }
        var rules: [MagicDeclaration] = []
        for item in items {
            guard let mapping = item.mapping else { throw Problem(line: item.mark?.line, message: expected) }
            var value: [UInt8]?, offset = 0, range = 1, priority = 50
            var children: [MagicDeclaration] = []
            for (key, v) in mapping {
                switch key.string {
                case "and":
                    guard depth < 8 else { throw Problem(line: v.mark?.line, message: "'and' nests too deep") }
                    children = try magicRules(v, depth: depth + 1)
                case "string": value = v.scalar.map { Array($0.string.utf8) }
                case "bytes":
                    guard let hex = v.scalar?.string.filter({ !$0.isWhitespace }), hex.count % 2 == 0 else {
                        throw Problem(line: v.mark?.line, message: "'bytes' must be hexadecimal digits, two per byte")
                    }
                    var bytes: [UInt8] = []
                    var index = hex.startIndex
                    while index < hex.endIndex {
                        let next = hex.index(index, offsetBy: 2)
                        guard let byte = UInt8(hex[index..<next], radix: 16) else {
                            throw Problem(line: v.mark?.line, message: "'bytes' must be hexadecimal digits, two per byte")
                        }
                        bytes.append(byte)
                        index = next
                    }
                    value = bytes
                case "offset":
                    let parts = (v.scalar?.string ?? "").split(separator: ":")
                    guard (1...2).contains(parts.count), let start = Int(parts[0]), start >= 0,
                          let end = parts.count == 2 ? Int(parts[1]) : start, end >= start, end < 1 << 20 else {
                        throw Problem(line: v.mark?.line, message: "'offset' must be a number or a range such as \"0:256\"")
                    }
                    offset = start
                    range = end - start + 1
                case "priority":
                    guard let p = v.scalar.flatMap({ Int($0.string) }), (0...100).contains(p) else {
                        throw Problem(line: v.mark?.line, message: "'priority' must be a number from 0 to 100")
                    }
                    priority = p
                default:
                    throw Problem(line: key.mark?.line, message: expected)
                }
            }
            guard let value, !value.isEmpty, value.count <= 1024 else { throw Problem(line: item.mark?.line, message: expected) }
            rules.append(MagicDeclaration(priority: priority, offset: offset, range: range, value: value, children: children))
        }
        return rules
    }

    /// `rootXML:` — a list of `{namespace: URI, localName: NAME}` (namespace may be empty).
    private static func roots(_ node: Node?) throws(Problem) -> [XMLRoot.Element] {
        guard let node else { return [] }
        let expected = "'rootXML' must be a list of {namespace: URI, localName: NAME}"
        guard let items = node.sequence else { throw Problem(line: node.mark?.line, message: expected) }
        return try items.map { item throws(Problem) in
            guard let mapping = item.mapping, let local = mapping["localName"]?.string, !local.isEmpty else {
                throw Problem(line: item.mark?.line, message: expected)
            }
            return XMLRoot.Element(namespace: mapping["namespace"]?.string ?? "", localName: local)
        }
    }

    private static func lineAndProblem(of error: YamlError) -> (Int?, String) {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
             .composer(_, let problem, let mark, _):
            return (mark.line, problem)
        default:
            return (nil, "\(error)")
        }
    }
}
