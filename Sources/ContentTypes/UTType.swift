/// A uniform type identifier with its conformance and tags, modelled on Apple's
/// `UniformTypeIdentifiers.UTType`.
///
/// Two types are equal when their identifiers are equal (ignoring case). Queries go to the
/// registry the type came from; the static constants and the failable initializers use
/// `UTTypeRegistry.shared`.
public struct UTType: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The type's identifier, such as `public.python-script`.
    public let identifier: String
    /// The registry the type's conformance and tags come from.
    public let registry: UTTypeRegistry
    /// For a dynamic type: the tag it was made from and its one supertype.
    let dynamic: Dynamic?

    /// What an undeclared type knows of itself: the tag it was made from (none for an
    /// exported or imported identifier nobody declared) and its one supertype.
    struct Dynamic: Sendable, Hashable {
        var tagClass: UTTagClass?
        var tag: String
        var supertype: String
    }

    init(declared identifier: String, registry: UTTypeRegistry) {
        self.identifier = identifier
        self.registry = registry
        self.dynamic = nil
    }

    init(dynamicTag tag: String, tagClass: UTTagClass, conformingTo supertype: String, registry: UTTypeRegistry) {
        let encoded = tag.unicodeScalars.map { s -> String in
            switch s {
            case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "+": String(s)
            default: "_"
            }
        }.joined()
        let kind = tagClass == .mimeType ? "mime" : "ext"  // "/" becomes "_" above: dyn.mime.image_x-foo
        self.identifier = "dyn.\(kind).\(encoded)"
        self.registry = registry
        self.dynamic = Dynamic(tagClass: tagClass, tag: tag, supertype: supertype)
    }

    init(dynamicMIMEType mime: String, registry: UTTypeRegistry) {
        let supertype = UTTypeRegistry.mediaSupertype(of: mime) ?? "public.data"
        self.init(dynamicTag: mime, tagClass: .mimeType, conformingTo: supertype, registry: registry)
    }

    /// The declared type with `identifier` in `registry`, or a dynamic one when the identifier
    /// is valid but undeclared (as Apple's `UTType(_:)` does); nil when it is not an identifier.
    public init?(_ identifier: String, registry: UTTypeRegistry = .shared) {
        if let declared = registry.type(identifier: identifier) {
            self = declared
        } else if UTTypeDeclaration.isValidIdentifier(identifier) {
            self.identifier = identifier
            self.registry = registry
            self.dynamic = nil
        } else {
            return nil
        }
    }

    /// The type your program exports with `identifier` (Apple's `UTType(exportedAs:conformingTo:)`):
    /// its declaration belongs outside Swift — in a `content-types.yaml` (the user's, or
    /// one an app ships) as Apple's goes in `Info.plist`. When no declaration is found, the
    /// type keeps `identifier` and conforms to `parentType` as written, so a viewing type
    /// still matches files classified as it (and, with a parent, their supertypes' filters).
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.init(undeclared: identifier, conformingTo: parentType)
    }

    /// A type another party owns, which your program reads (Apple's
    /// `UTType(importedAs:conformingTo:)`): the declared one, or, undeclared, as for
    /// `init(exportedAs:conformingTo:)`.
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.init(undeclared: identifier, conformingTo: parentType)
    }

    private init(undeclared identifier: String, conformingTo parentType: UTType?) {
        let registry = parentType?.registry ?? .shared
        if let declared = registry.type(identifier: identifier) {
            self = declared
            return
        }
        self.identifier = identifier
        self.registry = registry
        self.dynamic = parentType.map { Dynamic(tagClass: nil, tag: identifier, supertype: $0.identifier) }
    }

    /// The type for `filenameExtension` that conforms to `supertype`: the strongest declared
    /// claim, or a dynamic type conforming to `supertype` when no declared type fits.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        let ext = filenameExtension.hasPrefix(".") ? String(filenameExtension.dropFirst()) : filenameExtension
        guard !ext.isEmpty, !ext.contains("/") else { return nil }
        let registry = supertype.registry
        if let match = registry.types(filenameExtension: ext).first(where: { $0.conforms(to: supertype) }) {
            self = match
        } else {
            self.init(dynamicTag: ext, tagClass: .filenameExtension, conformingTo: supertype.identifier, registry: registry)
        }
    }

    /// The type for `mimeType` that conforms to `supertype`: the declared type that claims it
    /// (aliases and parameters understood), or a dynamic type when none does.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        guard MIMEType.isValid(MIMEType.essence(mimeType)) else { return nil }
        let registry = supertype.registry
        if let match = registry.type(mimeType: mimeType), match.conforms(to: supertype) {
            self = match
        } else {
            self.init(dynamicTag: MIMEType.essence(mimeType), tagClass: .mimeType,
                      conformingTo: supertype.identifier, registry: registry)
        }
    }

    // MARK: - Identity

    public static func == (a: UTType, b: UTType) -> Bool {
        a.identifier.caseInsensitiveEquals(b.identifier)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(UTTypeRegistry.key(identifier))
    }

    public var description: String { identifier }
    public var debugDescription: String { "UTType(\(identifier))" }

    var key: String { UTTypeRegistry.key(identifier) }
    var declaration: UTTypeDeclaration? { dynamic == nil ? registry.declaration(for: identifier) : nil }

    // MARK: - State

    /// Whether a declaration of this type exists in the registry.
    public var isDeclared: Bool { declaration != nil }
    /// Whether the type was made up on the spot from a tag nobody declared (`dyn.` identifiers).
    public var isDynamic: Bool { dynamic?.tagClass != nil }
    /// Whether the identifier is in Apple's reserved `public.` domain.
    public var isPublicType: Bool { identifier.lowercased().hasPrefix("public.") }
    /// Where the declaration came from, if declared.
    public var origin: UTTypeDeclaration.Origin? { declaration?.origin }

    // MARK: - Conformance

    /// Every type this one conforms to, nearest first (breadth-first over `conformsTo`).
    public var orderedSupertypes: [UTType] {
        if let dynamic {
            guard let base = UTType(dynamic.supertype, registry: registry) else { return [] }
            return [base] + base.orderedSupertypes
        }
        return (registry.ancestors(of: key) ?? []).map {
            UTType(declared: registry.declarations[$0]?.identifier ?? $0, registry: registry)
        }
    }

    /// Every type this one conforms to, not including itself.
    public var supertypes: Set<UTType> { Set(orderedSupertypes) }

    /// Whether this type is `type` or one of its subtypes.
    public func conforms(to type: UTType) -> Bool {
        if self == type { return true }
        if let dynamic {
            guard let base = UTType(dynamic.supertype, registry: registry) else { return false }
            return base.conforms(to: type)
        }
        return registry.ancestors(of: key)?.contains(type.key) ?? false
    }

    /// Whether this type conforms to `type` and is not `type` itself.
    public func isSubtype(of type: UTType) -> Bool { self != type && conforms(to: type) }

    /// Whether `type` conforms to this type and is not this type itself.
    public func isSupertype(of type: UTType) -> Bool { self != type && type.conforms(to: self) }

    // MARK: - Tags

    /// The type's tags: filename extensions and MIME types, preferred first.
    public var tags: [UTTagClass: [String]] {
        if let dynamic { return dynamic.tagClass.map { [$0: [dynamic.tag]] } ?? [:] }
        guard let d = declaration else { return [:] }
        var tags: [UTTagClass: [String]] = [:]
        if !d.filenameExtensions.isEmpty { tags[.filenameExtension] = d.filenameExtensions }
        if !d.mimeTypes.isEmpty { tags[.mimeType] = d.mimeTypes }
        return tags
    }

    /// The preferred filename extension, without the dot.
    public var preferredFilenameExtension: String? { tags[.filenameExtension]?.first }

    /// The preferred MIME type.
    public var preferredMIMEType: String? { tags[.mimeType]?.first }

    /// An English description, such as "Python script".
    public var localizedDescription: String? {
        if let d = declaration {
            if let text = d.description { return text }
            if let mime = d.mimeTypes.first {
                return SharedMIMEInfo.comment(for: mime, directories: registry.mimeDirectories)
            }
            return nil
        }
        if let dynamic, let tagClass = dynamic.tagClass {
            return tagClass == .mimeType ? "\(dynamic.tag) content" : "\(dynamic.tag.uppercased()) file"
        }
        return nil
    }
}

/// A class of tags that identify a type outside the type system.
public struct UTTagClass: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Filename extensions, without the dot.
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
    /// MIME types.
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")

    public var description: String { rawValue }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        self == other || (utf8.count == other.utf8.count && lowercased() == other.lowercased())
    }
}
