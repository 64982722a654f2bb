public import ArgumentParser
package import ContentTypes
import Foundation
public import Index
import FileAccess
import Rendering
import SystemPackage

/// `docent search QUERY`: ranked hits from the index.
package struct SearchCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the index.",
        discussion: """
            Words must all match; "exact phrases"; prefix*; OR; -word or NOT word; parentheses. Fields: \
            type: (an identifier, or pdf, image, text, source, markdown, …; subtypes match too), ext:, \
            name: (a glob), in: (a directory), size: (>10M, <1k), modified: (>2025-06-01, <7d), title:, \
            host: (a machine, in an index shared on PostgreSQL).
            Exit status: 0 something matched, 1 nothing did, 2 an error.
            """
    )

    // Unrecognized dashes belong to the query, so `docent search -draft type:text` works.
    @Argument(parsing: .allUnrecognized, help: "The query (several arguments are joined with spaces; -word excludes).")
    package var query: [String] = []

    @OptionGroup var location: IndexLocation

    // Unconditional: `--limit -1` is a bad number (said so), not a missing one.
    @Option(parsing: .unconditional, help: "The most hits to show.")
    package var limit = 20

    @Option(parsing: .unconditional, help: "Hits to skip first: the next page is --offset 20 (with the default --limit).")
    package var offset = 0

    @Option(help: "The order of the hits: relevance (the default), modified (newest first), name, size (largest first).")
    package var sort: SearchOrder = .relevance

    @Flag(help: "One JSON object per hit per line: path, contentType, title, score, snippet.")
    package var json = false

    @Flag(help: "Paths only, one per line.")
    package var files = false

    @Flag(name: [.customShort("0"), .customLong("print0")], help: "Paths only, each followed by a NUL byte (for xargs -0).")
    package var print0 = false

    @Flag(help: "Also search the suggested spelling of a word the index holds in few files or none (recieve finds receive). Without it, a suggestion held by twenty times as many files as the word is searched too, and said.")
    package var fuzzy = false

    package func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1.") }
        if offset < 0 { throw ValidationError("--offset must be 0 or more.") }
        if query.isEmpty { throw ValidationError("give a query, such as `docent search invoice type:pdf`.") }
    }

    @Flag(help: "After the results, print a line for each file that starts or stops matching as files change (+ path, - path; JSON objects with an \"event\" key under --json), until interrupted.")
    package var follow = false

    /// How `--follow` runs, set by docent-engine, which has the watcher (`docent` hands such
    /// searches to it). Set once at start-up, before any command runs.
    nonisolated(unsafe) package static var following: ((SearchCommand, SearchRequest, any IndexStore) throws -> Void)?

    package init() {}

    package func run() throws {
        Output.ignoreSIGPIPE()
        guard location.isServer || FileManager.default.fileExists(atPath: location.resolved) else {
            throw CommandFailure("there is no index at \(location.resolved) yet: run `docent index DIRECTORY` first")
        }
        let index = try follow ? location.open() : location.openForSearching()
        var request = try makeRequest(index)
        // "Did you mean": for a person at a terminal and under --json, and what --fuzzy
        // searches too; a pipe of paths (or a --follow, which prints events) pays nothing for it.
        let shown = !follow && (json || (Output.isTerminal && !files && !print0))
        let suggestions: [SpellingSuggestion]
        do {
            suggestions = fuzzy || shown ? try index.suggestions(for: request.match) : []
        } catch { throw IndexLocation.failure(error, path: index.path) }
        // Asked for (--fuzzy), or a slip far likelier than the word typed: its matches too, said.
        let typed = request.match
        var searched = fuzzy ? suggestions : suggestions.filter(\.isConfident)
        if !searched.isEmpty {
            request.match = typed?.widened(with: searched)
        }
        if follow {
            guard let following = Self.following else { throw CommandFailure("--follow is run by docent-engine") }
            return try following(self, request, index)
        }
        var hits: [SearchHit]
        do { hits = try index.search(request) } catch { throw IndexLocation.failure(error, path: index.path) }
        // Nothing matched a misspelt word: a person is shown what the suggestions find, and told
        // (a list of paths for a script stays empty, with its exit status).
        if hits.isEmpty, shown, searched.count < suggestions.count {
            request.match = typed?.widened(with: suggestions)
            do { hits = try index.search(request) } catch { throw IndexLocation.failure(error, path: index.path) }
            searched = hits.isEmpty ? [] : suggestions
        }
        showSuggestions(suggestions, searched: searched)
        // Identical files are one hit with the other places listed; a list of paths keeps every file.
        let (unique, alsoAt) = files || print0 ? (hits, [:]) : IdenticalHits.folded(hits, in: index)
        // One document's typeset forms (`.pdf`, `.dvi`, `.ps` side by side) are one hit too.
        let (shownHits, alsoAs) = files || print0 ? (unique, [:]) : Renditions.folded(unique)
        for hit in shownHits { show(hit, event: nil, alsoAt: alsoAt[hit.id] ?? [], alsoAs: alsoAs[hit.id] ?? []) }
        if hits.isEmpty {
            // A person at a terminal is told; a script has the exit status and an empty output.
            if Output.isTerminal, !json, !files, !print0 { Output.error("no matches for \(Self.queryWords(query).joined(separator: " ").terminalSafe)") }
            throw ExitCode(1)
        }
    }

    /// "Did you mean …" before the hits, and "Also searched" for the suggestions whose matches
    /// are among them: lines on a terminal, a JSON object under --json.
    private func showSuggestions(_ suggestions: [SpellingSuggestion], searched: [SpellingSuggestion]) {
        guard !suggestions.isEmpty, !files, !print0 else { return }
        if json { return Output.line(JSONRenderer.encode(SuggestionsJSON(suggestions: suggestions, fuzzy: !searched.isEmpty))) }
        let terminal = Output.isTerminal && !Terminal.noColor
        let (open, close) = terminal ? ("\u{1B}[1m", "\u{1B}[0m") : ("", "")
        func words(_ suggestions: [SpellingSuggestion]) -> String {
            suggestions.map { open + $0.suggestion.terminalSafe + close + " (\($0.files) file\($0.files == 1 ? "" : "s"))" }.joined(separator: ", ")
        }
        if !searched.isEmpty {
            Output.line("Also searched: \(words(searched)), for " + searched.map { $0.word.terminalSafe }.joined(separator: ", ") + ".")
        }
        let others = suggestions.filter { !searched.contains($0) }
        if !others.isEmpty {
            Output.line("Did you mean \(words(others))? `docent search --fuzzy \(Self.queryWords(query).joined(separator: " ").terminalSafe)` searches it too.")
        }
    }

    /// The command for a plain command line, parsed without ArgumentParser (whose
    /// reflection-based parsing costs a search process about a millisecond): the query's words
    /// and `--limit`, `--json`, `--files`, `-0`/`--print0`, `--fuzzy`, `--index`. Anything else (help,
    /// `--follow`, `--`, an unknown option, a bad value) returns nil, for ArgumentParser to parse
    /// and to explain. As with ArgumentParser, a word starting with a single dash belongs to the
    /// query (`-draft` excludes).
    package static func plain(_ arguments: [String]) -> SearchCommand? {
        guard arguments.first == "search" else { return nil }
        var query: [String] = [], limit = 20, json = false, files = false, print0 = false, fuzzy = false
        var index: String?
        var rest = arguments.dropFirst()
        while let argument = rest.first {
            rest = rest.dropFirst()
            var option = argument, value: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                option = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            func takeValue() -> String? {
                if let value { return value }
                guard let next = rest.first, !next.hasPrefix("-") else { return nil }
                rest = rest.dropFirst()
                return next
            }
            switch option {
            case "--limit":
                guard let text = takeValue(), let n = Int(text), n >= 1 else { return nil }
                limit = n
            case "--index":
                guard let text = takeValue(), !text.isEmpty else { return nil }
                index = text
            case "--json" where value == nil: json = true
            case "--files" where value == nil: files = true
            case "--print0" where value == nil, "-0": print0 = true
            case "--fuzzy" where value == nil: fuzzy = true
            default:
                // Short options (-h, -0) may be bundled: those are ArgumentParser's to read.
                if argument.hasPrefix("--") || argument == "-" || argument.isEmpty
                    || (argument.hasPrefix("-") && argument.dropFirst().allSatisfy({ $0 == "h" || $0 == "0" })) { return nil }
                query.append(argument)
            }
        }
        guard !query.isEmpty else { return nil }
        var command = SearchCommand()
        command.query = query
        command.limit = limit
        (command.offset, command.sort) = (0, .relevance)  // every option set: a wrapper left unset cannot be read
        command.json = json
        command.files = files
        command.print0 = print0
        command.fuzzy = fuzzy
        command.follow = false
        var location = IndexLocation()
        location.path = index
        command.location = location
        return command
    }

    /// The parsed query as a request; a syntax error or an unknown type is a usage error.
    /// The query's arguments without the `--` that ends the options (`docent search -- -draft
    /// notes`), which `.allUnrecognized` hands over with them.
    package static func queryWords(_ arguments: [String]) -> [String] {
        guard let end = arguments.firstIndex(of: "--") else { return arguments }
        var words = arguments
        words.remove(at: end)
        return words
    }

    private func makeRequest(_ index: any IndexStore) throws -> SearchRequest {
        let parsed: SearchQuery
        do {
            parsed = try SearchQuery.parse(Self.queryWords(query).joined(separator: " "))
        } catch {
            throw CommandFailure(error.description)
        }
        var request = try SearchRequest(parsed, limit: limit, in: index)
        (request.offset, request.order) = (offset, sort)
        // A list of paths shows no snippets: none are made (each is a pass over a file's text).
        if files || print0 { request.snippets = false }
        return request
    }

    /// Prints one hit in the chosen form; `event` tags JSON objects under --follow.
    package func show(_ hit: SearchHit, event: String?, alsoAt: [String] = [], alsoAs: [String] = []) {
        // Another host's file is named host:path (scp's form), never as a path of this machine.
        let path = hit.place
        if print0 {
            Output.write(Data(path + [0]))
        } else if files {
            Output.write(Data(path + [0x0A]))
        } else if json {
            Output.line(JSONRenderer.encode(HitJSON(hit, event: event, alsoAt: alsoAt, alsoAs: alsoAs)))
        } else {
            Output.line(HitFormat.text(hit, terminal: Output.isTerminal && !Terminal.noColor, alsoAt: alsoAt, alsoAs: alsoAs))
        }
    }
}

