import Foundation

extension UTTypeRegistry {
    /// The prefix of identifiers derived from shared-mime-info types that no declaration
    /// claims: `image/x-xcf` becomes `org.freedesktop.mime.image.x-xcf`.
    package static let derivedIdentifierPrefix = "org.freedesktop.mime."

    /// Weight of a glob made from a Docent-declared extension: below shared-mime-info's
    /// default of 50, so the system database decides where both speak, and Docent fills gaps.
    static let docentExtensionWeight = 40
    /// Weight of a glob made from a user-declared extension: the user has the last word.
    static let userExtensionWeight = 100

    /// Builds a registry from the three layers, later overriding earlier.
    ///
    /// - Parameters:
    ///   - builtIn: Docent's declarations (layer 1).
    ///   - mimeInfo: the shared-mime-info database (layer 2).
    ///   - user: the user's declarations (layer 3).
    ///   - diagnostics: problems already found while reading the layers.
    package static func build(
        builtIn: [UTTypeDeclaration], mimeInfo: SharedMIMEInfo, user: [UTTypeDeclaration] = [],
        diagnostics: [DeclarationDiagnostic] = []
    ) -> UTTypeRegistry {
        var diagnostics = diagnostics
        var declarations: [String: UTTypeDeclaration] = [:]
        var order: [String] = []
        var mimeOwners: [String: String] = [:]
        var extensionOwners: [String: [String]] = [:]
        var globRules: [GlobRule] = []

        func claim(mime: String, by key: String, override: Bool) {
            if override || mimeOwners[mime] == nil { mimeOwners[mime] = key }
        }

        // Layer 1: Docent's declarations.
        for declaration in builtIn {
            let key = key(declaration.identifier)
            if declarations[key] == nil { order.append(key) }
            declarations[key] = declaration
            for mime in declaration.mimeTypes { claim(mime: mime, by: key, override: false) }
            for ext in declaration.filenameExtensions { extensionOwners[ext.lowercased(), default: []].append(key) }
        }

        // Layer 2: shared-mime-info. Every known MIME type gets a type: the one that claims it
        // (directly or through an alias), or a derived one.
        var aliasesOf: [String: [String]] = [:]
        for (alias, canonical) in mimeInfo.aliases { aliasesOf[canonical, default: []].append(alias) }
        var known = mimeInfo.types
        known.formUnion(mimeInfo.parents.keys)
        known.formUnion(mimeInfo.globs.map(\.mimeType))
        var derivedParents: [String: [String]] = [:]
        for mime in known.sorted() {
            let aliases = (aliasesOf[mime] ?? []).sorted()
            if let owner = mimeOwners[mime] ?? aliases.lazy.compactMap({ mimeOwners[$0] }).first {
                for m in [mime] + aliases where !(declarations[owner]!.mimeTypes.contains(m)) {
                    declarations[owner]!.mimeTypes.append(m)
                }
                for m in [mime] + aliases { claim(mime: m, by: owner, override: false) }
            } else {
                let identifier = derivedIdentifier(forMIMEType: mime)
                let key = key(identifier)
                order.append(key)
                declarations[key] = UTTypeDeclaration(
                    identifier: identifier, mimeTypes: [mime] + aliases, origin: .sharedMIMEInfo)
                for m in [mime] + aliases { claim(mime: m, by: key, override: false) }
                derivedParents[key] = (mimeInfo.parents[mime] ?? []) + implicitMIMEParents(of: mime)
            }
        }
        // Derived types conform to the types of their MIME parents, and to their media's type.
        for (key, parents) in derivedParents {
            let mime = declarations[key]!.mimeTypes[0]
            var conformsTo: [String] = []
            for parent in parents {
                let canonical = mimeInfo.aliases[parent] ?? parent
                if let owner = mimeOwners[canonical], owner != key, let id = declarations[owner]?.identifier,
                   !conformsTo.contains(id) {
                    conformsTo.append(id)
                }
            }
            if let media = mediaSupertype(of: mime), !conformsTo.contains(media) { conformsTo.append(media) }
            if conformsTo.isEmpty { conformsTo = [MIMEType.media(mime) == "inode" ? "public.item" : "public.data"] }
            declarations[key]!.conformsTo = conformsTo
        }
        // Globs become name evidence, and simple `*.ext` globs become extension tags.
        for rule in mimeInfo.globs {
            globRules.append(rule)
            guard rule.pattern.hasPrefix("*."), !rule.pattern.dropFirst(2).contains(where: { "*?[".contains($0) }),
                  let owner = mimeOwners[rule.mimeType] ?? mimeOwners[mimeInfo.aliases[rule.mimeType] ?? rule.mimeType]
            else { continue }
            let ext = String(rule.pattern.dropFirst(2))
            if !declarations[owner]!.filenameExtensions.contains(ext) { declarations[owner]!.filenameExtensions.append(ext) }
            let lower = ext.lowercased()
            if !(extensionOwners[lower]?.contains(owner) ?? false) { extensionOwners[lower, default: []].append(owner) }
        }
        // Docent's extensions and patterns that no system glob covers become weak globs of their own.
        // Where the system names other types for the pattern (`*.ts`: MPEG-TS and Qt Linguist, not
        // TypeScript), Docent's type stays a weaker candidate, for when the system's magic rules them out.
        var systemTypes: [String: Set<String>] = [:]
        for rule in mimeInfo.globs { systemTypes[rule.pattern.lowercased(), default: []].insert(mimeInfo.aliases[rule.mimeType] ?? rule.mimeType) }
        let systemSuffixes = Set(systemTypes.keys)
        for declaration in builtIn {
            for ext in declaration.filenameExtensions {
                if let others = systemTypes["*." + ext.lowercased()] {
                    guard !declaration.mimeTypes.isEmpty, others.isDisjoint(with: declaration.mimeTypes) else { continue }
                }
                globRules.append(rule(for: declaration, pattern: "*." + ext, weight: docentExtensionWeight))
            }
            for pattern in declaration.globs where !systemSuffixes.contains(pattern.lowercased()) {
                globRules.append(rule(for: declaration, pattern: pattern, weight: docentExtensionWeight))
            }
        }
        // Content rules: the system's, then Docent's and the user's declarations.
        var magic = mimeInfo.magic
        var xmlRoots = mimeInfo.xmlRoots
        func addContentRules(of declaration: UTTypeDeclaration) {
            let mime = declaration.mimeTypes.first ?? ""
            let identifier = mime.isEmpty ? declaration.identifier : nil
            for priority in Set(declaration.magic.map(\.priority)).sorted(by: >) {
                let matchlets = declaration.magic.filter { $0.priority == priority }.map(\.matchlet)
                magic.add(MagicSection(priority: priority, mimeType: mime, identifier: identifier, matchlets: matchlets))
            }
            for root in declaration.rootXML {
                xmlRoots.add(namespace: root.namespace, localName: root.localName, type: identifier ?? mime)
            }
        }
        for declaration in builtIn { addContentRules(of: declaration) }

        // Layer 3: the user's declarations override fields they give and claim their tags.
        for declaration in user {
            let key = key(declaration.identifier)
            if var existing = declarations[key] {
                if !declaration.conformsTo.isEmpty { existing.conformsTo = declaration.conformsTo }
                if let d = declaration.description { existing.description = d }
                existing.mimeTypes = declaration.mimeTypes + existing.mimeTypes.filter { !declaration.mimeTypes.contains($0) }
                existing.filenameExtensions = declaration.filenameExtensions
                    + existing.filenameExtensions.filter { !declaration.filenameExtensions.contains($0) }
                existing.origin = declaration.origin
                declarations[key] = existing
            } else {
                var declaration = declaration
                if declaration.conformsTo.isEmpty { declaration.conformsTo = ["public.data"] }
                order.append(key)
                declarations[key] = declaration
            }
            for mime in declaration.mimeTypes {
                if let previous = mimeOwners[mime], previous != key {
                    declarations[previous]!.mimeTypes.removeAll { $0 == mime }
                }
                claim(mime: mime, by: key, override: true)
            }
            for ext in declaration.filenameExtensions {
                let lower = ext.lowercased()
                extensionOwners[lower] = [key] + (extensionOwners[lower] ?? []).filter { $0 != key }
                globRules.append(rule(for: declarations[key]!, pattern: "*." + ext, weight: userExtensionWeight))
            }
            for pattern in declaration.globs {
                globRules.append(rule(for: declarations[key]!, pattern: pattern, weight: userExtensionWeight))
            }
            var contentRules = declarations[key]!
            contentRules.magic = declaration.magic
            contentRules.rootXML = declaration.rootXML
            if !declaration.magic.isEmpty { magic.removeAll(of: contentRules.mimeTypes.first ?? contentRules.identifier) }
            addContentRules(of: contentRules)
            for parent in declaration.conformsTo where declarations[Self.key(parent)] == nil {
                if case .user(let file, let line) = declaration.origin {
                    diagnostics.append(DeclarationDiagnostic(
                        file: file, line: line,
                        message: "'\(declaration.identifier)' conforms to '\(parent)', which nothing declares; check the spelling"))
                }
            }
        }

        return UTTypeRegistry(
            declarations: declarations, order: order, mimeOwners: mimeOwners, extensionOwners: extensionOwners,
            mimeInfo: mimeInfo, globs: GlobTable(globRules), magic: magic, xmlRoots: xmlRoots, diagnostics: diagnostics)
    }

