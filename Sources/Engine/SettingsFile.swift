import Foundation
import Yams

/// `config.yaml` (or the shipped defaults) as written, decoded with Yams' `Decodable` support
/// before anything is applied: every key optional, unknown keys refused, and every error
/// naming the file, the key and the line.
struct SettingsFile: Decodable {
    var roots: [String]?
    var exclude: [String]?
    var excludeDefaults: Bool?
    var markers: [String]?
    var limits: Limits?
    var viewers: [Viewer]?
    var ocr: OCR?
    var index: String?
    var host: String?
    var poll: Poll?
    var battery: String?
    var opener: [String]?

    struct Limits: Decodable {
        var readBytes: Double?, textBytes: Double?, documentReadBytes: Double?, documentSeconds: Double?, documentMemoryBytes: Double?
    }

    struct Poll: Decodable {
        var interval: Double?
        var paths: [String]?
    }

    struct OCR: Decodable {
        var enabled: Bool
        var languages: [String]?
    }

    struct Viewer: Decodable {
        var types: [String]
        var command: [String]
        var output: String?
        var seconds: Double?
        var outputBytes: Double?
    }

    /// The keys each mapping may hold, by its place (`""` the top; `viewers[]` each viewer).
    static let keys: [String: [String]] = [
        "": ["roots", "exclude", "excludeDefaults", "markers", "limits", "viewers", "ocr", "index", "host", "poll", "battery", "opener"],
        "limits": ["readBytes", "textBytes", "documentReadBytes", "documentSeconds", "documentMemoryBytes"],
        "poll": ["interval", "paths"],
        "ocr": ["enabled", "languages"],
        "viewers[]": ["types", "command", "output", "seconds", "outputBytes"],
    ]

    /// The file decoded, with its YAML tree (for the lines of later errors); nil when empty.
    static func decode(_ yaml: String, file: String) throws(SettingsError) -> (SettingsFile, Node)? {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw SettingsError(file: file, line: Self.line(of: error), message: "not valid YAML: \(error)")
        } catch {
            throw SettingsError(file: file, message: "not valid YAML: \(error)")
        }
        guard let root else { return nil }
        guard root.mapping != nil else { throw SettingsError(file: file, line: root.mark?.line, message: "expected a mapping of settings") }
        try checkKeys(root, place: "", path: "", file: file)
        do {
            return (try YAMLDecoder().decode(SettingsFile.self, from: root), root)
        } catch let error as DecodingError {
            throw settingsError(error, root: root, file: file)
        } catch {
            throw SettingsError(file: file, message: "\(error)")
        }
    }

    /// Refuses a key no setting has, at its line.
    private static func checkKeys(_ node: Node, place: String, path: String, file: String) throws(SettingsError) {
        guard let mapping = node.mapping, let known = keys[place] else { return }
        for (key, value) in mapping {
            guard let name = key.string else { continue }
            guard known.contains(name) else {
                let message = place.isEmpty ? "unknown setting `\(name)`" : "unknown key `\(name)` in `\(path)`"
                throw SettingsError(file: file, line: key.mark?.line, message: message + " (known: \(known.joined(separator: ", ")))")
            }
            if place.isEmpty, name == "viewers", let items = value.sequence {
                for (i, item) in items.enumerated() { try checkKeys(item, place: "viewers[]", path: "viewers[\(i)]", file: file) }
            } else if place.isEmpty {
                try checkKeys(value, place: name, path: name, file: file)
            }
        }
    }

    /// A decoding error as a sentence about the key, at its line.
    private static func settingsError(_ error: DecodingError, root: Node, file: String) -> SettingsError {
        var path: [any CodingKey]
        let message: String
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            path = context.codingPath
            message = "must be " + expectation(type)
        case .keyNotFound(let key, let context):
            path = context.codingPath
            message = "needs `\(key.stringValue)`"
        case .dataCorrupted(let context):
            path = context.codingPath
            message = context.debugDescription
        @unknown default:
            return SettingsError(file: file, message: "\(error)")
        }
        let components = path.map { $0.intValue.map(String.init) ?? $0.stringValue }
        let name = Self.name(components)
        return SettingsError(file: file, line: line(of: components, in: root), message: name.isEmpty ? message : "`\(name)` \(message)")
    }

    /// What a setting of `type` must be, in words.
    private static func expectation(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Bool.Type: "true or false"
        case is Double.Type, is Int.Type: "a number"
        case is [String].Type, is [Viewer].Type, is Node.Sequence.Type: "a list"
        case is Node.Mapping.Type: "a mapping"
        case is Node.Scalar.Type: "a single value (text, a number, true or false)"
        default: String(describing: type).hasPrefix("Array") ? "a list" : "a mapping"
        }
    }

    /// `viewers[0].types` for the components `viewers`, `0`, `types`.
    static func name(_ components: [String]) -> String {
        components.reduce("") { name, component in
            Int(component) != nil ? name + "[\(component)]" : (name.isEmpty ? component : name + "." + component)
        }
    }

    /// The line of the deepest node on `components` (keys, and indexes into lists), 1-based.
    static func line(of components: [String], in root: Node) -> Int? {
        var node = root
        var line = root.mark?.line
        for component in components {
            let next: Node?
            if let index = Int(component), let items = node.sequence {
                next = items.indices.contains(index) ? items[index] : nil
            } else {
                next = node[component]
            }
            guard let next else { break }
            node = next
            line = next.mark?.line ?? line
        }
        return line
    }

    /// The line libyaml stopped at.
    private static func line(of error: YamlError) -> Int? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): mark.line
        default: nil
        }
    }
}