extension SearchRequest {
    /// The request for a parsed query: `type:` names expanded through the conformance the
    /// index recorded, `in:` directories made absolute. An unknown type is a `CommandFailure`.
    package init(_ parsed: SearchQuery, limit: Int, in index: any IndexStore) throws {
        self.init(match: parsed.match, limit: limit)
        if !parsed.types.isEmpty {
            var allowed: Set<String>?
            for name in parsed.types {
                let expanded = try TypeNames.expand(name, in: index)
                allowed = allowed.map { $0.intersection(expanded) } ?? expanded
            }
            contentTypes = allowed
        }
        for name in parsed.excludedTypes { excludedContentTypes.formUnion(try TypeNames.expand(name, in: index)) }
        excluded = parsed.excluded
        extensions = parsed.extensions
        excludedExtensions = parsed.excludedExtensions
        nameGlobs = parsed.nameGlobs
        directories = parsed.directories.map { Array(Paths.absolute($0).string.utf8) }
        size = parsed.size
        modified = parsed.modified
        hosts = parsed.hosts
    }
}

/// Suggestions as `--json` prints them, before the hits: `{"suggestions": [{"word": "recieve",
/// "suggestion": "receive", "files": 12, "filesTyped": 0}], "fuzzy": false}`.
package struct SuggestionsJSON: Encodable {
    package let suggestions: [SpellingSuggestion]
    package let fuzzy: Bool
}

