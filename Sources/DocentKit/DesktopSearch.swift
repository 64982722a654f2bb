import CDesktopBus
import ContentTypes
import DocentCLI
import FileAccess
import Foundation
import Index
import Logging
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The desktop search service behind `docent desktop run`: the words GNOME Shell or KRunner
/// send are a `docent search` query; results are named by their row ids, never by paths, so
/// opening one runs the opener on a file the index holds, whatever a caller sends.
final class DesktopSearch {
    let location: IndexLocation
    let opener: [String]
    /// Results per question (GNOME Shell shows a few, KRunner a few more).
    let limit = 20
    private let logger = Logger(label: "docent.desktop")
    /// The last searches' snippets by row id, for the descriptions GNOME Shell asks for next.
    private var snippets: [Int64: String] = [:]

    init(location: IndexLocation, opener: [String]) {
        self.location = location
        self.opener = opener
    }

    /// Serves on the session bus until idle for `idleSeconds` (0: until stopped).
    func serve(idleSeconds: Int) throws {
        var handlers = docent_bus_handlers()
        handlers.context = Unmanaged.passUnretained(self).toOpaque()
        handlers.search = { context, terms, out in
            DesktopSearch.from(context).answer(DesktopSearch.strings(terms), into: out)
        }
        handlers.metas = { context, ids, out in
            DesktopSearch.from(context).metas(DesktopSearch.strings(ids), into: out)
        }
        handlers.activate = { context, id, action in
            DesktopSearch.from(context).activate(id.map { String(cString: $0) } ?? "", action: action.map { String(cString: $0) } ?? "")
        }
        handlers.launch = { _, _ in }
        var error = [CChar](repeating: 0, count: 512)
        let status = withExtendedLifetime(self) {
            docent_bus_run(DesktopCommand.busName, DesktopCommand.gnomePath, DesktopCommand.krunnerPath, &handlers,
                           UInt32(idleSeconds), &error, error.count)
        }
        if status != 0 { throw CommandFailure(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> DesktopSearch {
        Unmanaged<DesktopSearch>.fromOpaque(context!).takeUnretainedValue()
    }

    private static func strings(_ list: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        var out: [String] = [], i = 0
        while let item = list[i] {
            out.append(String(cString: item))
            i += 1
        }
        return out
    }

    // MARK: Questions

    /// The hits for `terms` as `docent search` finds them.
    func search(_ terms: [String]) -> [SearchHit] {
        let text = terms.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return [] }
        do {
            let index = try location.openForSearching()
            defer { try? index.close() }
            // Words typed into a desktop's search field are a query as `docent search` takes it;
            // one that is not well formed (an open quote while typing) is read as plain words.
            let query = (try? SearchQuery.parse(text)) != nil ? text : Self.plainWords(text)
            guard let parsed = try? SearchQuery.parse(query) else { return [] }
            let hits = try index.search(SearchRequest(parsed, limit: limit, in: index))
            // Typing: a last word that finds nothing yet is tried as the start of a word.
            if hits.isEmpty, let last = query.split(separator: " ").last, last.allSatisfy({ $0.isLetter || $0.isNumber }),
               let prefixed = try? SearchQuery.parse(query + "*") {
                return try index.search(SearchRequest(prefixed, limit: limit, in: index))
            }
            return hits
        } catch {
            logger.warning("search for \(text): \(error)")
            return []
        }
    }

    /// `text` with the query language's punctuation taken out (what a quote or a parenthesis
    /// typed half-way means nothing yet).
    static func plainWords(_ text: String) -> String {
        String(text.map { "\"()".contains($0) ? " " : $0 })
    }

    private func answer(_ terms: [String], into out: OpaquePointer?) {
        let hits = search(terms)
        let best = hits.first.map { max($0.score, 1e-9) } ?? 1
        snippets = Dictionary(hits.map { ($0.id, $0.readableSnippet) }, uniquingKeysWith: { a, _ in a })
        for hit in hits {
            let meta = Meta(hit: hit)
            docent_results_add(out, String(hit.id), meta.name, meta.description, Self.mimeType(hit.contentType),
                               hit.score > 0 ? min(1, hit.score / best) : 0.5)
        }
    }

    private func metas(_ ids: [String], into out: OpaquePointer?) {
        guard let index = try? location.openForSearching() else { return }
        defer { try? index.close() }
        for id in ids {
            guard let number = Int64(id), let file = try? index.file(id: number) else { continue }
            let meta = Meta(file: file, snippet: snippets[number])
            docent_results_add(out, id, meta.name, meta.description, Self.mimeType(file.contentType), 0)
        }
    }

    /// Runs the opener on the file the row `id` stands for (its directory for "open-folder").
    func activate(_ id: String, action: String) {
        guard let number = Int64(id), let index = try? location.openForSearching() else { return }
        defer { try? index.close() }
        guard let file = try? index.file(id: number) else {
            logger.warning("no file with id \(id) in the index")
            return
        }
        guard file.host == nil else {
            logger.warning("\(file.host ?? ""):\(file.displayPath) is on another machine; `docent preview \(file.host ?? ""):\(file.displayPath)` shows what it stored")
            return
        }
        var path = FilePath(bytes: file.path)
        if action == "open-folder" { path = path.removingLastComponent() }
        do { try Detached.start(opener + [path.string]) } catch { logger.error("cannot start \(opener[0]): \(error)") }
    }

    /// The MIME type a content type identifier stands for (the icon's key), if known.
    static func mimeType(_ identifier: String) -> String? {
        UTTypeRegistry.shared.type(identifier: identifier)?.preferredMIMEType
    }
}

/// A result's name and description as the desktop shows them.
struct Meta {
    var name: String
    var description: String

    init(hit: SearchHit) {
        self.init(path: hit.path, host: hit.host, title: hit.title, snippet: hit.readableSnippet)
    }

    init(file: IndexedFile, snippet: String?) {
        self.init(path: file.path, host: file.host, title: file.title, snippet: snippet)
    }

    /// Name: the title when the document has one, else the file name. Description: where it
    /// is (`~` for home, `host:` for another machine) and the text around the match.
    init(path: [UInt8], host: String?, title: String?, snippet: String?) {
        let filePath = FilePath(bytes: path)
        let fileName = filePath.lastComponent.map { String(decoding: Array($0.string.utf8), as: UTF8.self) } ?? filePath.string
        name = title.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 } ?? fileName
        var place = String(decoding: filePath.removingLastComponent().string.utf8, as: UTF8.self)
        if let home = ProcessInfo.processInfo.environment["HOME"], home.count > 1, place == home || place.hasPrefix(home + "/") {
            place = "~" + place.dropFirst(home.count)
        }
        if let host { place = host + ":" + place }
        if name != fileName { place += "/" + fileName }
        let text = (snippet ?? "").replacingOccurrences(of: SearchHit.matchStart, with: "").replacingOccurrences(of: SearchHit.matchEnd, with: "")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        description = text.isEmpty ? place : place + " — " + text
    }
}

/// Programs started for the desktop (a browser, an opener) and not waited for.
package enum Detached {
    /// Starts `argv`, its command looked up in PATH, with no input and its output discarded;
    /// Foundation reaps it when it ends.
    package static func start(_ argv: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--"] + argv
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }
}
