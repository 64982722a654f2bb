import FileAccess
import ContentTypes
import DocumentModel
import Documents
import Foundation
import Yams

/// Docent's settings: the defaults shipped in `Config/docent.yaml` with the user's
/// `config.yaml` (in `$XDG_CONFIG_HOME/docent`) laid over them.
public struct Settings: Sendable, Equatable {
    /// Directories indexed and watched when none are given, `~` expanded.
    public var roots: [String] = []
    /// Shell globs of names (or, with a "/", whole paths) left alone.
    public var exclude: [String] = []
    /// The most bytes of one file a document type reads.
    public var readBytes = 16 << 20
    /// The most text stored in the index for one file.
    public var textBytes = 16 << 20
    /// The most bytes of one file a document type that runs in the helper process reads
    /// (PDFs and archives are often larger than text).
    public var documentReadBytes = 256 << 20
    /// The longest one document may take in the helper process before it is stopped.
    public var documentSeconds = 30.0
    /// The helper process's address space: a document that needs more is stopped.
    public var documentMemoryBytes = 2 << 30
    /// Commands that read types Docent does not (`viewers:`; see `ExternalViewer`).
    public var viewers: [ExternalViewer] = []
    /// OCR of images and scanned PDF pages (`ocr: {enabled: true, languages: [eng]}`); nil: off.
    public var ocr: OCRSettings?
    /// Where the index is (`index:`): a database file, or a PostgreSQL address
    /// (`postgresql://host/db`, credentials from libpq's places) shared by several hosts; nil:
    /// the default file.
    public var index: String?
    /// This machine's name in a shared index (`host:`); nil: the host name.
    public var host: String?
    /// Names of marker files: a directory holding one is neither indexed nor watched, nor
    /// anything under it (`markers:`, `.noindex` by default).
    public var markers: [String] = []
    /// How often directories inotify cannot follow (network and FUSE file systems, and
    /// `poll.paths`) are compared with the index, in seconds (`poll.interval`).
    public var pollInterval = 300.0
    /// Directories compared with the index every `pollInterval` whatever their file system
    /// (`poll.paths`), `~` expanded.
    public var pollPaths: [String] = []
    /// Whether `docent watch` puts off rescans and its first reconcile while the machine
    /// runs on battery (`battery: defer`, the default) or works as on mains (`battery: run`).
    public var deferOnBattery = true
    /// The command a desktop search result is opened with, the file's path appended
    /// (`opener:`, `[xdg-open]` by default).
    public var opener: [String] = ["xdg-open"]

    /// The budgets documents opened in the helper run under.
    public var budget: DocumentBudget {
        DocumentBudget(readBytes: documentReadBytes, textBytes: textBytes, seconds: documentSeconds, memoryBytes: documentMemoryBytes,
                       ocr: ocr)
    }

    public init() {}

    /// Where the shipped defaults are named in messages.
    public static let defaultsName = "Config/docent.yaml"