    /// A glob for a declared extension or pattern: `*.ext` ignores case as shared-mime-info's do;
    /// a whole name (`Dockerfile`, `todo.txt`) or other pattern must match as written.
    private static func rule(for declaration: UTTypeDeclaration, pattern: String, weight: Int) -> GlobRule {
        let caseSensitive = !(pattern.hasPrefix("*.") && !pattern.dropFirst(2).contains(where: { "*?[".contains($0) }))
        if let mime = declaration.mimeTypes.first {
            return GlobRule(mimeType: mime, pattern: pattern, weight: weight, caseSensitive: caseSensitive)
        }
        return GlobRule(mimeType: "", identifier: declaration.identifier, pattern: pattern, weight: weight,
                        caseSensitive: caseSensitive)
    }

    /// The identifier Docent gives a MIME type that nothing declares.
    package static func derivedIdentifier(forMIMEType mime: String) -> String {
        var out = derivedIdentifierPrefix
        for scalar in mime.unicodeScalars {
            switch scalar {
            case "/": out += "."
            case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "+": out.unicodeScalars.append(scalar)
            default: out += "_"
            }
        }
        return out
    }

    /// The broad type a MIME media type implies (`image/…` is an image), if any.
    static func mediaSupertype(of mime: String) -> String? {
        switch MIMEType.media(mime) {
        case "image": "public.image"
        case "audio": "public.audio"
        case "video": "public.movie"
        case "font": "public.font"
        case "message": "public.message"
        case "text": "public.plain-text"
        default: nil
        }
    }
}
