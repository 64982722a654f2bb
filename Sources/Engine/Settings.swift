import FileAccess
import ContentTypes
package import DocumentModel
package import Documents
import Foundation
import Yams

/// Docent's settings: the defaults shipped in `Config/docent.yaml` with the user's
/// `config.yaml` (in `$XDG_CONFIG_HOME/docent`) laid over them.
package struct Settings: Sendable, Equatable {
    /// Directories indexed and watched when none are given, `~` expanded.
    package var roots: [String] = []
    /// Shell globs of names (or, with a "/", whole paths) left alone.
    package var exclude: [String] = []
    /// The most bytes of one file a document type reads.
    package var readBytes = 16 << 20
    /// The most text stored in the index for one file.
    package var textBytes = 16 << 20
    /// The most bytes of one file a document type that runs in the helper process reads
    /// (PDFs and archives are often larger than text).
    package var documentReadBytes = 256 << 20
    /// The longest one document may take in the helper process before it is stopped.
    package var documentSeconds = 30.0
    /// The helper process's address space: a document that needs more is stopped.
    package var documentMemoryBytes = 2 << 30
    /// Commands that read types Docent does not (`viewers:`; see `ExternalViewer`).
    package var viewers: [ExternalViewer] = []
    /// OCR of images and scanned PDF pages (`ocr: {enabled: true, languages: [eng]}`); nil: off.
    package var ocr: OCRSettings?
    /// Where the index is (`index:`): a database file, or a PostgreSQL address
    /// (`postgresql://host/db`, credentials from libpq's places) shared by several hosts; nil:
    /// the default file.
    package var index: String?
    /// This machine's name in a shared index (`host:`); nil: the host name.
    package var host: String?
    /// Names of marker files: a directory holding one is neither indexed nor watched, nor
    /// anything under it (`markers:`, `.noindex` by default).
    package var markers: [String] = []
    /// How often directories inotify cannot follow (network and FUSE file systems, and
    /// `poll.paths`) are compared with the index, in seconds (`poll.interval`).
    package var pollInterval = 300.0
    /// Directories compared with the index every `pollInterval` whatever their file system
    /// (`poll.paths`), `~` expanded.
    package var pollPaths: [String] = []
    /// Whether `docent watch` puts off rescans and its first reconcile while the machine
    /// runs on battery (`battery: defer`, the default) or works as on mains (`battery: run`).
    package var deferOnBattery = true
    /// The command a desktop search result is opened with, the file's path appended
    /// (`opener:`, `[xdg-open]` by default).
    package var opener: [String] = ["xdg-open"]

    /// The budgets documents opened in the helper run under.
    package var budget: DocumentBudget {
        DocumentBudget(readBytes: documentReadBytes, textBytes: textBytes, seconds: documentSeconds, memoryBytes: documentMemoryBytes,
                       ocr: ocr)
    }

    package init() {}

    /// Where the shipped defaults are named in messages.
    package static let defaultsName = "Config/docent.yaml"

    /// The shipped defaults, compiled into the binary (parsed once).
    package static func defaults() -> Settings { shippedDefaults }

    private static let shippedDefaults: Settings = {
        var settings = Settings()
        // The shipped file is tested; a failure here is a build defect, shown rather than hidden.
        do {
            try settings.apply(String(decoding: PackageResources.docent_yaml, as: UTF8.self), file: defaultsName, home: "~")
        } catch {
            fatalError("\(error)")
        }
        return settings
    }()

    /// The user's file: `config.yaml` in Docent's configuration directory.
    package static func userFilePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        UTTypeRegistry.configDirectory(environment: environment) + "/config.yaml"
    }

    /// The defaults with the user's file (when there is one) applied.
    ///
    /// - Throws: `SettingsError` naming the file and what is wrong with it.
    package static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(SettingsError) -> Settings {
        var settings = defaults()
        let path = userFilePath(environment: environment)
        guard let data = WholeFile.read(path) else { return settings }
        let home = environment["HOME"] ?? NSHomeDirectory()
        try settings.apply(String(decoding: data, as: UTF8.self), file: path, home: home)
        return settings
    }

    /// Lays the settings in `yaml` over these: roots and exclusions are added, limits replaced.
    /// The file is decoded first (`SettingsFile`); every error names the file, the key and its line.
    package mutating func apply(_ yaml: String, file: String, home: String) throws(SettingsError) {
        guard let (decoded, root) = try SettingsFile.decode(yaml, file: file) else { return }
        /// An error about the setting at `components` (keys, and indexes into lists).
        func problem(_ components: [String], _ message: String) -> SettingsError {
            SettingsError(file: file, line: SettingsFile.line(of: components, in: root), message: message)
        }
        func positive(_ value: Double?, _ components: [String]) throws(SettingsError) -> Double? {
            guard let value else { return nil }
            guard value > 0 else { throw problem(components, "`\(SettingsFile.name(components))` must be a positive number") }
            return value
        }
        let newMarkers = decoded.markers ?? []
        for (i, marker) in newMarkers.enumerated() where marker.isEmpty || marker.contains("/") || marker == "." || marker == ".." {
            throw problem(["markers", String(i)], "`markers`: `\(marker)` is not a file name")
        }
        markers += newMarkers
        if let poll = decoded.poll {
            if let interval = try positive(poll.interval, ["poll", "interval"]) { pollInterval = interval }
            let paths = (poll.paths ?? []).map { Self.expandingTilde($0, home: home) }
            for (i, path) in paths.enumerated() where !path.hasPrefix("/") {
                throw problem(["poll", "paths", String(i)], "`poll.paths`: `\(path)` is not an absolute path")
            }
            pollPaths += paths
        }
        if let battery = decoded.battery {
            guard ["defer", "run"].contains(battery) else { throw problem(["battery"], "`battery` must be defer or run") }
            deferOnBattery = battery == "defer"
        }
        if let command = decoded.opener {
            guard !command.isEmpty else { throw problem(["opener"], "`opener` must be a command and its arguments") }
            opener = command
        }
        if let text = decoded.index {
            guard !text.isEmpty else { throw problem(["index"], "`index` must be a path or a postgresql:// address") }
            if text.contains("://"), !(text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")) {
                throw problem(["index"], "`index`: \(text) is not a postgresql:// address (nor a path)")
            }
            if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
               text[scheme.upperBound..<at].contains(":") {
                throw problem(["index"], "`index` must not hold a password: put it in ~/.pgpass (PGPASSFILE) or a service file")
            }
            index = text.contains("://") ? text : Self.expandingTilde(text, home: home)
        }
        if let text = decoded.host {
            guard !text.isEmpty, !text.contains("/"), !text.contains(where: \.isWhitespace) else {
                throw problem(["host"], "`host` must be a name without spaces or slashes")
            }
            host = text
        }
        if let value = decoded.ocr { ocr = try Self.ocr(value, problem: problem) }
        for (i, item) in (decoded.viewers ?? []).enumerated() {
            let place = "viewers[\(i)]"
            guard !item.types.isEmpty else { throw problem(["viewers", String(i), "types"], "`\(place).types` must list at least one type") }
            guard !item.command.isEmpty else {
                throw problem(["viewers", String(i), "command"], "`\(place).command` must be a command and its arguments")
            }
            var viewer = ExternalViewer(types: item.types, command: item.command)
            if let output = item.output {
                guard let value = ExternalViewer.Output(rawValue: output) else {
                    throw problem(["viewers", String(i), "output"], "`\(place).output` must be plain-text or markdown")
                }
                viewer.output = value
            }
            if let seconds = try positive(item.seconds, ["viewers", String(i), "seconds"]) { viewer.seconds = seconds }
            if let bytes = try positive(item.outputBytes, ["viewers", String(i), "outputBytes"]) { viewer.outputBytes = Int(bytes) }
            viewers.append(viewer)
        }
        if decoded.excludeDefaults == false { exclude = [] }
        roots += (decoded.roots ?? []).map { Self.expandingTilde($0, home: home) }
        exclude += decoded.exclude ?? []
        if let limits = decoded.limits {
            if let value = try positive(limits.readBytes, ["limits", "readBytes"]) { readBytes = Int(value) }
            if let value = try positive(limits.textBytes, ["limits", "textBytes"]) { textBytes = Int(value) }
            if let value = try positive(limits.documentReadBytes, ["limits", "documentReadBytes"]) { documentReadBytes = Int(value) }
            if let value = try positive(limits.documentSeconds, ["limits", "documentSeconds"]) { documentSeconds = value }
            if let value = try positive(limits.documentMemoryBytes, ["limits", "documentMemoryBytes"]) { documentMemoryBytes = Int(value) }
        }
    }

    /// `ocr`: `enabled` (true or false) and `languages` (Tesseract's names, each with its
    /// language data installed).
    static func ocr(_ value: SettingsFile.OCR, problem: ([String], String) -> SettingsError) throws(SettingsError) -> OCRSettings? {
        var settings = OCRSettings()
        if let languages = value.languages {
            guard !languages.isEmpty,
                  languages.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else {
                throw problem(["ocr", "languages"], "`ocr.languages` must list Tesseract language names, such as [eng, deu]")
            }
            settings.languages = languages
        }
        guard value.enabled else { return nil }
        // Tesseract's data directory: $TESSDATA_PREFIX, else where Debian's packages put it.
        let data = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"] ?? "/usr/share/tesseract-ocr/5/tessdata"
        for language in settings.languages where !FileManager.default.fileExists(atPath: "\(data)/\(language).traineddata") {
            throw problem(["ocr", "languages"], "no Tesseract language data for `\(language)` in \(data): install Debian's tesseract-ocr-\(language.replacingOccurrences(of: "_", with: "-").lowercased())")
        }
        return settings
    }

    /// The viewers' groups, under this configuration's budgets.
    package var viewerGroups: [DocumentGroup] {
        viewers.map { $0.group(defaultSeconds: documentSeconds * 0.9, defaultOutputBytes: textBytes) }
    }

    static func expandingTilde(_ path: String, home: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst() }
        return path
    }
}

/// A settings file could not be used: which file, at which line, and what is wrong, naming
/// the key (`file:line: message`, as compilers say it).
package struct SettingsError: Error, Sendable, CustomStringConvertible {
    package var file: String
    /// The line of the key or value at fault (1-based), when known.
    package var line: Int?
    package var message: String

    package init(file: String, line: Int? = nil, message: String) {
        (self.file, self.line, self.message) = (file, line, message)
    }

    package var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }
}
