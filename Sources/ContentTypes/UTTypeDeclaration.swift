/// One declared content type: an identifier, its direct supertypes and its tags.
///
/// The Linux counterpart of an `UTExportedTypeDeclarations` / `UTImportedTypeDeclarations`
/// entry in an app's Info.plist.
public struct UTTypeDeclaration: Sendable, Hashable {
    /// The uniform type identifier, such as `public.python-script`.
    public var identifier: String
    /// Identifiers of the direct supertypes.
    public var conformsTo: [String]
    /// An English description, such as "Python script".
    public var description: String?
    /// MIME types, preferred first.
    public var mimeTypes: [String]
    /// Filename extensions without the dot, preferred first.
    public var filenameExtensions: [String]
    /// Further name patterns (`Dockerfile`, `meson.build`, `*.nix.in`), matched as shared-mime-info's globs.
    public var globs: [String] = []
    /// Content rules: each matches when its value is found in its offset range.
    package var magic: [MagicDeclaration] = []
    /// XML root elements that mean this type.
    package var rootXML: [XMLRoot.Element] = []
    /// Where the declaration came from.
    public var origin: Origin

    /// Where a declaration came from; later layers override earlier ones.
    public enum Origin: Sendable, Hashable, CustomStringConvertible {
        /// Docent's own declarations, shipped in `Config/content-types.yaml`.
        case docent
        /// The system's shared-mime-info database (a MIME type nobody else declared).
        case sharedMIMEInfo
        /// A user's declaration file, with the line the entry starts on.
        case user(file: String, line: Int)

        public var description: String {
            switch self {
            case .docent: "Docent"
            case .sharedMIMEInfo: "shared-mime-info"
            case .user(let file, let line): "\(file):\(line)"
            }
        }
    }

    /// Creates a declaration.
    public init(
        identifier: String, conformsTo: [String] = [], description: String? = nil,
        mimeTypes: [String] = [], filenameExtensions: [String] = [], origin: Origin = .docent
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.description = description
        self.mimeTypes = mimeTypes
        self.filenameExtensions = filenameExtensions
        self.origin = origin
    }
}

/// A declared content rule: `value` at `offset` (or anywhere up to `offset + range - 1`),
/// and, when it has `children`, one of them too.
package struct MagicDeclaration: Sendable, Hashable {
    public var priority: Int
    public var offset: Int
    public var range: Int
    public var value: [UInt8]
    public var children: [MagicDeclaration]

    public init(priority: Int = 50, offset: Int = 0, range: Int = 1, value: [UInt8], children: [MagicDeclaration] = []) {
        self.priority = priority
        self.offset = offset
        self.range = range
        self.value = value
        self.children = children
    }

    /// The rule as a matchlet.
    package var matchlet: Matchlet {
        Matchlet(offset: offset, range: range, value: value, children: children.map(\.matchlet))
    }
}

/// A problem found while loading declarations: the entry is skipped, the rest loads.
package struct DeclarationDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The file the problem is in.
    public var file: String
    /// The 1-based line of the problem, when known.
    public var line: Int?
    /// What is wrong and what to do about it.
    public var message: String

    public var description: String {
        if let line { "\(file):\(line): \(message)" } else { "\(file): \(message)" }
    }
}

extension UTTypeDeclaration {
    /// Whether `identifier` is a syntactically valid uniform type identifier:
    /// dot-separated parts of ASCII letters, digits, `-`, `_` and `+`.
    public static func isValidIdentifier(_ identifier: String) -> Bool {
        guard !identifier.isEmpty, identifier.utf8.count <= 255,
              identifier.first != ".", identifier.last != "."
        else { return false }
        return identifier.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x2B
        } && !identifier.contains("..")
    }
}