    /// The shipped defaults, compiled into the binary (parsed once).
    public static func defaults() -> Settings { shippedDefaults }

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
    public static func userFilePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        UTTypeRegistry.configDirectory(environment: environment) + "/config.yaml"
    }

    /// The defaults with the user's file (when there is one) applied.
    ///
    /// - Throws: `SettingsError` naming the file and what is wrong with it.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(SettingsError) -> Settings {
        var settings = defaults()
        let path = userFilePath(environment: environment)
        guard let data = WholeFile.read(path) else { return settings }
        let home = environment["HOME"] ?? NSHomeDirectory()
        try settings.apply(String(decoding: data, as: UTF8.self), file: path, home: home)
        return settings
    }

    /// Lays the settings in `yaml` over these: roots and exclusions are added, limits replaced.
    public mutating func apply(_ yaml: String, file: String, home: String) throws(SettingsError) {
        let object: Any?
        do {
            object = try Yams.load(yaml: yaml)
        } catch {
            throw SettingsError(file: file, message: "not valid YAML: \(error)")
        }
        guard let object else { return }
        guard let map = object as? [String: Any] else { throw SettingsError(file: file, message: "expected a mapping of settings") }
        let known = ["roots", "exclude", "excludeDefaults", "markers", "limits", "viewers", "ocr", "index", "host", "poll", "battery", "opener"]
        for key in map.keys where !known.contains(key) {
            throw SettingsError(file: file, message: "unknown setting `\(key)` (known: \(known.joined(separator: ", ")))")
        }
        markers += try Self.strings(map["markers"], key: "markers", file: file)
        for marker in markers where marker.isEmpty || marker.contains("/") || marker == "." || marker == ".." {
            throw SettingsError(file: file, message: "`markers`: `\(marker)` is not a file name")
        }
        if let value = map["poll"] {
            guard let poll = value as? [String: Any] else { throw SettingsError(file: file, message: "`poll` must be a mapping") }
            for key in poll.keys where !["interval", "paths"].contains(key) {
                throw SettingsError(file: file, message: "unknown key `\(key)` in `poll` (known: interval, paths)")
            }
            if let interval = poll["interval"] {
                guard let seconds = Self.positiveNumber(interval) else { throw SettingsError(file: file, message: "`poll.interval` must be a positive number of seconds") }
                pollInterval = seconds
            }
            pollPaths += try Self.strings(poll["paths"], key: "poll.paths", file: file).map { Self.expandingTilde($0, home: home) }
            for path in pollPaths where !path.hasPrefix("/") {
                throw SettingsError(file: file, message: "`poll.paths`: `\(path)` is not an absolute path")
            }
        }
        if let value = map["battery"] {
            guard let text = value as? String, ["defer", "run"].contains(text) else {
                throw SettingsError(file: file, message: "`battery` must be defer or run")
            }
            deferOnBattery = text == "defer"
        }
        if map["opener"] != nil {
            opener = try Self.strings(map["opener"], key: "opener", file: file)
            guard !opener.isEmpty else { throw SettingsError(file: file, message: "`opener` must be a command and its arguments") }
        }
        if let value = map["index"] {
            guard let text = value as? String, !text.isEmpty else {
                throw SettingsError(file: file, message: "`index` must be a path or a postgresql:// address")
            }
            if text.contains("://"), !(text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")) {
                throw SettingsError(file: file, message: "`index`: \(text) is not a postgresql:// address (nor a path)")
            }
            if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
               text[scheme.upperBound..<at].contains(":") {
                throw SettingsError(file: file, message: "`index` must not hold a password: put it in ~/.pgpass (PGPASSFILE) or a service file")
            }
            index = text.contains("://") ? text : Self.expandingTilde(text, home: home)
        }
        if let value = map["host"] {
            guard let text = value as? String, !text.isEmpty, !text.contains("/"), !text.contains(where: \.isWhitespace) else {
                throw SettingsError(file: file, message: "`host` must be a name without spaces or slashes")
            }
            host = text
        }
        if let value = map["ocr"] { ocr = try Self.ocr(value, file: file) }
        if let value = map["viewers"] {
            guard let list = value as? [Any] else { throw SettingsError(file: file, message: "`viewers` must be a list") }
            viewers += try list.enumerated().map { (index, item) throws(SettingsError) in try Self.viewer(item, index: index, file: file) }
        }
        if let value = map["excludeDefaults"] {
            guard let keep = value as? Bool else { throw SettingsError(file: file, message: "`excludeDefaults` must be true or false") }
            if !keep { exclude = [] }
        }
        roots += try Self.strings(map["roots"], key: "roots", file: file).map { Self.expandingTilde($0, home: home) }
        exclude += try Self.strings(map["exclude"], key: "exclude", file: file)
        if let value = map["limits"] {
            guard let limits = value as? [String: Any] else { throw SettingsError(file: file, message: "`limits` must be a mapping") }
            for (key, value) in limits {
                guard let number = Self.positiveNumber(value) else { throw SettingsError(file: file, message: "`limits.\(key)` must be a positive number") }
                switch key {
                case "readBytes": readBytes = Int(number)
                case "textBytes": textBytes = Int(number)
                case "documentReadBytes": documentReadBytes = Int(number)
                case "documentSeconds": documentSeconds = number
                case "documentMemoryBytes": documentMemoryBytes = Int(number)
                default:
                    throw SettingsError(file: file, message: "unknown limit `\(key)` (known: readBytes, textBytes, documentReadBytes, documentSeconds, documentMemoryBytes)")
                }
            }
        }
    }

    /// `ocr`: `enabled` (true or false) and `languages` (Tesseract's names, each with its
    /// language data installed).
    static func ocr(_ value: Any, file: String) throws(SettingsError) -> OCRSettings? {
        guard let map = value as? [String: Any] else { throw SettingsError(file: file, message: "`ocr` must be a mapping") }
        for key in map.keys where !["enabled", "languages"].contains(key) {
            throw SettingsError(file: file, message: "unknown key `\(key)` in `ocr` (known: enabled, languages)")
        }
        guard let enabled = map["enabled"] as? Bool else { throw SettingsError(file: file, message: "`ocr.enabled` must be true or false") }
        var settings = OCRSettings()
        if map["languages"] != nil {
            settings.languages = try strings(map["languages"], key: "ocr.languages", file: file)
            guard !settings.languages.isEmpty,
                  settings.languages.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else {
                throw SettingsError(file: file, message: "`ocr.languages` must list Tesseract language names, such as [eng, deu]")
            }
        }
        guard enabled else { return nil }
        // Tesseract's data directory: $TESSDATA_PREFIX, else where Debian's packages put it.
        let data = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"] ?? "/usr/share/tesseract-ocr/5/tessdata"
        for language in settings.languages where !FileManager.default.fileExists(atPath: "\(data)/\(language).traineddata") {
            throw SettingsError(file: file, message: "no Tesseract language data for `\(language)` in \(data): install Debian's tesseract-ocr-\(language.replacingOccurrences(of: "_", with: "-").lowercased())")
        }
        return settings
    }

    /// One entry of `viewers`: `types` and `command` (non-empty lists of text), `output`
    /// (`plain-text` or `markdown`), `seconds` and `outputBytes` (positive numbers).
    static func viewer(_ item: Any, index: Int, file: String) throws(SettingsError) -> ExternalViewer {
        let place = "viewers[\(index)]"
        guard let map = item as? [String: Any] else { throw SettingsError(file: file, message: "`\(place)` must be a mapping") }
        let known = ["types", "command", "output", "seconds", "outputBytes"]
        for key in map.keys where !known.contains(key) {
            throw SettingsError(file: file, message: "unknown key `\(key)` in `\(place)` (known: \(known.joined(separator: ", ")))")
        }
        let types = try strings(map["types"], key: place + ".types", file: file)
        let command = try strings(map["command"], key: place + ".command", file: file)
        guard !types.isEmpty else { throw SettingsError(file: file, message: "`\(place).types` must list at least one type") }
        guard !command.isEmpty else { throw SettingsError(file: file, message: "`\(place).command` must be a command and its arguments") }
        var viewer = ExternalViewer(types: types, command: command)
        if let output = map["output"] {
            guard let text = output as? String, let value = ExternalViewer.Output(rawValue: text) else {
                throw SettingsError(file: file, message: "`\(place).output` must be plain-text or markdown")
            }
            viewer.output = value
        }
        for key in ["seconds", "outputBytes"] {
            guard let value = map[key] else { continue }
            guard let number = positiveNumber(value) else { throw SettingsError(file: file, message: "`\(place).\(key)` must be a positive number") }
            if key == "seconds" { viewer.seconds = number } else { viewer.outputBytes = Int(number) }
        }
        return viewer
    }

    /// The viewers' groups, under this configuration's budgets.
    public var viewerGroups: [DocumentGroup] {
        viewers.map { $0.group(defaultSeconds: documentSeconds * 0.9, defaultOutputBytes: textBytes) }
    }

    /// A YAML integer or real above zero.
    static func positiveNumber(_ value: Any) -> Double? {
        let number = (value as? Int).map(Double.init) ?? (value as? Double) ?? -1
        return number > 0 ? number : nil
    }

    static func strings(_ value: Any?, key: String, file: String) throws(SettingsError) -> [String] {
        guard let value else { return [] }
        guard let list = value as? [Any] else { throw SettingsError(file: file, message: "`\(key)` must be a list") }
        var out: [String] = []
        for item in list {
            guard let text = item as? String else { throw SettingsError(file: file, message: "every entry of `\(key)` must be text") }
            out.append(text)
        }
        return out
    }

    static func expandingTilde(_ path: String, home: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst() }
        return path
    }
}

/// A settings file could not be used.
public struct SettingsError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var message: String
    public var description: String { "\(file): \(message)" }
}
