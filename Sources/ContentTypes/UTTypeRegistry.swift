import Foundation
import Synchronization

/// Every declared content type, their conformance and their tags: the Linux stand-in for
/// the system's type database that Apple's `UTType` consults.
///
/// Built from three layers, later ones overriding earlier (see `UTTypeRegistry.build`):
/// Docent's declarations, the system's shared-mime-info database, the user's declarations.
/// Immutable once built, so one registry is shared by every thread.
public final class UTTypeRegistry: Sendable {
    /// Declarations by lower-cased identifier.
    let declarations: [String: UTTypeDeclaration]
    /// Lower-cased identifiers in declaration order.
    let order: [String]
    /// MIME type (canonical or alias) → lower-cased identifier of the type that claims it.
    let mimeOwners: [String: String]
    /// Filename extension (lower-cased) → lower-cased identifiers claiming it, strongest first.
    let extensionOwners: [String: [String]]
    /// Lower-cased identifier → every supertype's lower-cased identifier, nearest first
    /// (worked out on first use: a process asks about a few dozen of the ~1,500 types).
    func ancestors(of key: String) -> [String]? {
        if let known = ancestorMemo.withLock({ $0[key] }) { return known }
        guard declarations[key] != nil else { return nil }
        let found = Self.breadthFirstSupertypes(of: key, in: declarations)
        ancestorMemo.withLock { $0[key] = found }
        return found
    }
    private let ancestorMemo = Mutex<[String: [String]]>([:])
    /// Lower-cased identifier → lower-cased identifiers of its direct subtypes.
    let directSubtypes: [String: [String]]
    /// The shared-mime-info data: aliases and the MIME subclass graph.
    let mimeInfo: SharedMIMEInfo
    /// Name evidence: shared-mime-info's globs plus declared extensions.
    package let globs: GlobTable
    /// Problems found in declaration files; the entries concerned were skipped.
    package let diagnostics: [DeclarationDiagnostic]
    /// MIME type → every MIME ancestor (shared-mime-info subclasses and the spec's implicit
    /// rules), worked out on first use.
    private let mimeAncestorMemo = Mutex<[String: Set<String>]>([:])
    /// Content evidence: shared-mime-info's magic plus declared rules, highest priority first.
    package let magic: MagicRules
    /// XML root elements that name types: shared-mime-info's `XMLnamespaces` plus declared ones.
    package let xmlRoots: XMLRootRules

    init(
        declarations: [String: UTTypeDeclaration], order: [String], mimeOwners: [String: String],
        extensionOwners: [String: [String]], mimeInfo: SharedMIMEInfo, globs: GlobTable,
        magic: MagicRules, xmlRoots: XMLRootRules, diagnostics: [DeclarationDiagnostic]
    ) {
        var magic = magic
        magic.reindex()
        self.magic = magic
        self.xmlRoots = xmlRoots
        self.declarations = declarations
        self.order = order
        self.mimeOwners = mimeOwners
        self.extensionOwners = extensionOwners
        self.mimeInfo = mimeInfo
        self.globs = globs
        self.diagnostics = diagnostics
        var subtypes: [String: [String]] = [:]
        for key in order {
            for parent in declarations[key]?.conformsTo ?? [] { subtypes[parent.lowercased(), default: []].append(key) }
        }
        self.directSubtypes = subtypes
    }

    private static func breadthFirstSupertypes(of key: String, in declarations: [String: UTTypeDeclaration]) -> [String] {
        var result: [String] = []
        var seen: Set<String> = [key]
        var queue = declarations[key]?.conformsTo.map { $0.lowercased() } ?? []
        var i = 0
        while i < queue.count {
            let next = queue[i]
            i += 1
            guard seen.insert(next).inserted else { continue }
            result.append(next)
            queue.append(contentsOf: declarations[next]?.conformsTo.map { $0.lowercased() } ?? [])
        }
        return result
    }

    /// The implicit parents the shared-mime-info specification (and Docent) give a MIME type
    /// on top of its declared `sub-class-of`: `text/*` → `text/plain`, `+xml` → XML,
    /// `+json` → JSON, `+zip` → zip, and every stream → `application/octet-stream`.
    static func implicitMIMEParents(of mime: String) -> [String] {
        var result: [String] = []
        let media = MIMEType.media(mime)
        if media == "inode" { return [] }
        if media == "text", mime != "text/plain" { result.append("text/plain") }
        switch MIMEType.suffix(mime) {
        case "xml": result.append("application/xml")
        case "json": result.append("application/json")
        case "zip": result.append("application/zip")
        default: break
        }
        if mime != "application/octet-stream" { result.append("application/octet-stream") }
        return result
    }

