import ContentTypes
import FileAccess

/// Why a file got the type it got.
public enum ClassificationReason: Sendable, Hashable, CustomStringConvertible {
    /// Not a regular file: typed from `lstat` alone, never opened.
    case special(FileKind)
    /// A symbolic link, typed as such; its target is not followed.
    case symbolicLink(target: String, dangling: Bool)
    /// Only content evidence: no glob matches the name.
    case contentOnly
    /// Content and name say the same.
    case contentAndNameAgree
    /// The name's type, confirmed cheaply by the bytes (its signature, or text for a text type).
    case nameConfirmed(name: String, by: String)
    /// The name's type is a kind of the content's type, so it is the more specific answer.
    case nameRefinesContent(name: String, content: String)
    /// The content's type is a kind of the name's type, so it is the more specific answer.
    case contentRefinesName(content: String, name: String)
    /// Both say text; libmagic's guesses at a text's language are heuristics, the name is the author's word.
    case nameWinsBetweenTexts(name: String, content: String)
    /// libmagic found no type ("data"); the name is the only evidence.
    case contentUnknown(name: String)
    /// The file is empty: the name decides, or it is an empty document.
    case empty(name: String?)
    /// Content and name disagree; content wins.
    case conflictContentWins(content: String, name: String)
    /// The file could not be read; the name is all there is.
    case unreadable(name: String?)

    public var description: String {
        switch self {
        case .special(let kind): "\(kind) file: typed from lstat, never opened"
        case .symbolicLink(let target, let dangling):
            dangling ? "dangling symbolic link to \(target): typed from lstat" : "symbolic link to \(target): not followed"
        case .contentOnly: "content: no glob matches the name"
        case .contentAndNameAgree: "content and name agree"
        case .nameConfirmed(let name, let how): "the name says \(name) and the bytes confirm it (\(how))"
        case .nameRefinesContent(let name, let content): "name refines content: \(name) is a kind of \(content)"
        case .contentRefinesName(let content, let name): "content refines name: \(content) is a kind of \(name)"
        case .nameWinsBetweenTexts(let name, let content):
            "name wins between two texts: \(name) (name) over libmagic's guess \(content)"
        case .contentUnknown(let name): "libmagic found no type; the name says \(name)"
        case .empty(let name): name.map { "empty file: typed by its name as \($0)" } ?? "empty file, no name match"
        case .conflictContentWins(let content, let name): "content wins a conflict: the bytes are \(content), the name says \(name)"
        case .unreadable(let name): name.map { "unreadable: typed by its name as \($0)" } ?? "unreadable, no name match"
        }
    }

    /// A short machine-readable code for the reason.
    public var code: String {
        switch self {
        case .special: "special"
        case .symbolicLink: "symlink"
        case .contentOnly: "content"
        case .contentAndNameAgree: "agree"
        case .nameConfirmed: "name-confirmed"
        case .nameRefinesContent: "name-refines-content"
        case .contentRefinesName: "content-refines-name"
        case .nameWinsBetweenTexts: "name-over-text-guess"
        case .contentUnknown: "content-unknown"
        case .empty: "empty"
        case .conflictContentWins: "content-wins-conflict"
        case .unreadable: "unreadable"
        }
    }
}

/// A type the name points to, with the glob that matched.
public struct NameCandidate: Sendable, Hashable {
    public var type: UTType
    public var mimeType: String?
    public var pattern: String
    public var weight: Int
}

/// Combines content evidence (libmagic) and name evidence (globs) into one type.
///
/// Pure: a function of the registry and its inputs, no disk access.
public struct ContentTypeResolver: Sendable {
    public let registry: UTTypeRegistry

    public init(registry: UTTypeRegistry = .shared) { self.registry = registry }

    /// The outcome of resolution.
    public struct Resolution: Sendable {
        public var type: UTType
        /// The canonical MIME type of the winning evidence.
        public var mimeType: String?
        public var reason: ClassificationReason
    }

    /// The types a file name points to, best first.
    public func nameCandidates(fileName: String) -> [NameCandidate] {
        registry.types(forFileName: fileName).map { type, match in
            NameCandidate(type: type, mimeType: match.rule.identifier == nil ? registry.canonicalMIMEType(match.rule.mimeType) : type.preferredMIMEType,
                          pattern: match.rule.pattern, weight: match.rule.weight)
        }
    }

