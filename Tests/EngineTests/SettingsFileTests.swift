import Engine
import Testing

/// Settings decoded with `Decodable` (Yams): every error names the file, the key and its line.
@Suite("Settings files")
struct SettingsFileTests {
    func failure(_ yaml: String) -> SettingsError? {
        var settings = Settings()
        do {
            try settings.apply(yaml, file: "config.yaml", home: "/home/u")
            return nil
        } catch {
            return error
        }
    }

    @Test("Each mistake is named by its key, at its line", arguments: [
        ("roots: [~/a]\ncolour: red\n", 2, "unknown setting `colour`"),
        ("roots: [~/a]\n\nexclude: \"*.log\"\n", 3, "`exclude` must be a list"),
        ("limits:\n  readBytes: 10\n  textBytes: -3\n", 3, "`limits.textBytes` must be a positive number"),
        ("limits:\n  textBytes: lots\n", 2, "`limits.textBytes` must be a number"),
        ("poll:\n  interval: 5\n  every: 5\n", 3, "unknown key `every` in `poll`"),
        ("poll:\n  paths:\n    - /srv\n    - relative\n", 4, "`poll.paths`: `relative` is not an absolute path"),
        ("markers: [.noindex,\n  a/b]\n", 2, "`markers`: `a/b` is not a file name"),
        ("viewers:\n  - types: [a.b]\n    command: [x]\n  - types: [c.d]\n    command: [y]\n    output: html\n", 6,
         "`viewers[1].output` must be plain-text or markdown"),
        ("viewers:\n  - types: [a.b]\n    commands: [x]\n", 3, "unknown key `commands` in `viewers[0]`"),
        ("viewers:\n  - types: [a.b]\n", 2, "needs `command`"),
        ("ocr:\n  enabled: maybe\n", 2, "`ocr.enabled` must be true or false"),
        ("battery: maybe\n", 1, "`battery` must be defer or run"),
        ("host: two words\n", 1, "`host` must be a name"),
        ("roots: [\n", 2, "not valid YAML"),
        ("- a\n- b\n", 1, "expected a mapping of settings"),
    ])
    func named(yaml: String, line: Int, message: String) throws {
        let error = try #require(failure(yaml), "accepted: \(yaml)")
        #expect(error.file == "config.yaml")
        #expect(error.line == line, "\(error)")
        #expect(error.message.contains(message), "\(error)")
        #expect(error.description.hasPrefix("config.yaml:\(line): "), "\(error)")
    }

    @Test("A good file is applied over the defaults: lists added, limits replaced, ~ expanded")
    func applied() throws {
        var settings = Settings.defaults()
        let excluded = settings.exclude.count
        try settings.apply("""
            roots: [~/Documents]
            exclude: ["*.tmp"]
            limits: {textBytes: 4096, documentSeconds: 2.5}
            poll: {interval: 60, paths: [~/share]}
            battery: run
            viewers:
              - {types: [com.example.x], command: [cat], output: markdown, seconds: 3}
            """, file: "config.yaml", home: "/home/u")
        #expect(settings.roots == ["/home/u/Documents"])
        #expect(settings.exclude.count == excluded + 1 && settings.exclude.last == "*.tmp")
        #expect(settings.textBytes == 4096 && settings.documentSeconds == 2.5)
        #expect(settings.pollInterval == 60 && settings.pollPaths == ["/home/u/share"])
        #expect(!settings.deferOnBattery)
        #expect(settings.viewers.count == 1 && settings.viewers[0].seconds == 3)
        // An empty file changes nothing.
        let before = settings
        try settings.apply("", file: "config.yaml", home: "/home/u")
        #expect(settings == before)
    }
}
