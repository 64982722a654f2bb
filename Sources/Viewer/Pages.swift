import ContentTypes
import DocentKit
import DocumentModel
import Engine
import Foundation
import Index
import Rendering

/// The viewer's HTML. Every string that comes from a file, a path, the index or a request
/// goes through `escape` (Rendering's one place for it); pages carry no inline script or
/// style, so the Content-Security-Policy can forbid both.
enum Pages {
    /// A whole page: the viewer's head, `body`, and its script.
    static func page(title: String, body: String, bodyClass: String = "") -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>\(escape(title))</title>
        <link rel="stylesheet" href="/static/app.css">
        <link rel="icon" href="/static/icon.svg" type="image/svg+xml">
        <script src="/static/app.js" defer></script>
        </head>
        <body class="\(escape(bodyClass))">
        \(body)
        </body>
        </html>

        """
    }

    // MARK: Search

    /// What a search gave.
    enum Outcome: Sendable {
        /// Hits, and for a query nothing matched, what it may have meant (`corrected`: the hits
        /// are those of what it meant, as nothing matched the query as typed).
        /// `total` files match; the hits are those from `offset`; `more` is the address of the next ones.
        case hits([SearchHit], query: String, suggestions: [SpellingSuggestion] = [], total: Int? = nil, offset: Int = 0, more: String? = nil,
                  alsoAt: [Int64: [String]] = [:], alsoAs: [Int64: [String]] = [:], corrected: Bool = false)
        case error(message: String, column: Int?, query: String)
        case none
    }

    /// The search page, with `outcome` already in it (so `/?q=` works without script, and
    /// the first results need no second request).
    static func search(query: String, group: String, root: String, order: SearchOrder = .relevance, groups: [String], roots: [String],
                       outcome: Outcome, watching: Bool) -> String {
        let orders: [(SearchOrder, String)] = [(.relevance, "best match"), (.modified, "newest"), (.name, "name"), (.size, "largest")]
        let orderOptions = orders.map { value, label in
            "<option value=\"\(value == .relevance ? "" : value.rawValue)\"\(value == order ? " selected" : "")>\(label)</option>"
        }.joined()
        let groupOptions = (["" ] + groups).map { name in
            "<option value=\"\(escape(name))\"\(name == group ? " selected" : "")>\(name.isEmpty ? "all types" : escape(name))</option>"
        }.joined()
        let rootOptions = ([""] + roots).map { path in
            "<option value=\"\(escape(path))\"\(path == root ? " selected" : "")>\(path.isEmpty ? "all roots" : escape(path))</option>"
        }.joined()
        let body = """
            <header class="bar">
            <form id="search" action="/" method="get" role="search">
            <input id="q" name="q" type="search" value="\(escape(query))" placeholder="Search: words, &quot;a phrase&quot;, pre*, type:pdf, in:~/notes, modified:&lt;7d" autocomplete="off" spellcheck="false" autofocus aria-label="Search" aria-describedby="problem" aria-controls="hits">
            <select id="group" name="group" aria-label="Type">\(groupOptions)</select>
            <select id="root" name="root" aria-label="Root">\(rootOptions)</select>
            <select id="sort" name="sort" aria-label="Order">\(orderOptions)</select>
            <noscript><button>Search</button></noscript>
            </form>
            <nav><a href="/status">Status</a>\(watching ? "" : " <span class=\"warn\" title=\"No watcher keeps the index current\">not live</span>")</nav>
            </header>
            <main>
            <section id="results" aria-label="Results">\(results(outcome))</section>
            <section id="preview" aria-label="Preview" aria-live="polite"><p class="hint">↑ ↓ choose · Enter opens · Esc back to the search</p></section>
            </main>
            """
        return page(title: query.isEmpty ? "Docent" : "\(query) — Docent", body: body)
    }

    /// The results part of the search page: the count, the error at its column, the hits.
    /// `fresh` hits (files that just started matching) are marked as new. With
    /// `picturesLater`, thumbnails are named in `data-src` for the script to load once typing
    /// pauses: each keystroke's list would otherwise ask for pictures the next one replaces.
    static func results(_ outcome: Outcome, fresh: Set<Int64> = [], picturesLater: Bool = false) -> String {
        switch outcome {
        case .none:
            return "<p id=\"problem\" class=\"count\"></p><ol id=\"hits\" role=\"listbox\"></ol>"
        case .error(let message, let column, let query):
            var shown = escape(query)
            if let column, column >= 1 {
                let characters = Array(query)
                let at = min(column - 1, characters.count)
                let before = String(characters[..<at]), here = at < characters.count ? String(characters[at]) : " "
                let after = at + 1 < characters.count ? String(characters[(at + 1)...]) : ""
                shown = escape(before) + "<mark class=\"at\">" + escape(here) + "</mark>" + escape(after)
            }
            return """
                <p id="problem" class="problem" role="alert">\(column.map { "Column \($0): " } ?? "")\(escape(message))<br><code>\(shown)</code></p>\
                <ol id="hits" role="listbox"></ol>
                """
        case .hits(let hits, let query, let suggestions, let total, let offset, let more, let alsoAt, let alsoAs, let corrected):
            let all = total ?? hits.count
            // Files of this page, identical ones and other forms folded into their hit included.
            let covered = hits.count + alsoAt.values.reduce(0) { $0 + $1.count } + alsoAs.values.reduce(0) { $0 + $1.count }
            var count = all == 0 ? "No matches" : all == 1 ? "1 match" : "\(all.formatted()) matches"
            if offset > 0 || covered < all { count += " · \((offset + 1).formatted())–\((offset + covered).formatted()) shown" }
            if !suggestions.isEmpty {
                // The query with each word replaced by its suggestion, as a link to that search.
                let meant = query.split(separator: " ", omittingEmptySubsequences: false).map { word in
                    suggestions.first { $0.word == String(word) }?.suggestion ?? String(word)
                }.joined(separator: " ")
                var form = URLComponents()
                form.queryItems = [URLQueryItem(name: "q", value: meant)]
                count = corrected
                    ? "No matches for \(escape(query)); \(count.lowercased()) for <a class=\"suggestion\" href=\"/\(escape(form.string ?? ""))\">\(escape(meant))</a>"
                    : count + ". Did you mean <a class=\"suggestion\" href=\"/\(escape(form.string ?? ""))\">\(escape(meant))</a>?"
            }
            let rest = all - offset - covered
            let next = rest > 0 && !hits.isEmpty ? more.map {
                "<a class=\"more\" href=\"\(escape($0))\" data-offset=\"\(offset + covered)\">\(min(rest, covered).formatted()) more of \(rest.formatted())</a>"
            } ?? "" : ""
            return "<p id=\"problem\" class=\"count\">\(count)</p><ol id=\"hits\" role=\"listbox\" start=\"\(offset + 1)\">"
                + hits.map { hit($0, fresh: fresh.contains($0.id), pictureLater: picturesLater, alsoAt: alsoAt[$0.id] ?? [], alsoAs: alsoAs[$0.id] ?? []) }
                .joined() + "</ol>" + next
        }
    }

    static func hit(_ hit: SearchHit, fresh: Bool = false, pictureLater: Bool = false, alsoAt: [String] = [], alsoAs: [String] = []) -> String {
        let type = UTTypeRegistry.shared.type(identifier: hit.contentType)
        let name = hit.displayPath.split(separator: "/").last.map(String.init) ?? hit.displayPath
        let title = hit.title.flatMap { $0.isEmpty ? nil : $0 } ?? name
        // Another host's file (an index on PostgreSQL) is named host:path, and has no picture here.
        let place = hit.displayPlace
        let thumbnail = hit.host == nil && type.map(Pictures.canPicture) == true
            ? "<img class=\"thumb\" \(pictureLater ? "data-src" : "src")=\"/thumb/\(hit.id)?v=\(hit.modified)\" alt=\"\" loading=\"lazy\" width=\"64\" height=\"64\">"
            : "<span class=\"thumb kind\">\(escape(group(of: type)))</span>"
        return """
            <li id="hit-\(hit.id)" role="option" data-id="\(hit.id)"\(fresh ? " class=\"new\"" : "")><a href="/doc/\(hit.id)">\(thumbnail)<span class="what">\
            <span class="title">\(escape(title))</span> <span class="type" title="\(escape(hit.contentType))">\(escape(type?.localizedDescription ?? hit.contentType))</span>\
            <span class="path">\(escape(place))</span>\
            <time datetime="\(iso(hit.modified))">\(escape(date(hit.modified)))</time>\
            <span class="snippet">\(snippet(hit.readableSnippet))</span>\
            \(alsoAt.isEmpty ? "" : "<span class=\"also\">The same file also at " + alsoAt.map(escape).joined(separator: ", ") + "</span>")\
            \(alsoAs.isEmpty ? "" : "<span class=\"also\">The same document also as " + alsoAs.map(escape).joined(separator: ", ") + "</span>")</span></a></li>
            """
    }

    /// The snippet with its matches in `<mark>`, each piece escaped.
    static func snippet(_ snippet: String) -> String {
        snippet.split(separator: SearchHit.matchStart, omittingEmptySubsequences: false).enumerated().map { index, piece in
            let parts = piece.split(separator: SearchHit.matchEnd, maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            return index == 0 || parts.count < 2 ? escape(parts.joined()) : "<mark>" + escape(parts[0]) + "</mark>" + escape(parts[1])
        }.joined()
    }

    /// The status group a type counts in (`docent status`).
    static func group(of type: UTType?) -> String {
        guard let type else { return "other" }
        for entry in TypeCategories.order {
            if let group = UTTypeRegistry.shared.type(identifier: entry.identifier), type.conforms(to: group) { return entry.name }
        }
        return "other"
    }

    // MARK: Preview

    /// Image types a browser shows as they are; others are shown as a picture Docent makes.
    static let browserImages: Set<String> = ["public.png", "public.jpeg", "com.compuserve.gif", "org.webmproject.webp",
                                              "public.svg-image", "com.microsoft.bmp", "com.microsoft.ico", "public.avif"]

    /// Whether a browser shows files of `type` itself (an SVG too, as an `<img>`: no script runs there).
    static func isBrowserImage(_ type: UTType) -> Bool {
        browserImages.contains { identifier in UTTypeRegistry.shared.type(identifier: identifier).map(type.conforms(to:)) ?? false }
    }

    /// The document and its reader (the whole text, opened at the first match).
    static func preview(_ view: DocumentView, reader: String?) -> String {
        preview(view) + (reader ?? "")
    }

    /// Whether the reader is the whole view of documents of `type`: text and source code,
    /// whose preview would repeat the reader's first lines, and PDFs, whose reader shows each
    /// page's picture and text (the stylesheet hides the preview's then).
    static func readerIsTheView(_ type: UTType?) -> Bool {
        type.map { ($0.conforms(to: .plainText) && !$0.identifier.contains("markdown")) || $0.conforms(to: .pdf) } ?? false
    }

    static func preview(_ view: DocumentView) -> String {
        let file = view.file
        let id = view.id
        let extraction = view.extraction
        let title = extraction?.title.flatMap { $0.isEmpty ? nil : $0 } ?? file.name
        // People's words here; the type's identifier and the Swift type that read it are in "Why this type".
        var facts = [view.contentType?.localizedDescription ?? file.contentType]
        // A file compressed on its own is what it holds, the compression noted ("man page (troff), compressed").
        if let held = UTTypeRegistry.shared.type(identifier: file.contentType), let own = view.contentType,
           held.identifier != own.identifier, !own.conforms(to: held) {
            facts = [(held.localizedDescription ?? held.identifier) + ", compressed (" + (own.localizedDescription ?? own.identifier) + ")"]
        }
        if let status = view.status {
            facts.append(Figures.bytes(status.size))
            facts.append("modified " + date(status.modified))
        }
        var html = """
            <article class="doc" data-id="\(id)" data-version="\(view.status.map { "\($0.modified)-\($0.changed)-\($0.size)" } ?? "gone")">
            <header><h2>\(escape(title))</h2><p class="path">\(escape(file.displayPlace))</p>\
            <p class="facts">\(facts.map(escape).joined(separator: " · "))</p>\(view.status != nil && file.host == nil ? actions(id) : "")</header>

