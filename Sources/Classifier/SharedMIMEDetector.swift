public import ContentTypes

/// What the Shared MIME-info Database says about a file, decided the way its specification
/// (and GLib's `g_content_type_guess`) does, with the steps that decided it.
public struct SharedMIMEEvidence: Sendable, Hashable {
    /// How the database reached its answer.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// One glob type (or several of one type): the name decides; the magic does not contradict it.
        case glob(pattern: String)
        /// The name's type, equal to or a kind of what the magic found.
        case globConfirmed(pattern: String, magic: String, priority: Int)
        /// Magic with priority 80 or more overrides the name.
        case magicOverridesGlob(priority: Int, glob: String)
        /// Magic found a kind of the name's type: the more specific answer.
        case magicRefinesGlob(priority: Int, glob: String)
        /// Several glob types; the magic (or the XML root element) chose among them.
        case magicChoseGlob(pattern: String, among: [String])
        /// Several glob types; the magic of all but one exists and failed.
        case globByElimination(pattern: String, among: [String])
        /// Several glob types, nothing chose: the spec's first guess.
        case globGuess(among: [String])
        /// No glob: the magic alone.
        case magic(priority: Int)
        /// No glob, or a generic XML one: the root element names the type.
        case xmlRoot(namespace: String, localName: String)
        /// The streams of an OLE2 compound file name its format.
        case compoundFile(stream: String)
        /// Nothing matched: text or binary by the bytes.
        case textFallback
        case binaryFallback
        case empty

        public var description: String {
            switch self {
            case .glob(let p): "glob \(p)"
            case .globConfirmed(let p, let m, let prio): "glob \(p), confirmed by magic \(m) (priority \(prio))"
            case .magicOverridesGlob(let prio, let g): "magic (priority \(prio) ≥ 80) overrides glob \(g)"
            case .magicRefinesGlob(let prio, let g): "magic (priority \(prio)) refines glob \(g)"
            case .magicChoseGlob(let p, let among): "magic chose glob \(p) among \(among.joined(separator: ", "))"
            case .globByElimination(let p, let among):
                "globs conflict (\(among.joined(separator: ", "))); the others' magic failed: glob \(p)"
            case .globGuess(let among): "globs conflict (\(among.joined(separator: ", "))), no magic decides: first guess"
            case .magic(let prio): "magic (priority \(prio)), no glob"
            case .xmlRoot(let ns, let local): "XML root element <\(local)>" + (ns.isEmpty ? "" : " in \(ns)")
            case .compoundFile(let stream): "OLE2 stream \"\(stream)\""
            case .textFallback: "no glob or magic: text"
            case .binaryFallback: "no glob or magic: binary data"
            case .empty: "empty file"
            }
        }

        /// Whether the bytes back the answer (not the name alone or a fallback).
        public var isContent: Bool {
            switch self {
            case .globConfirmed, .magicOverridesGlob, .magicRefinesGlob, .magicChoseGlob, .magic, .xmlRoot, .compoundFile: true
            default: false
            }
        }

        /// Whether the name alone decided.
        public var isNameOnly: Bool {
            switch self {
            case .glob, .globGuess, .globByElimination: true
            default: false
            }
        }

        /// The priority of the deciding magic, where magic decided.
        public var priority: Int? {
            switch self {
            case .globConfirmed(_, _, let p), .magicOverridesGlob(let p, _), .magicRefinesGlob(let p, _), .magic(let p): p
            case .xmlRoot, .compoundFile, .magicChoseGlob: 80
            default: nil
            }
        }
    }

    /// The answer: a canonical MIME type, or a declared identifier.
    public var typeName: String
    public var source: Source
    /// The magic sections that matched, best first (for `docent info`).
    package var magicHits: [MagicHit]
    /// The root element, when the bytes are XML.
    package var xmlRoot: XMLRoot.Element?
}

/// The Shared MIME-info Database's detection: globs by weight and length, magic with
/// priority ≥ 80 overriding a glob, magic and XML root elements choosing between conflicting
/// globs, the text/binary fallback.
///
/// Pure: a function of the registry, the name's candidates and the bytes.
public struct SharedMIMEDetector: Sendable {
    public let registry: UTTypeRegistry

    public init(registry: UTTypeRegistry) { self.registry = registry }

