import Foundation
import Testing

/// The map kept true: what each module imports, what Package.swift declares for it, and what
/// docs/ARCHITECTURE.md's module table says it imports are one and the same set.
@Suite("The architecture map")
struct ArchitectureMapTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Modules of the toolchain and the system, which no manifest declares.
    static let systemModules: Set<String> = ["Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Darwin",
                                             "Dispatch", "Synchronization", "Testing", "XCTest", "_Concurrency", "os"]

    /// Declared without being imported, on purpose.
    static let declaredForClients: [String: Set<String>] = [
        // An app that depends on the DocentKit product writes `import UniformTypeIdentifiers`.
        "DocentKit": ["UniformTypeIdentifiers"],
    ]

    @Test("Every module declares in Package.swift exactly what its sources import")
    func manifestMatchesImports() throws {
        let targets = try Manifest(Self.root.appendingPathComponent("Package.swift"))
        #expect(targets.count > 30, "parsed only \(targets.count) targets")
        for target in targets.values where !target.isSystemLibrary {
            // A C module's dependencies give it headers to include: its row in the table is checked below.
            guard try !Self.swiftFiles(of: target).isEmpty else { continue }
            let imported = try Self.imports(of: target)
            let declared = target.dependencies.subtracting(Self.declaredForClients[target.name] ?? [])
            #expect(imported.subtracting(declared).isEmpty,
                    "\(target.name) imports \(imported.subtracting(declared).sorted()) without declaring them in Package.swift")
            #expect(declared.subtracting(imported).isEmpty,
                    "\(target.name) declares \(declared.subtracting(imported).sorted()) in Package.swift and never imports them")
        }
    }

    @Test("docs/ARCHITECTURE.md's module table lists every Swift module with what it imports")
    func tableMatchesImports() throws {
        let targets = try Manifest(Self.root.appendingPathComponent("Package.swift"))
        let table = try Self.moduleTable()
        #expect(table.count > 15, "read only \(table.count) rows of the module table")
        for target in targets.values where target.kind != "test" && target.path.hasPrefix("Sources/") {
            let isC = try Self.swiftFiles(of: target).isEmpty
            guard let row = table[target.name] else {
                #expect(isC, "\(target.name) has no row in docs/ARCHITECTURE.md's module table")
                continue
            }
            // A C module's row names what Package.swift declares for it (its headers' sources).
            let expected = isC ? target.dependencies : try Self.imports(of: target)
            #expect(row == expected, "ARCHITECTURE.md says \(target.name) imports \(row.sorted()); it imports \(expected.sorted())")
        }
        for name in table.keys { #expect(targets[name] != nil, "ARCHITECTURE.md has a row for \(name), which Package.swift does not build") }
    }

    // MARK: - Reading the sources

    static func swiftFiles(of target: Manifest.Target) throws -> [URL] {
        let directory = root.appendingPathComponent(target.path)
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return [] }
        // A DocC catalog's code files (a tutorial's steps) are documentation, never compiled.
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" && !$0.path.contains(".docc/") }
    }

    /// The modules a target's Swift files import, less the system's. Text inside multi-line
    /// string literals (Python scripts the tests run) is not code.
    static func imports(of target: Manifest.Target) throws -> Set<String> {
        var found: Set<String> = []
        for file in try swiftFiles(of: target) {
            var inLiteral = false
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inLiteral.toggle(); continue }
                guard !inLiteral, let module = importedModule(line) else { continue }
                if !systemModules.contains(module) { found.insert(module) }
            }
        }
        return found
    }

    /// `import X`, `@_exported import X`, `public import X`, `import struct X.Y`: X.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(separator: " ").map(String.init)
        while let first = words.first, first.hasPrefix("@") || ["public", "internal", "package", "private", "fileprivate"].contains(first) {
            words.removeFirst()
        }
        guard words.first == "import", words.count >= 2 else { return nil }
        let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
        let name = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
        return String(name.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }

    /// The module table: each row's module and the modules in its last cell (backticks and
    /// parenthesised remarks dropped; "—" for none).
    static func moduleTable() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        guard let start = text.range(of: "## Modules") else { return [:] }
        var rows: [String: Set<String>] = [:]
        for line in text[start.upperBound...].split(separator: "\n").drop(while: { !$0.hasPrefix("|") }).prefix(while: { $0.hasPrefix("|") }) {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].hasPrefix("`") else { continue }
            var last = cells[cells.count - 2]
            while let open = last.firstIndex(of: "("), let close = last[open...].firstIndex(of: ")") { last.removeSubrange(open...close) }
            let names = last.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = Set(names.filter { !$0.isEmpty && $0 != "—" })
        }
        return rows
    }
}

/// The targets of Package.swift, read from its text: each `.target(…)`, `.executableTarget(…)`,
/// `.testTarget(…)` and `.systemLibrary(…)` with a literal name, and the modules of its
/// `dependencies:` (target names, and products by name: a product's module bears its name here).
struct Manifest {
    struct Target {
        var name: String
        var kind: String
        var path: String
        var dependencies: Set<String>
        var isSystemLibrary: Bool { kind == "systemLibrary" }
    }

    private var targets: [String: Target] = [:]
    var count: Int { targets.count }
    var values: Dictionary<String, Target>.Values { targets.values }
    subscript(name: String) -> Target? { targets[name] }

    init(_ file: URL) throws {
        // Whole-line comments hold quotes of their own.
        let text = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        var rest = text[...]
        while let call = rest.range(of: #"\.(target|executableTarget|testTarget|systemLibrary)\("#, options: .regularExpression) {
            let kind = String(text[text.index(after: call.lowerBound)..<text.index(before: call.upperBound)])
            let body = Self.balanced(text, from: text.index(before: call.upperBound), open: "(", close: ")")
            rest = text[body.endIndex...]
            guard let name = Self.string(after: "name:", in: body) else { continue }  // the fuzz targets, named in a loop
            let dependencies = body.range(of: "dependencies:").map { found -> Substring in
                Self.balanced(text, from: body[found.upperBound...].firstIndex(of: "[")!, open: "[", close: "]")
            } ?? ""
            var modules: Set<String> = [], plain = "", cursor = dependencies
            while let product = cursor.range(of: ".product(") {
                let call = Self.balanced(text, from: text.index(before: product.upperBound), open: "(", close: ")")
                if let module = Self.string(after: "name:", in: call) { modules.insert(module) }
                plain += cursor[..<product.lowerBound]
                cursor = text[call.endIndex..<dependencies.endIndex]
            }
            modules.formUnion(Self.strings(in: (plain + cursor)[...]))
            let tests = kind == "testTarget"
            let path = Self.string(after: "path:", in: body) ?? (tests ? "Tests/" : "Sources/") + name
            targets[name] = Target(name: name, kind: tests ? "test" : kind, path: path, dependencies: modules)
        }
    }

    /// From an opening bracket at `start` to its match, inclusive.
    private static func balanced(_ text: String, from start: String.Index, open: Character, close: Character) -> Substring {
        var depth = 0, index = start, inString = false
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" { inString.toggle() }
            if !inString {
                if character == open { depth += 1 }
                if character == close { depth -= 1; if depth == 0 { return text[start...index] } }
            }
            index = text.index(after: index)
        }
        return text[start...]
    }

    private static func string(after label: String, in text: Substring) -> String? {
        guard let found = text.range(of: label) else { return nil }
        let after = text[found.upperBound...].drop { $0 == " " }
        guard after.first == "\"" else { return nil }
        return String(after.dropFirst().prefix { $0 != "\"" })
    }

    private static func strings(in text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}
