import Foundation
import TestSupport
import Testing
@testable import ContentTypes

/// The built registry kept on disk: the same registry back, rebuilt when an input changes or
/// the file is damaged, private to its owner.
@Suite("The types cache")
struct RegistryCacheTests {
    static func environment(_ dir: TemporaryDirectory) -> [String: String] {
        ["HOME": dir.path, "XDG_CACHE_HOME": dir.path + "/cache", "XDG_CONFIG_HOME": dir.path + "/config",
         "XDG_DATA_HOME": dir.path + "/data", "XDG_DATA_DIRS": "/usr/share"]
    }

    /// What classification asks of a registry, as text to compare.
    static func fingerprint(_ r: UTTypeRegistry) -> [String] {
        var out = r.allTypes.map { t in
            "\(t.identifier) \(t.orderedSupertypes.map(\.identifier)) \(t.tags.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }) \(t.localizedDescription ?? "")"
        }
        for name in ["a.tar.gz", "Makefile", "x.ts", "x.m", "Dockerfile", "notes.recipe", "x.JPG"] {
            out.append(name + " " + r.types(forFileName: name).map { "\($0.type.identifier) \($0.match.rule.pattern)" }.joined(separator: ","))
        }
        out.append("\(r.magic.sections.count) \(r.magic.sections.map { "\($0.priority) \($0.typeName) \($0.matchlets.count)" })")
        out.append(r.magic.hits(Array("%PDF-1.4\n".utf8)).map(\.typeName).joined(separator: ","))
        out.append("\(r.xmlRoots.types.sorted { $0.key < $1.key })")
        out.append("\(r.mimeType("image/svg+xml", isA: "application/xml")) \(r.canonicalMIMEType("text/x-yaml"))")
        out.append(r.diagnostics.map(\.description).joined(separator: "|"))
        return out
    }

    @Test("The types' descriptions are kept beside the cache, private, and follow a changed input")
    func descriptions() throws {
        let dir = try TemporaryDirectory()
        let env = Self.environment(dir)
        let userFile = try dir.write("config/docent/content-types.yaml",
                                     "- identifier: com.example.recipe\n  conformsTo: [public.plain-text]\n  description: Kitchen recipe\n")
        let cache = try #require(RegistryCache.path(environment: env))
        // No cache yet: built, and the descriptions kept for the next process.
        let first = UTTypeRegistry.descriptions(environment: env)
        #expect(first["com.adobe.pdf"] == "PDF document" && first["com.example.recipe"] == "Kitchen recipe")
        var status = stat()
        #expect(stat(RegistryCache.namesPath(cache), &status) == 0 && status.st_mode & 0o777 == 0o600)
        let key = RegistryCache.key(builtIn: PackageResources.content_types_yaml,
                                    mimeDirectories: SharedMIMEInfo.defaultDirectories(environment: env), userFiles: [userFile])
        #expect(RegistryCache.descriptions(cache, key: key)?.all == first.all, "read back from the file")
        #expect(first.all.count > 500)
        // Looked up one at a time in the file's bytes: each line's identifier whole, never a part of one.
        let kept = try #require(RegistryCache.descriptions(cache, key: key))
        for (identifier, description) in first.all { #expect(kept[identifier] == description, "\(identifier)") }
        #expect(kept["com.adobe"] == nil && kept["adobe.pdf"] == nil && kept[""] == nil && kept["PDF document"] == nil)
        // A changed declaration: the old file is stale, and the new description is read.
        try "- identifier: com.example.recipe\n  conformsTo: [public.plain-text]\n  description: Recipe card\n"
            .write(toFile: userFile, atomically: false, encoding: .utf8)
        #expect(UTTypeRegistry.descriptions(environment: env)["com.example.recipe"] == "Recipe card")
    }

    @Test("A cached registry is the built one; a changed input or a damaged file rebuilds it")
    func roundTrip() throws {
        let dir = try TemporaryDirectory()
        let env = Self.environment(dir)
        let userFile = try dir.write("config/docent/content-types.yaml", """
            - identifier: com.example.recipe
              conformsTo: [public.plain-text]
              mimeTypes: [text/x-example-recipe]
              extensions: [recipe]
              magic: [{string: "RECIPE", offset: 0}]
            - identifier: com.example.broken
              extensions: {oops: 1}
            """)
        let cache = try #require(RegistryCache.path(environment: env))
        let built = UTTypeRegistry.load(environment: env)
        #expect(FileManager.default.fileExists(atPath: cache))
        var status = stat()
        #expect(stat(cache, &status) == 0 && status.st_mode & 0o777 == 0o600)
        let key = RegistryCache.key(builtIn: PackageResources.content_types_yaml,
                                    mimeDirectories: SharedMIMEInfo.defaultDirectories(environment: env), userFiles: [userFile])
        let cached = try #require(RegistryCache.read(cache, key: key), "the cache is read back under its key")
        #expect(Self.fingerprint(cached) == Self.fingerprint(built))
        #expect(cached.type(identifier: "com.example.recipe") != nil)
        #expect(!cached.diagnostics.isEmpty, "diagnostics are kept: they are reported on every run")

        // A changed user file: another key, and the next load sees the change.
        try "- identifier: com.example.other\n  extensions: [other]\n".write(toFile: userFile, atomically: false, encoding: .utf8)
        #expect(RegistryCache.read(cache, key: RegistryCache.key(builtIn: PackageResources.content_types_yaml,
            mimeDirectories: SharedMIMEInfo.defaultDirectories(environment: env), userFiles: [userFile])) == nil)
        let changed = UTTypeRegistry.load(environment: env)
        #expect(changed.type(identifier: "com.example.other") != nil && changed.type(identifier: "com.example.recipe") == nil)

        // Damage: truncated, flipped bytes, garbage — each a miss, then rebuilt.
        let good = try Data(contentsOf: URL(fileURLWithPath: cache))
        for damaged in [good.prefix(good.count / 2), Data(good.map { $0 ^ 0x5A }), Data("not a cache".utf8)] {
            try damaged.write(to: URL(fileURLWithPath: cache))
            let again = UTTypeRegistry.load(environment: env)
            #expect(again.type(identifier: "com.example.other") != nil)
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var noisy = [UInt8](good)
            for _ in 0..<4 { noisy[Int.random(in: 0..<noisy.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            noisy.withUnsafeBytes { raw in
                var r = BinaryReader(raw)
                _ = r.bytes()
                _ = try? UTTypeRegistry.unarchive(&r)
            }
        }
    }

    @Test("DOCENT_TYPES_CACHE=0 turns the cache off")
    func off() throws {
        let dir = try TemporaryDirectory()
        var env = Self.environment(dir)
        env["DOCENT_TYPES_CACHE"] = "0"
        #expect(RegistryCache.path(environment: env) == nil)
        _ = UTTypeRegistry.load(environment: env)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/cache/docent/types.cache"))
    }
}