    private static func mimeSupertypes(of mime: String, info: SharedMIMEInfo) -> Set<String> {
        var seen: Set<String> = []
        var stack = (info.parents[mime] ?? []) + implicitMIMEParents(of: mime)
        while let next = stack.popLast() {
            let canonical = info.aliases[next] ?? next
            guard canonical != mime, seen.insert(canonical).inserted else { continue }
            stack.append(contentsOf: (info.parents[canonical] ?? []) + implicitMIMEParents(of: canonical))
        }
        return seen
    }

    // MARK: - Lookups

    static func key(_ identifier: String) -> String {
        identifier.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? identifier.lowercased() : identifier
    }

    /// The declaration of `identifier`, if it is declared.
    public func declaration(for identifier: String) -> UTTypeDeclaration? {
        declarations[Self.key(identifier)]
    }

    /// Every declared type, in declaration order (Docent's, then shared-mime-info's, then the user's).
    public var allTypes: [UTType] {
        order.compactMap { declarations[$0].map { UTType(declared: $0.identifier, registry: self) } }
    }

    /// The declared type with `identifier`, or nil.
    public func type(identifier: String) -> UTType? {
        declarations[Self.key(identifier)].map { UTType(declared: $0.identifier, registry: self) }
    }

    /// The canonical spelling of `mimeType`: parameters dropped, lower-cased, aliases resolved.
    package func canonicalMIMEType(_ mimeType: String) -> String {
        let essence = MIMEType.essence(mimeType)
        return mimeInfo.aliases[essence] ?? essence
    }

    /// The declared type that claims `mimeType` (or one of its aliases), or nil.
    public func type(mimeType: String) -> UTType? {
        let essence = MIMEType.essence(mimeType)
        guard let key = mimeOwners[essence] ?? mimeOwners[mimeInfo.aliases[essence] ?? essence],
              let declaration = declarations[key] else { return nil }
        return UTType(declared: declaration.identifier, registry: self)
    }

    /// The declared types that claim `filenameExtension`, strongest claim first.
    public func types(filenameExtension: String) -> [UTType] {
        (extensionOwners[filenameExtension.lowercased()] ?? []).compactMap {
            declarations[$0].map { UTType(declared: $0.identifier, registry: self) }
        }
    }

    /// Whether MIME type `child` is `parent` or inherits from it in shared-mime-info's
    /// subclass graph (with the specification's implicit rules).
    package func mimeType(_ child: String, isA parent: String) -> Bool {
        let c = canonicalMIMEType(child), p = canonicalMIMEType(parent)
        if c == p { return true }
        if let known = mimeAncestorMemo.withLock({ $0[c] }) { return known.contains(p) }
        let found = Self.mimeSupertypes(of: c, info: mimeInfo)
        mimeAncestorMemo.withLock { $0[c] = found }
        return found.contains(p)
    }

    /// Whether the system's shared-mime-info database knows `mimeType` (as a type or an alias).
    package func isSharedMIMEInfoType(_ mimeType: String) -> Bool {
        let essence = MIMEType.essence(mimeType)
        return mimeInfo.types.contains(essence) || mimeInfo.aliases[essence] != nil
    }

    /// The shared-mime-info directories the registry was built from, highest priority first.
    package var mimeDirectories: [String] { mimeInfo.directories }

    /// The direct subtypes of `identifier` that are declared.
    public func subtypes(of identifier: String) -> [UTType] {
        (directSubtypes[Self.key(identifier)] ?? []).compactMap { type(identifier: $0) }
    }

    /// The type a magic section or XML root names (by MIME type or identifier).
    public func type(named name: String) -> UTType {
        if name.contains("/") { return typeOrDynamic(mimeType: name) }
        return type(identifier: name) ?? UTType.init(dynamicMIMEType: "application/octet-stream", registry: self)
    }

    /// The types a file name's globs point to, best first, with the rule that matched.
    package func types(forFileName name: String) -> [(type: UTType, match: GlobMatch)] {
        globs.matches(fileName: name).compactMap { match in
            if let id = match.rule.identifier { return type(identifier: id).map { ($0, match) } }
            return (type(mimeType: match.rule.mimeType) ?? UTType(dynamicMIMEType: match.rule.mimeType, registry: self), match)
        }
    }
}

extension UTTypeRegistry {
    /// The declared type that claims `mimeType`, else a dynamic type for it that conforms to
    /// the broad type its media implies (`image/…` → `public.image`) or to `public.data`.
    package func typeOrDynamic(mimeType: String) -> UTType {
        type(mimeType: mimeType) ?? UTType(dynamicMIMEType: canonicalMIMEType(mimeType), registry: self)
    }
}