/// A hit as `--json` prints it.
package struct HitJSON: Encodable {
    package let path: String, contentType: String, title: String?, score: Double, snippet: String
    /// The host the file is on, when not this one (an index shared on PostgreSQL).
    package let host: String?
    /// Under --follow: "match" (the first results), "added".
    package let event: String?
    /// The places of identical files folded into this hit.
    package let alsoAt: [String]?
    /// The places of the same document's other typeset forms (`.dvi`, `.ps` beside a `.pdf`).
    package let alsoAs: [String]?
    package init(_ hit: SearchHit, event: String? = nil, alsoAt: [String] = [], alsoAs: [String] = []) {
        self.event = event
        self.alsoAt = alsoAt.isEmpty ? nil : alsoAt
        self.alsoAs = alsoAs.isEmpty ? nil : alsoAs
        path = hit.displayPath
        host = hit.host
        contentType = hit.contentType
        title = hit.title
        score = hit.score
        snippet = hit.readableSnippet.replacingOccurrences(of: SearchHit.matchStart, with: "[").replacingOccurrences(of: SearchHit.matchEnd, with: "]")
    }
}

package enum HitFormat {
    /// The types' descriptions, read once a process, at the first hit printed.
    private static let descriptions = Locked<TypeDescriptions?>(nil)

    /// A type in people's words: its description ("PDF document"), else its identifier.
    package static func describe(_ identifier: String) -> String {
        descriptions.withLock { descriptions in
            if descriptions == nil { descriptions = UTTypeRegistry.descriptions() }
            return descriptions?[identifier] ?? identifier
        }
    }

    /// A hit as three lines: its place, its type, score and title, its snippet; made over the
    /// snippet's scalars, without Foundation's string bridging (0.3 ms of a search process's
    /// CPU time).
    package static func text(_ hit: SearchHit, terminal: Bool, alsoAt: [String] = [], alsoAs: [String] = []) -> String {
        let (open, close) = terminal ? ("\u{1B}[1m", "\u{1B}[0m") : ("[", "]")
        // The file's text made safe piece by piece, so the match markers survive as ours: a
        // match start, then its end, mark a match; any other marker is the file's own.
        let scalars = hit.readableSnippet.unicodeScalars
        let (start, end) = (SearchHit.matchStart.unicodeScalars.first!, SearchHit.matchEnd.unicodeScalars.first!)
        var snippet = String.UnicodeScalarView()
        func appendSafe(_ piece: Substring.UnicodeScalarView) {
            for scalar in piece { snippet.appendTerminalSafe(scalar == "\n" ? " " : scalar) }
        }
        for (index, piece) in scalars.split(separator: start, omittingEmptySubsequences: false).enumerated() {
            guard index > 0, let close_ = piece.firstIndex(of: end) else {
                appendSafe(piece)
                continue
            }
            snippet.append(contentsOf: open.unicodeScalars)
            appendSafe(piece[..<close_])
            snippet.append(contentsOf: close.unicodeScalars)
            appendSafe(piece[piece.index(after: close_)...])
        }
        let place = hit.displayPlace
        var text = (terminal ? "\u{1B}[1;36m" : "") + place.terminalSafe + (terminal ? "\u{1B}[0m" : "")
        // People's words here; the identifier is in --json's contentType.
        text += "\n  " + describe(hit.contentType).terminalSafe + " · score " + scoreText(hit.score)
        if let title = hit.title, !title.isEmpty { text += " · " + title.terminalSafe }
        if !snippet.isEmpty { text += "\n  " + String(snippet) }
        if !alsoAt.isEmpty { text += "\n  the same file also at " + alsoAt.map(\.terminalSafe).joined(separator: ", ") }
        if !alsoAs.isEmpty { text += "\n  the same document also as " + alsoAs.map(\.terminalSafe).joined(separator: ", ") }
        return text
    }

    /// `score` as `%.3g` prints it (C's formatting, as `String(format:)` did).
    static func scoreText(_ score: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 32)
        let length = withVaList([score]) { vsnprintf(&buffer, buffer.count, "%.3g", $0) }
        return String(decoding: buffer.prefix(max(0, min(Int(length), buffer.count - 1))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Short type names for `type:`.
package enum TypeNames {
    package static let shortNames: [String: String] = [
        "pdf": "com.adobe.pdf", "image": "public.image", "text": "public.text", "source": "public.source-code",
        "code": "public.source-code", "markdown": "net.daringfireball.markdown", "html": "public.html", "json": "public.json",
        "xml": "public.xml", "csv": "public.comma-separated-values-text", "audio": "public.audio", "video": "public.movie",
        "archive": "public.archive", "script": "public.script", "python": "public.python-script", "swift": "public.swift-source",
        "document": "public.composite-content", "spreadsheet": "public.spreadsheet", "presentation": "public.presentation",
        "executable": "public.executable", "font": "public.font",
    ]

    /// The identifiers of `name`'s type and every type that conforms to it: from the
    /// conformance the index recorded when it can answer (an identifier or a short name), else
    /// from the type registry (extensions, MIME types; it reads the shared-mime-info database).
    package static func expand(_ name: String, in index: any IndexStore) throws -> Set<String> {
        let identifier = shortNames[name.lowercased()] ?? name
        if !identifier.contains("/"), identifier.contains("."), let found = try? index.contentTypes(conformingTo: identifier) {
            return found
        }
        return try expand(name, in: UTTypeRegistry.shared)
    }

    /// The identifiers of `name`'s type and every type that conforms to it.
    package static func expand(_ name: String, in registry: UTTypeRegistry) throws -> Set<String> {
        let identifier = shortNames[name.lowercased()] ?? name
        guard let type = registry.type(identifier: identifier) ?? (name.contains("/") ? registry.type(mimeType: name) : nil)
            ?? registry.types(filenameExtension: name).first
        else {
            throw CommandFailure("unknown type '\(name)' in type: (an identifier such as public.image, a short name such as pdf, image, text, source, markdown, or an extension)")
        }
        // Every declared type below it, breadth-first through the direct subtypes.
        var found: Set<String> = [type.identifier]
        var queue = [type.identifier]
        while let next = queue.popLast() {
            for subtype in registry.subtypes(of: next) where found.insert(subtype.identifier).inserted {
                queue.append(subtype.identifier)
            }
        }
        return found
    }
}

extension SearchOrder: ExpressibleByArgument {}

