import FileAccess
import Foundation

/// The parts of the system's shared-mime-info database Docent uses, read from the files
/// `update-mime-database` generates from `packages/*.xml` in each `mime` directory:
/// `types`, `globs2`, `aliases`, `subclasses`, `magic` and `XMLnamespaces` (and
/// `<media>/<subtype>.xml` for descriptions, read only when one is asked for).
///
/// The generated files are what the specification tells applications to read: they merge
/// every package file (the system's and the user's) and are cheap to load at start-up.
package struct SharedMIMEInfo: Sendable {
    /// Every MIME type known, canonical names only.
    package var types: Set<String> = []
    /// Alias → canonical MIME type.
    package var aliases: [String: String] = [:]
    /// MIME type → its declared parents (`sub-class-of`).
    package var parents: [String: [String]] = [:]
    /// Glob rules, in the order found.
    package var globs: [GlobRule] = []
    /// Content rules (`magic`), highest priority first.
    package var magic = MagicRules()
    /// XML root elements that name a type (`XMLnamespaces`).
    package var xmlRoots = XMLRootRules()
    /// The directories read, highest priority first.
    package var directories: [String] = []

    /// An empty database.
    package init() {}

    /// The `mime` directories of the XDG base directories, highest priority first:
    /// `$XDG_DATA_HOME/mime`, then each of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`).
    package static func defaultDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let dataDirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        return ([dataHome] + dataDirs.split(separator: ":").map(String.init)).map { $0 + "/mime" }
    }

    /// Loads and merges the databases in `directories` (highest priority first);
    /// directories without generated files are skipped.
    package static func load(directories: [String]) -> SharedMIMEInfo {
        var db = SharedMIMEInfo()
        // Lowest priority first, so higher ones override.
        for dir in directories.reversed() {
            let fm = FileManager.default
            guard fm.fileExists(atPath: dir + "/globs2") || fm.fileExists(atPath: dir + "/types") else { continue }
            db.directories.insert(dir, at: 0)
            db.merge(directory: dir)
        }
        return db
    }

    private mutating func merge(directory dir: String) {
        if let text = Self.read(dir + "/types") {
            for line in text.split(separator: "\n") where !line.isEmpty { types.insert(String(line)) }
        }
        if let text = Self.read(dir + "/aliases") {
            for line in text.split(separator: "\n") {
                let f = line.split(separator: " ")
                if f.count == 2 { aliases[String(f[0])] = String(f[1]) }
            }
        }
        if let text = Self.read(dir + "/subclasses") {
            for line in text.split(separator: "\n") {
                let f = line.split(separator: " ")
                guard f.count == 2 else { continue }
                let child = String(f[0]), parent = String(f[1])
                if !(parents[child]?.contains(parent) ?? false) { parents[child, default: []].append(parent) }
            }
        }
        if let data = WholeFile.read(dir + "/magic") {
            // A directory's rules for a type replace those of the directories below it.
            let (sections, cleared) = MagicRules.parseCompiled(Array(data))
            for mime in Set(sections.map(\.mimeType)).union(cleared) { magic.removeAll(of: mime) }
            for section in sections { magic.add(section) }
        }
        if let text = Self.read(dir + "/XMLnamespaces") {
            for (namespace, localName, mime) in XMLRootRules.parse(text) {
                xmlRoots.add(namespace: namespace, localName: localName, type: mime)
            }
        }
        if let text = Self.read(dir + "/globs2") {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                // weight:mimetype:glob[:flags]
                let f = line.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
                guard f.count >= 3, let weight = Int(f[0]) else { continue }
                let mime = String(f[1]), pattern = String(f[2])
                if pattern == "__NOGLOBS__" {
                    globs.removeAll { $0.mimeType == mime }  // a higher-priority directory drops lower ones' globs
                    continue
                }
                let flags = f.count > 3 ? f[3].split(separator: ",") : []
                globs.append(GlobRule(mimeType: mime, pattern: pattern, weight: weight, caseSensitive: flags.contains("cs")))
            }
        }
    }

    /// The English `<comment>` of `mimeType`, from `<media>/<subtype>.xml` in the first
    /// directory that has one.
    package static func comment(for mimeType: String, directories: [String]) -> String? {
        for dir in directories {
            guard let text = read(dir + "/" + mimeType + ".xml") else { continue }
            var rest = Substring(text)
            while let open = rest.range(of: "<comment") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ">") else { break }
                let attributes = after[..<close]
                let body = after[after.index(after: close)...]
                guard let end = body.range(of: "</comment>") else { break }
                if !attributes.contains("xml:lang") {
                    return unescapeXML(String(body[..<end.lowerBound]))
                }
                rest = body[end.upperBound...]
            }
        }
        return nil
    }

    static func read(_ path: String) -> String? {
        guard let data = WholeFile.read(path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func unescapeXML(_ s: String) -> String {
        guard s.contains("&") else { return s }
        return s.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