    /// The content's MIME type in shared-mime-info's spelling.
    public func contentMIMEType(magicMIMEType: String) -> String {
        registry.canonicalMIMEType(LibmagicSpellings.normalize(MIMEType.essence(magicMIMEType)))
    }

    /// The type for content evidence `magicMIMEType` (nil when the file could not be read)
    /// and name evidence `candidates`.
    public func resolve(magicMIMEType: String?, candidates: [NameCandidate], isEmpty: Bool) -> Resolution {
        guard let magicMIMEType else {
            if let best = candidates.first { return Resolution(type: best.type, mimeType: best.mimeType, reason: .unreadable(name: best.type.identifier)) }
            return Resolution(type: UTType.data(in: registry), mimeType: "application/octet-stream", reason: .unreadable(name: nil))
        }
        let mime = contentMIMEType(magicMIMEType: magicMIMEType)
        let content = registry.type(mimeType: mime) ?? registry.typeOrDynamic(mimeType: mime)
        let contentResult = Resolution(type: content, mimeType: mime, reason: .contentOnly)
        guard let best = candidates.first else {
            if isEmpty || mime == "application/x-zerosize" { return Resolution(type: content, mimeType: mime, reason: .empty(name: nil)) }
            return contentResult
        }
        if isEmpty || mime == "application/x-zerosize" {
            return Resolution(type: best.type, mimeType: best.mimeType, reason: .empty(name: best.type.identifier))
        }
        // 1. libmagic knows nothing: the name is the only evidence.
        if mime == "application/octet-stream" {
            return Resolution(type: best.type, mimeType: best.mimeType, reason: .contentUnknown(name: best.type.identifier))
        }
        // 2. A name type that is a kind of the content's type is the more specific answer.
        for candidate in candidates where refines(candidate, content: content, contentMIME: mime) {
            if candidate.type == content { return Resolution(type: content, mimeType: candidate.mimeType ?? mime, reason: .contentAndNameAgree) }
            return Resolution(type: candidate.type, mimeType: candidate.mimeType,
                              reason: .nameRefinesContent(name: candidate.type.identifier, content: content.identifier))
        }
        // 3. Content more specific than the name.
        if let candidate = candidates.first(where: { content.isSubtype(of: $0.type) }) {
            let text = UTType.plainText(in: registry)
            // ...unless it is libmagic guessing a language for what the name says is text.
            if !(content.conforms(to: text) && candidate.type.conforms(to: text)) {
                return Resolution(type: content, mimeType: mime,
                                  reason: .contentRefinesName(content: content.identifier, name: candidate.type.identifier))
            }
        }
        // 4. Both text: the name wins over libmagic's heuristics.
        let textType = UTType.text(in: registry)
        let contentIsText = content.conforms(to: textType) || registry.mimeType(mime, isA: "text/plain")
        if contentIsText, let candidate = candidates.first(where: { $0.type.conforms(to: textType) }) {
            return Resolution(type: candidate.type, mimeType: candidate.mimeType,
                              reason: .nameWinsBetweenTexts(name: candidate.type.identifier, content: content.identifier))
        }
        // 5. Conflict: the bytes win.
        return Resolution(type: content, mimeType: mime,
                          reason: .conflictContentWins(content: content.identifier, name: best.type.identifier))
    }

    private func refines(_ candidate: NameCandidate, content: UTType, contentMIME: String) -> Bool {
        if candidate.type.conforms(to: content) { return true }
        guard let nameMIME = candidate.mimeType else { return false }
        // shared-mime-info's graph knows relations Apple's does not declare
        // (every stream is application/octet-stream, text/* is text/plain): those two are
        // too broad to count as refinement here, steps 2 and 4 handle them.
        if contentMIME == "application/octet-stream" || contentMIME == "text/plain" { return false }
        return registry.mimeType(nameMIME, isA: contentMIME)
    }
}


extension UTType {
    static func data(in registry: UTTypeRegistry) -> UTType { registry.type(identifier: "public.data") ?? UTType("public.data", registry: registry)! }
    static func text(in registry: UTTypeRegistry) -> UTType { registry.type(identifier: "public.text") ?? UTType("public.text", registry: registry)! }
    static func plainText(in registry: UTTypeRegistry) -> UTType { registry.type(identifier: "public.plain-text") ?? UTType("public.plain-text", registry: registry)! }
}
