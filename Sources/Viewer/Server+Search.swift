import ContentTypes
import DocentCLI
import DocentKit
import Foundation
import Hummingbird
import Index

/// The search page's side of the server: a query and its filters read from the request, run
/// as `docent search` runs them, and followed live.
extension ViewerServer {
    /// A search's request, or what the page shows instead (nothing asked, a query error).
    enum Prepared: Sendable {
        case request(SearchRequest)
        case shown(Pages.Outcome)
    }

    static func parameters(_ request: Request) -> (query: String, group: String, root: String) {
        let parameters = form(request.uri.query)
        return (parameters["q"] ?? "", parameters["group"] ?? "", parameters["root"] ?? "")
    }

    /// A query string as a form sends it (`application/x-www-form-urlencoded`: "+" is a space,
    /// which a browser's form and URLSearchParams both write); the first value of each name.
    static func form(_ query: String?) -> [String: String] {
        var out: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decode(parts[0])
            if out[name] == nil { out[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return out
    }

    /// The page's order and where its hits start (`sort=`, `offset=`).
    static func paging(_ request: Request) -> (order: SearchOrder, offset: Int) {
        let form = form(request.uri.query)
        return (form["sort"].flatMap(SearchOrder.init(rawValue:)) ?? .relevance, max(0, form["offset"].flatMap(Int.init) ?? 0))
    }

    /// Runs a search as `docent search` does, with the page's filters, order and offset; the
    /// total of matching files with the hits.
    func search(query: String, group: String, root: String, order: SearchOrder = .relevance, offset: Int = 0) throws -> Pages.Outcome {
        switch try request(query: query, group: group, root: root) {
        case .shown(let outcome):
            return outcome
        case .request(var request):
            (request.order, request.offset) = (order, offset)
            do {
                var found = try index.search(request)
                // "Did you mean" only for a query nothing matched: a keystroke with hits pays nothing.
                let suggestions = found.isEmpty ? (try? index.suggestions(for: request.match)) ?? [] : []
                // Nothing matched a misspelt word: the matches of what it meant, said (as `docent search` does).
                var corrected = false
                if found.isEmpty, !suggestions.isEmpty, let match = request.match {
                    var meant = request
                    meant.match = match.widened(with: suggestions)
                    found = try index.search(meant)
                    (request, corrected) = (meant, !found.isEmpty)
                }
                // A first page that holds every match needs no count.
                let total = offset == 0 && found.count < request.limit ? found.count : try index.count(request)
                // Identical files are one hit, the best placed, with the other places listed.
                let (unique, alsoAt) = IdenticalHits.folded(found, in: index)
                // One document's typeset forms (`.pdf`, `.dvi`, `.ps` side by side) too.
                let (hits, alsoAs) = Renditions.folded(unique)
                let shown = hits.count + alsoAt.values.reduce(0) { $0 + $1.count } + alsoAs.values.reduce(0) { $0 + $1.count }
                return .hits(hits, query: query, suggestions: suggestions, total: total, offset: offset,
                             more: Self.address(query: query, group: group, root: root, order: order, offset: offset + shown), alsoAt: alsoAt,
                             alsoAs: alsoAs, corrected: corrected)
            } catch {
                return .error(message: "\(error)", column: nil, query: query)
            }
        }
    }

    /// The search page's address for these parameters.
    static func address(query: String, group: String, root: String, order: SearchOrder, offset: Int) -> String {
        var components = URLComponents()
        components.path = "/"
        components.queryItems = [("q", query), ("group", group), ("root", root), ("sort", order == .relevance ? "" : order.rawValue),
                                 ("offset", offset == 0 ? "" : String(offset))]
            .filter { !$0.1.isEmpty }.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.string ?? "/"
    }

    /// The request for the page's query and filters.
    func request(query: String, group: String, root: String) throws -> Prepared {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty, group.isEmpty, root.isEmpty { return .shown(.none) }
        var request: SearchRequest
        if trimmed.isEmpty {
            request = SearchRequest(match: nil, limit: Self.limit)
        } else {
            let parsed: SearchQuery
            // A phrase still being typed ("free softw) is searched as typed so far: the list
            // does not empty itself at each keystroke until the closing quote.
            let closed = trimmed.filter { $0 == "\"" }.count % 2 == 1 ? trimmed + "\"" : trimmed
            do { parsed = try SearchQuery.parse((try? SearchQuery.parse(trimmed)) == nil ? closed : trimmed) } catch {
                // The column counts in the query as typed, so leading spaces count too.
                let offset = query.prefix { $0 == " " }.count
                return .shown(.error(message: error.message, column: error.column + offset, query: query))
            }
            do { request = try SearchRequest(parsed, limit: Self.limit, in: index) } catch let failure as CommandFailure {
                return .shown(.error(message: failure.message, column: nil, query: query))
            }
        }
        if let identifier = TypeCategories.order.first(where: { $0.name == group })?.identifier {
            let allowed = try TypeNames.expand(identifier, in: index)
            request.contentTypes = request.contentTypes.map { $0.intersection(allowed) } ?? allowed
        }
        if !root.isEmpty { request.directories.append(Array(root.utf8)) }
        return .request(request)
    }

    /// The groups and roots the page offers as filters.
    func filters() throws -> (groups: [String], roots: [String]) {
        let statistics = try index.statistics()
        let groups = TypeCategories.count(statistics.contentTypes, in: .shared).map(\.0).filter { $0 != "other" }
        return (groups, statistics.roots.map { String(decoding: $0.path, as: UTF8.self) })
    }

    /// The results again each time the set of matching files changes (a file starts or
    /// stops matching), as `docent search --follow` reports them.
    func searchEvents(query: String, group: String, root: String) -> AsyncStream<ServerSentEvent> {
        let (events, continuation) = AsyncStream<ServerSentEvent>.makeStream()
        let updates = commits.subscribe()
        let task = Task {
            guard case .request(var everything)? = try? await offPool({ try request(query: query, group: group, root: root) })
            else { return continuation.finish() }
            everything.limit = Int.max
            everything.snippets = false
            everything.ranked = false  // the set is compared, not its order
            let all = everything
            var matching = Set(((try? await offPool { try index.search(all) }) ?? []).map(\.id))
            // The set later commits are compared with is taken: from here on, every new match is sent.
            continuation.yield(ServerSentEvent(name: "ready", data: "\(matching.count)"))
            for await _ in updates {
                guard let now = try? await offPool({ try index.search(all) }) else { continue }
                let ids = Set(now.map(\.id))
                guard ids != matching else { continue }
                let added = ids.subtracting(matching)
                matching = ids
                guard let shown = try? await offPool({ try search(query: query, group: group, root: root) }) else { continue }
                continuation.yield(ServerSentEvent(name: "results", data: Pages.results(shown, fresh: added)))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return events
    }
}
