/// What a document tells the index and the preview about itself, beyond its text.
public struct DocumentMetadata: Sendable, Hashable, Codable {
    /// The document's title (a Markdown file's first heading, an HTML `<title>`), if it has one.
    public var title: String?
    /// Named values in a stable order (line count, dimensions, author, …).
    public var fields: [MetadataField]
    /// Problems met while reading: the file still has a document and a preview.
    public var problems: [DocumentProblem]
    /// The type of what the file holds, when that is not the file's own type: a file compressed
    /// on its own (`ls.1.gz`) holds a man page. The index files the document under it (found by
    /// `type:man`, shown as a manual page), the compression noted.
    public var innerContentType: String?
    /// The document's headings, in order (an HTML page's `<h1>`…`<h6>`, a Markdown file's
    /// `#` lines): searched as a field of their own, weighed above the text.
    public var headings: [String] = []

    /// Metadata with a title, fields and problems.
    public init(title: String? = nil, fields: [MetadataField] = [], problems: [DocumentProblem] = []) {
        self.title = title
        self.fields = fields
        self.problems = problems
    }

    private enum CodingKeys: String, CodingKey { case title, fields, problems, innerContentType, headings }

    /// Decodes what an older Docent stored too (no headings).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        fields = try container.decode([MetadataField].self, forKey: .fields)
        problems = try container.decode([DocumentProblem].self, forKey: .problems)
        innerContentType = try container.decodeIfPresent(String.self, forKey: .innerContentType)
        headings = try container.decodeIfPresent([String].self, forKey: .headings) ?? []
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
    /// The field's name, as shown (`Author`, `Pages`).
    public var key: String
    /// The field's value.
    public var value: MetadataValue

    /// A field named `key` holding `value`.
    public init(key: String, value: MetadataValue) {
        self.key = key
        self.value = value
    }
}

/// A metadata value, typed so JSON keeps numbers as numbers.
public enum MetadataValue: Sendable, Hashable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral
{
    /// Text.
    case text(String)
    /// A whole number.
    case integer(Int)
    /// A number with a fraction.
    case number(Double)
    /// Yes or no.
    case boolean(Bool)
    /// Several texts (authors, keywords).
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

    /// What kind of problem it is: a short word stored on the file's row and shown by
    /// `docent status --errors` (`truncated`, `invalid-json`). Open, like `HTTPField.Name`: a
    /// document type may name kinds of its own (`"missing-calendar"`).
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        public var description: String { rawValue }

        /// Read only in part: cut at a size limit, or the file ends early.
        public static let truncated: Kind = "truncated"
        /// The file could not be read at all (permissions, I/O, not what its type says).
        public static let unreadable: Kind = "unreadable"
        /// Damaged, but read around the damage (a PDF's rebuilt cross-references).
        public static let damaged: Kind = "damaged"
        /// A password is needed.
        public static let encrypted: Kind = "encrypted"
        /// A page could not be read (the others were).
        public static let damagedPage: Kind = "damaged-page"
        /// A chapter could not be read (the others were).
        public static let damagedChapter: Kind = "damaged-chapter"
        /// A chapter the book's contents list is missing.
        public static let missingChapter: Kind = "missing-chapter"
        /// The zip container is damaged.
        public static let damagedZip: Kind = "damaged-zip"
        /// The archive is damaged past some member.
        public static let corruptArchive: Kind = "corrupt-archive"
        /// A member of the archive is damaged.
        public static let corruptMember: Kind = "corrupt-member"
        /// The gzip stream is damaged.
        public static let corruptGzip: Kind = "corrupt-gzip"
        /// Unpacking stopped: far more out than in.
        public static let decompressionBomb: Kind = "decompression-bomb"
        /// The image ends before its header says.
        public static let truncatedImage: Kind = "truncated-image"
        /// The RTF is malformed (unbalanced groups, bad control words).
        public static let malformedRTF: Kind = "malformed-rtf"
        /// The JSON has a syntax error.
        public static let invalidJSON: Kind = "invalid-json"
        /// The XML is not well formed.
        public static let invalidXML: Kind = "invalid-xml"
        /// The CSV cannot be read as CSV.
        public static let invalidCSV: Kind = "invalid-csv"
        /// Rows have more or fewer fields than the header.
        public static let raggedRows: Kind = "ragged-rows"
        /// A table of the database could not be read.
        public static let unreadableTable: Kind = "unreadable-table"
        /// OCR failed, or stopped at its time budget.
        public static let ocr: Kind = "ocr"
        /// Optical character recognition stopped (its time or page budget).
        public static let ocrStopped: Kind = "ocr-stopped"
        /// The helper ran out of time on it (`limits.documentSeconds`).
        public static let timeBudget: Kind = "time-budget"
        /// The reader crashed, or overran its memory budget.
        public static let crashed: Kind = "crashed"
        /// No document type could open it.
        public static let unopenable: Kind = "unopenable"
        /// The helper process could not be run.
        public static let unavailable: Kind = "unavailable"
    }

    /// Whether the document was still read.
    public var severity: Severity
    /// What kind of problem, for filtering (`docent status --errors`).
    public var kind: Kind
    /// What went wrong, for a person.
    public var message: String

    /// A problem of `severity` and `kind`, described by `message`.
    public init(_ severity: Severity, kind: Kind, _ message: String) {
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