            """
        if let type = view.contentType, let status = view.status {
            let version = status.modified
            if isBrowserImage(type) {
                html += "<figure><img class=\"picture\" src=\"/raw/\(id)?v=\(version)\" alt=\"\(escape(title))\"></figure>\n"
            } else if Pictures.canPicture(type) {
                html += "<figure\(readerIsTheView(type) ? " class=\"plain\"" : "")><img class=\"picture\" src=\"/picture/\(id)?v=\(version)\" alt=\"\(escape(type.conforms(to: .pdf) ? "First page of " + title : title))\"></figure>\n"
            }
        }
        if let problem = view.problem { html += "<p class=\"note error\">\(escape(problem))</p>\n" }
        if let preview = extraction?.preview {
            html += "<section class=\"body\(readerIsTheView(view.contentType) ? " plain" : "")\">\n" + HTMLRenderer(loadsImages: false).body(preview) + "</section>\n"
        }
        let previewShowsMetadata = extraction?.preview?.elements.contains { if case .metadata = $0 { true } else { false } } ?? false
        if let fields = extraction?.metadata, !fields.isEmpty, !previewShowsMetadata {
            html += "<details open><summary>Metadata</summary><dl>"
                + fields.map { "<dt>\(escape($0.key))</dt><dd>\(escape($0.value.description))</dd>" }.joined() + "</dl></details>\n"
        }
        if !view.renditions.isEmpty {
            html += "<p class=\"renditions\">Download as: " + view.renditions.map { identifier in
                let label = UTTypeRegistry.shared.type(identifier: identifier)?.localizedDescription ?? identifier
                return "<a href=\"/export/\(id)?as=\(escape(identifier.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? identifier))\" download>\(escape(label))</a>"
            }.joined(separator: " · ") + "</p>\n"
        }
        if let explanation = view.explanation {
            let reader = extraction.map { "Read by \($0.documentType) as \(file.contentType).\n\n" } ?? ""
            html += "<details><summary>Why this type</summary><pre>\(escape(reader + explanation))</pre></details>\n"
        }
        return html + "</article>\n"
    }

    /// What can be done with the file itself: opened by the desktop's opener, its folder shown,
    /// its bytes opened in the browser or downloaded (POST for what runs a program).
    static func actions(_ id: Int64) -> String {
        """
        <div class="actions">\
        <form method="post" action="/open/\(id)"><button type="submit">Open</button></form>\
        <form method="post" action="/reveal/\(id)"><button type="submit">Show in folder</button></form>\
        <a href="/raw/\(id)" target="_blank" rel="noopener">View the original</a>\
        <a href="/raw/\(id)?download=1">Download</a>\
        </div>
        """
    }

    /// A preview as a page of its own (`/doc/ID`, for a link opened without script).
    static func previewPage(_ view: DocumentView, reader: String? = nil, query: String = "") -> String {
        var back = URLComponents()
        back.path = "/"
        if !query.isEmpty { back.queryItems = [URLQueryItem(name: "q", value: query)] }
        return page(title: view.file.name + " — Docent", body: """
            <header class="bar"><nav><a href="\(escape(back.string ?? "/"))">Search</a> <a href="/status">Status</a></nav></header>
            <main class="single"><section id="preview" data-follow="\(view.id)">\(preview(view, reader: reader))</section></main>
            """)
    }

    // MARK: Status

    static func status(_ statistics: IndexStatistics, watch: WatchStatus?, path: String) -> String {
        var html = "<section id=\"status\" aria-live=\"polite\"><h2>Index</h2><dl>"
        html += "<dt>Index</dt><dd>\(escape(path)) (\(escape(Figures.bytes(statistics.bytesOnDisk))))</dd>"
        html += "<dt>Files</dt><dd>\(statistics.files.formatted())</dd>"
        if let watch {
            html += "<dt>Watcher</dt><dd class=\"state-\(watch.state.rawValue)\">\(watch.state.rawValue) (pid \(watch.pid)): "
                + "\(watch.watchedDirectories.formatted()) directories watched, \(watch.overflows) overflows</dd>"
            html += "<dt>Pending changes</dt><dd>\(watch.pending.formatted())</dd>"
            if let problem = watch.problem { html += "<dt>Waiting</dt><dd class=\"problem\">\(escape(problem))</dd>" }
            for root in watch.missingRoots { html += "<dt>Missing root</dt><dd>\(escape(root))</dd>" }
            if watch.unwatched > 0 {
                html += "<dt>Not watched</dt><dd>\(watch.unwatched.formatted()) directories (inotify watch limit), rescanned every minute</dd>"
            }
        } else {
            html += "<dt>Watcher</dt><dd class=\"state-stopped\">not running: results are as fresh as the last index</dd>"
        }
        html += "</dl><h2>Roots</h2><table><thead><tr><th>Root</th><th>Files</th><th>Errors</th><th>Indexed</th></tr></thead><tbody>"
        for root in statistics.roots {
            html += "<tr><td>\(escape(String(decoding: root.path, as: UTF8.self)))</td><td>\(root.files.formatted())</td>"
                + "<td>\(root.errors.formatted())</td><td>\(escape(root.lastIndexed.map { Figures.age(of: $0, now: Date()) } ?? "never"))</td></tr>"
        }
        html += "</tbody></table><h2>Types</h2><table><tbody>"
        for (name, count) in TypeCategories.count(statistics.contentTypes, in: .shared) {
            html += "<tr><td>\(escape(name))</td><td>\(count.formatted())</td></tr>"
        }
        html += "</tbody></table>"
        if !statistics.errorKinds.isEmpty {
            html += "<h2>Errors</h2><table><tbody>"
            for (kind, count) in statistics.errorKinds.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
                html += "<tr><td>\(escape(kind))</td><td>\(count.formatted())</td></tr>"
            }
            html += "</tbody></table>"
        }
        return html + "</section>"
    }

    static func statusPage(_ fragment: String) -> String {
        page(title: "Status — Docent", body: """
            <header class="bar"><nav><a href="/">Search</a></nav></header>
            <main class="single" id="status-page">\(fragment)</main>
            """)
    }

    // MARK: Refusals

    static func refusal(_ title: String, _ message: String) -> String {
        page(title: title + " — Docent", body: "<main class=\"single\"><h1>\(escape(title))</h1><p>\(escape(message))</p></main>")
    }

    // MARK: Dates

    /// Nanoseconds since the epoch as "2026-11-23 14:05", local time.
    static func date(_ nanoseconds: Int64) -> String {
        var seconds = time_t(nanoseconds / 1_000_000_000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "" }
        return String(format: "%04d-%02d-%02d %02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min))
    }

    /// Nanoseconds since the epoch as RFC 3339 in UTC, for `<time datetime>`: the format style,
    /// as the document readers write dates (an `ISO8601DateFormatter` made per hit cost 120 µs
    /// each, 12% of the server's time).
    static func iso(_ nanoseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(nanoseconds) / 1e9).formatted(.iso8601)
    }
}
