public import ContentTypes
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
    /// shared-mime-info (from the bytes) and libmagic say the same.
    case witnessesAgree(how: String)
    /// libmagic's type is a kind of what shared-mime-info found in the bytes.
    case libmagicRefines(libmagic: String, shared: String, how: String)
    /// shared-mime-info's type is a kind of libmagic's.
    case sharedRefines(shared: String, libmagic: String, how: String)
    /// The two disagree; shared-mime-info's content evidence is the stronger.
    case sharedWins(shared: String, libmagic: String, how: String)
    /// The two disagree; libmagic is the stronger on this binary.
    case libmagicWins(libmagic: String, shared: String, how: String)
    /// libmagic's type has shared-mime-info magic, and none of it holds: the name stands.
    case libmagicUnconfirmed(libmagic: String, name: String)
    /// libmagic says only "text"; the name says which format the text is.
    case contentGeneric(name: String, content: String)
    /// Name and libmagic's type are siblings in one container family; the name says which.
    case nameChoosesInFamily(name: String, content: String, family: String)

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
        case .witnessesAgree(let how): "shared-mime-info (\(how)) and libmagic agree"
        case .libmagicRefines(let l, let s, let how): "libmagic refines shared-mime-info: \(l) is a kind of \(s) (\(how))"
        case .sharedRefines(let s, let l, let how): "shared-mime-info refines libmagic: \(s) (\(how)) is a kind of \(l)"
        case .sharedWins(let s, let l, let how): "shared-mime-info's \(s) (\(how)) wins over libmagic's \(l)"
        case .libmagicWins(let l, let s, let how): "libmagic's \(l) wins over shared-mime-info's \(s) (\(how))"
        case .libmagicUnconfirmed(let l, let name):
            "libmagic's \(l) is not confirmed by shared-mime-info's rules for it; the name says \(name)"
        case .contentGeneric(let name, let content): "libmagic says only \(content); the name says \(name)"
        case .nameChoosesInFamily(let name, let content, let family):
            "the name chooses within \(family): \(name) over libmagic's \(content)"
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
        case .witnessesAgree: "witnesses-agree"
        case .libmagicRefines: "libmagic-refines"
        case .sharedRefines: "shared-refines"
        case .sharedWins: "shared-wins"
        case .libmagicWins: "libmagic-wins"
        case .libmagicUnconfirmed: "libmagic-unconfirmed"
        case .contentGeneric: "content-generic"
        case .nameChoosesInFamily: "name-in-family"
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

    /// Container families: a name and libmagic's type that both belong to one are siblings,
    /// and the name (the author's word) says which member the file is.
    static let families = ["application/zip", "application/x-ole-storage", "application/xml", "application/gzip",
                           "application/ogg", "application/json"]

    /// The type from all three witnesses: the name's globs and shared-mime-info's magic (as the
    /// spec combines them, `shared`), and libmagic (`magicMIMEType`; nil when the file could not
    /// be read), reconciled through conformance.
    public func resolve(shared: SharedMIMEEvidence, magicMIMEType: String?, candidates: [NameCandidate],
                        isEmpty: Bool) -> Resolution {
        guard let magicMIMEType, !isEmpty else {
            return resolve(magicMIMEType: magicMIMEType, candidates: candidates, isEmpty: isEmpty)
        }
        let how = shared.source.description
        let (sharedType, sharedMIME) = typeAndMIME(of: shared)
        let mime = contentMIMEType(magicMIMEType: magicMIMEType)
        let content = registry.type(mimeType: mime) ?? registry.typeOrDynamic(mimeType: mime)
        let source = shared.source
        switch source {
        case .textFallback, .binaryFallback, .empty:
            // shared-mime-info knows nothing: libmagic speaks alone (as before, with no name).
            if mime == "application/octet-stream" || mime == "application/x-zerosize" { return resolve(sharedOnly: shared) }
            return resolve(magicMIMEType: magicMIMEType, candidates: [], isEmpty: false)
        case .glob, .globGuess, .globByElimination:
            // The name alone decided shared-mime-info: weigh it against libmagic as name against content,
            // the chosen glob first.
            var ordered = candidates
            if let i = ordered.firstIndex(where: { ($0.mimeType.map(registry.canonicalMIMEType) ?? $0.type.identifier) == shared.typeName }) {
                ordered.insert(ordered.remove(at: i), at: 0)
            }
            let byName = resolve(magicMIMEType: magicMIMEType, candidates: ordered, isEmpty: false)
            if case .conflictContentWins = byName.reason, !confirmed(libmagic: mime, by: shared) {
                // shared-mime-info has rules for libmagic's type and none of them holds: libmagic's
                // answer is a heuristic (a DOS .COM "start instruction" in Korean text) and the name stands.
                return Resolution(type: sharedType, mimeType: sharedMIME,
                                  reason: .libmagicUnconfirmed(libmagic: content.identifier, name: sharedType.identifier))
            }
            if mime == "text/plain", case .conflictContentWins = byName.reason,
               !registry.magic.typesWithMagic.contains(shared.typeName) {
                // A text-based format libmagic does not know, and no magic rule of its own to fail.
                return Resolution(type: sharedType, mimeType: sharedMIME,
                                  reason: .contentGeneric(name: sharedType.identifier, content: content.identifier))
            }
            if case .conflictContentWins = byName.reason, let nameMIME = sharedMIME,
               let family = Self.families.first(where: { registry.mimeType(nameMIME, isA: $0) && registry.mimeType(mime, isA: $0) }) {
                return Resolution(type: sharedType, mimeType: nameMIME,
                                  reason: .nameChoosesInFamily(name: sharedType.identifier, content: content.identifier, family: family))
            }
            return byName
        default:
            break
        }
        // shared-mime-info found the type in the bytes.
        if sharedType == content || sharedMIME == mime {
            // One type, two spellings: libmagic's is the newer one where the system's database lacks
            // it (a position-independent executable is `application/x-pie-executable`).
            let spelling = registry.isSharedMIMEInfoType(mime) ? sharedMIME ?? mime : mime
            return Resolution(type: sharedType, mimeType: spelling, reason: .witnessesAgree(how: how))
        }
        let textType = UTType.text(in: registry)
        let contentIsText = content.conforms(to: textType) || registry.mimeType(mime, isA: "text/plain")
        let sharedIsText = sharedType.conforms(to: textType) || sharedMIME.map { registry.mimeType($0, isA: "text/plain") } ?? false
        let generic = mime == "application/octet-stream" || mime == "text/plain" || mime == "application/x-zerosize"
        let libmagicIsKind = content.conforms(to: sharedType) || sharedMIME.map { registry.mimeType(mime, isA: $0) } ?? false
        // libmagic's type is confirmed unless shared-mime-info has rules for it and none held
        // (libmagic calls AIFF-C "AIFF"; its DOS .COM test fires on text).
        let libmagicConfirmed = confirmed(libmagic: mime, by: shared)
        if !generic, libmagicIsKind, libmagicConfirmed, !(contentIsText && sharedIsText) {
            return Resolution(type: content, mimeType: mime,
                              reason: .libmagicRefines(libmagic: content.identifier, shared: sharedType.identifier, how: how))
        }
        if sharedType.conforms(to: content) || sharedMIME.map({ registry.mimeType($0, isA: mime) }) ?? false || generic {
            return Resolution(type: sharedType, mimeType: sharedMIME,
                              reason: .sharedRefines(shared: sharedType.identifier, libmagic: content.identifier, how: how))
        }
        // A real conflict. shared-mime-info's strong rules, its magic confirmed by the name, and its
        // rules against libmagic's guesses at text win; on other binaries libmagic is the stronger.
        let strong: Bool
        switch source {
        case .globConfirmed, .magicChoseGlob, .magicOverridesGlob, .magicRefinesGlob, .compoundFile, .xmlRoot: strong = true
        default: strong = (source.priority ?? 0) >= 80
        }
        // libmagic naming only the container (zip, gzip, OLE2, Ogg, XML) says less than a rule that looked inside.
        let containerOnly = Self.families.contains(mime) || mime == "application/x-tar"
        // shared-mime-info's low-priority rules are guesses ("%" at the start is MATLAB, any ELF file
        // an executable): with no name behind them, libmagic's specific answer is the better one.
        if case .magic(let priority) = source, priority < 50, !containerOnly {
            return Resolution(type: content, mimeType: mime,
                              reason: .libmagicWins(libmagic: content.identifier, shared: sharedType.identifier, how: how))
        }
        if strong || contentIsText || containerOnly || !libmagicConfirmed {
            return Resolution(type: sharedType, mimeType: sharedMIME,
                              reason: .sharedWins(shared: sharedType.identifier, libmagic: content.identifier, how: how))
        }
        return Resolution(type: content, mimeType: mime,
                          reason: .libmagicWins(libmagic: content.identifier, shared: sharedType.identifier, how: how))
    }

    /// shared-mime-info's answer alone (libmagic failed, or knows nothing more).
    public func resolve(sharedOnly shared: SharedMIMEEvidence) -> Resolution {
        let (type, mimeType) = typeAndMIME(of: shared)
        return Resolution(type: type, mimeType: mimeType, reason: .contentOnly)
    }

    /// The type shared-mime-info named (a MIME type, or a Docent identifier) and its MIME type.
    private func typeAndMIME(of shared: SharedMIMEEvidence) -> (UTType, String?) {
        let type = registry.type(named: shared.typeName)
        return (type, shared.typeName.contains("/") ? shared.typeName : type.preferredMIMEType)
    }

    /// Whether shared-mime-info's magic leaves libmagic's `mime` standing: it has no rules for
    /// it, or one of its hits is that type (or a kind of it), or every hit is a parent of it
    /// (a container libmagic looked further into). Unconfirmed: rules exist, none held, and a
    /// hit names something else (libmagic calls AIFF-C "AIFF"; its DOS .COM test fires on text).
    func confirmed(libmagic mime: String, by shared: SharedMIMEEvidence) -> Bool {
        if mime == "text/plain" || !registry.magic.typesWithMagic.contains(mime) { return true }
        let hits = shared.magicHits.map { registry.canonicalMIMEType($0.typeName) }
        if hits.contains(where: { registry.mimeType($0, isA: mime) }) { return true }
        return !hits.isEmpty && hits.allSatisfy { registry.mimeType(mime, isA: $0) }
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
        if contentIsText, let candidate = candidates.first(where: {
            $0.type.conforms(to: textType) || $0.mimeType.map { registry.mimeType($0, isA: "text/plain") } ?? false
        }) {
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
