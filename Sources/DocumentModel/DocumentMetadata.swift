/// What a document tells the index and the preview about itself, beyond its text.
public struct DocumentMetadata: Sendable, Hashable, Codable {
    /// The document's title (a Markdown file's first heading, an HTML `<title>`), if it has one.
    public var title: String?
    /// Named values in a stable order (line count, dimensions, author, …).
    public var fields: [MetadataField]
    /// Problems met while reading: the file still has a document and a preview.
    public var problems: [DocumentProblem]

    public init(title: String? = nil, fields: [MetadataField] = [], problems: [DocumentProblem] = []) {
        self.title = title
        self.fields = fields
        self.problems = problems
    }

    /// The value of the field named `key`.
    public subscript(key: String) -> MetadataValue? { fields.first { $0.key == key }?.value }

    /// Appends a field; a nil value is skipped.
    public mutating func append(_ key: String, _ value: MetadataValue?) {
        if let value { fields.append(MetadataField(key: key, value: value)) }
    }
}

/// One named metadata value.
public struct MetadataField: Sendable, Hashable, Codable {
    public var key: String
    public var value: MetadataValue

    public init(key: String, value: MetadataValue) {
        self.key = key
        self.value = value
    }
}

/// A metadata value, typed so JSON keeps numbers as numbers.
public enum MetadataValue: Sendable, Hashable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral
{
    case text(String)
    case integer(Int)
    case number(Double)
    case boolean(Bool)
    case list([String])

    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }

    /// Encodes as the bare JSON value: a string, number, boolean or array of strings.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .text(let s): try c.encode(s)
        case .integer(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .boolean(let b): try c.encode(b)
        case .list(let l): try c.encode(l)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .boolean(b) }
        else if let i = try? c.decode(Int.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let l = try? c.decode([String].self) { self = .list(l) }
        else { self = .text(try c.decode(String.self)) }
    }

    public var description: String {
        switch self {
        case .text(let s): s
        case .integer(let i): String(i)
        case .number(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .boolean(let b): b ? "yes" : "no"
        case .list(let items): items.joined(separator: ", ")
        }
    }
}

/// A problem met while reading a document.
public struct DocumentProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How bad it is.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// The document is incomplete or partly wrong (truncated at the read limit, ragged rows).
        case warning
        /// The document is invalid or could not be read as its type.
        case error
    }

    public var severity: Severity
    /// A short machine-readable kind (`truncated`, `invalid-json`, `unreadable`).
    public var kind: String
    /// What went wrong, for a person.
    public var message: String

    public init(_ severity: Severity, kind: String, _ message: String) {
        self.severity = severity
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(severity): \(message)" }
}

/// A document that describes itself to the index and the preview: a title, fields, problems.
///
/// Optional: a document type without it gets empty metadata.
public protocol DocumentMetadataProviding {
    /// The document's metadata.
    var metadata: DocumentMetadata { get }
}