    /// The spec's answer for a file whose name gave `candidates` and whose first bytes are `bytes`.
    public func detect(candidates: [NameCandidate], bytes: [UInt8], isEmpty: Bool,
                       compoundFile: CompoundFileEvidence? = nil) -> SharedMIMEEvidence {
        // Globs: keep the highest weight, then the longest pattern (literal names came first).
        var top: [NameCandidate] = []
        if let best = candidates.first {
            let longest = candidates.filter { $0.weight == best.weight }.map(\.pattern.utf8.count).max() ?? 0
            top = candidates.filter { $0.weight == best.weight && $0.pattern.utf8.count == longest }
        }
        let names = top.map(name(of:))
        if isEmpty {
            if let first = top.first { return .init(typeName: names[0], source: .glob(pattern: first.pattern), magicHits: [], xmlRoot: nil) }
            return .init(typeName: "application/x-zerosize", source: .empty, magicHits: [], xmlRoot: nil)
        }
        var hits = registry.magic.hits(bytes)
        if Self.hasHTML5Doctype(bytes) {
            // `<!DOCTYPE html>` is the HTML standard's own: such a page is HTML even when it
            // carries the XHTML namespace (pandoc and many generators write both).
            hits.removeAll { canonical($0.typeName) == "application/xhtml+xml" }
        }
        let root = XMLRoot.sniff(bytes)
        let rootType = root.flatMap { registry.xmlRoots.type(namespace: $0.namespace, localName: $0.localName) }.map(canonical)
        var evidence = SharedMIMEEvidence(typeName: "", source: .binaryFallback, magicHits: hits, xmlRoot: root)

        // The sniffed type: the best magic hit; at its priority, one of the globs' types or the
        // most specific hit (a subtype of another hit) before file order.
        var sniffed: MagicHit?
        if let first = hits.first {
            let tied = hits.prefix { $0.priority == first.priority }
            sniffed = tied.first { hit in names.contains { isA($0, canonical(hit.typeName)) } }
                ?? tied.first { hit in tied.contains { $0 != hit && isA(canonical(hit.typeName), canonical($0.typeName)) } }
                ?? first
        }
        let sniffedName = sniffed.map { canonical($0.typeName) }

        if let compoundFile {
            // The streams say what the container holds: stronger than any name or generic magic.
            evidence.typeName = names.first { isA($0, compoundFile.mimeType) } ?? compoundFile.mimeType
            evidence.source = .compoundFile(stream: compoundFile.stream)
            return evidence
        }

        if top.isEmpty {
            if let rootType, sniffedName.map({ isA(rootType, $0) || $0 == "application/xml" || $0 == "text/xml" }) ?? true {
                evidence.typeName = rootType
                evidence.source = .xmlRoot(namespace: root!.namespace, localName: root!.localName)
            } else if let sniffed, let sniffedName {
                evidence.typeName = sniffedName
                evidence.source = .magic(priority: sniffed.priority)
            } else if ContentSignature.looksLikeText(Array(bytes.prefix(4096))) {   // GLib's sniffing window
                evidence.typeName = "text/plain"
                evidence.source = .textFallback
            } else {
                evidence.typeName = "application/octet-stream"
                evidence.source = .binaryFallback
            }
            return evidence
        }

        // A name and magic of priority ≥ 80 that is not the name's type or a parent of it: magic wins.
        if let sniffed, let sniffedName, sniffed.priority >= 80, !names.contains(where: { isA($0, sniffedName) }) {
            evidence.typeName = sniffedName
            evidence.source = .magicOverridesGlob(priority: sniffed.priority, glob: top[0].pattern)
            return evidence
        }
        // Content more specific than the name: a feed named .xml, a Krita file named .zip.
        // (Not for plain text names, where low-priority magic only guesses.)
        if let sniffed, let sniffedName, sniffed.priority >= 50,
           let i = names.firstIndex(where: { $0 != sniffedName && $0 != "text/plain" && isA(sniffedName, $0) }) {
            evidence.typeName = sniffedName
            evidence.source = .magicRefinesGlob(priority: sniffed.priority, glob: top[i].pattern)
            return evidence
        }
        if let rootType, let root, let i = names.firstIndex(where: { $0 != rootType && isA(rootType, $0) }) {
            _ = i
            evidence.typeName = rootType
            evidence.source = .xmlRoot(namespace: root.namespace, localName: root.localName)
            return evidence
        }
        // A glob type that is the sniffed type or a kind of it: the strongest globs first, then
        // any glob that matched (as the spec says, and GLib does: an XHTML file named .html).
        if let sniffed, let sniffedName,
           let match = (top + candidates).first(where: { isA(name(of: $0), sniffedName) }) {
            evidence.typeName = name(of: match)
            evidence.source = .globConfirmed(pattern: match.pattern, magic: sniffedName, priority: sniffed.priority)
            return evidence
        }
        // The name's own magic matched, below the top priority.
        if let i = names.firstIndex(where: { n in hits.contains { isA(n, canonical($0.typeName)) } }),
           let hit = hits.first(where: { isA(names[i], canonical($0.typeName)) }) {
            evidence.typeName = names[i]
            evidence.source = .globConfirmed(pattern: top[i].pattern, magic: canonical(hit.typeName), priority: hit.priority)
            return evidence
        }
        let distinct = names.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        if distinct.count == 1 {
            evidence.typeName = names[0]
            evidence.source = .glob(pattern: top[0].pattern)
            return evidence
        }
        // Conflicting globs: a type whose own magic (at any priority) or XML root matched,
        // else drop the types whose magic exists and failed, else the first.
        let hitNames = hits.map { canonical($0.typeName) }
        if let i = names.firstIndex(where: { n in hitNames.contains { isA(n, $0) } || rootType.map { isA($0, n) && isA(n, $0) } ?? false }) {
            evidence.typeName = names[i]
            evidence.source = .magicChoseGlob(pattern: top[i].pattern, among: distinct)
            return evidence
        }
        if let rootType, let i = names.firstIndex(where: { isA(rootType, $0) }) {
            evidence.typeName = rootType
            evidence.source = .magicChoseGlob(pattern: top[i].pattern, among: distinct)
            return evidence
        }
        let survivors = names.indices.filter { !registry.magic.typesWithMagic.contains(names[$0]) }
        if survivors.count == 1 || Set(survivors.map { names[$0] }).count == 1 {
            let i = survivors[0]
            evidence.typeName = names[i]
            evidence.source = .globByElimination(pattern: top[i].pattern, among: distinct)
            return evidence
        }
        if survivors.isEmpty, let weaker = candidates.first(where: { c in
            !top.contains(c) && !registry.magic.typesWithMagic.contains(name(of: c))
        }) {
            // Every top glob's magic failed (a TypeScript file named .ts is neither MPEG-TS nor
            // Qt Linguist): a weaker glob whose type has no magic to fail is the better guess.
            evidence.typeName = name(of: weaker)
            evidence.source = .globByElimination(pattern: weaker.pattern, among: distinct + [name(of: weaker)])
            return evidence
        }
        let i = survivors.first ?? 0
        evidence.typeName = names[i]
        evidence.source = .globGuess(among: distinct)
        return evidence
    }

    /// Whether the bytes open (after a byte-order mark and white space) with `<!DOCTYPE html>`.
    static func hasHTML5Doctype(_ bytes: [UInt8]) -> Bool {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        let doctype = Array("<!doctype html".utf8)
        guard i + doctype.count < bytes.count else { return false }
        for (k, c) in doctype.enumerated() where bytes[i + k] | (c >= 0x61 ? 0x20 : 0) != c { return false }
        var j = i + doctype.count
        while j < bytes.count, bytes[j] == 0x20 { j += 1 }
        return j < bytes.count && bytes[j] == UInt8(ascii: ">")
    }

    /// The name a candidate gives: its canonical MIME type, else its identifier.
    func name(of candidate: NameCandidate) -> String {
        candidate.mimeType.map(registry.canonicalMIMEType) ?? candidate.type.identifier
    }

    func canonical(_ name: String) -> String { name.contains("/") ? registry.canonicalMIMEType(name) : name }

    /// Whether type name `a` is `b` or a kind of it (MIME subclassing, or conformance for identifiers).
    func isA(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        if a.contains("/"), b.contains("/") { return registry.mimeType(a, isA: b) }
        return registry.type(named: a).conforms(to: registry.type(named: b))
    }
}
