import Foundation
import TestSupport
import Testing
@testable import ContentTypes

@Suite("User declarations (layer 3)")
struct UserDeclarationTests {
    @Test("Good entries load, a malformed one is reported with file and line and skipped")
    func malformedEntryIsSkipped() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("content-types.yaml", """
            # my types
            - identifier: com.example.notes
              conformsTo: [public.plain-text]
              description: Example notes
              mimeTypes: [text/x-example-notes]
              extensions: [notes]
            - identifier: not a valid identifier
              conformsTo: [public.text]
            - identifier: com.example.recipe
              conformsTo: public.xml
              extensions: [recipe]
            - identifier: com.example.broken
              extensions: {oops: 1}
            - identifier: com.example.typo
              conformsTo: [public.text]
              extension: [typo]
            """)
        let registry = UTTypeRegistry.load(mimeDirectories: SharedMIMEInfo.defaultDirectories(), userFiles: [file])
        let notes = try #require(registry.type(identifier: "com.example.notes"))
        #expect(notes.conforms(to: UTType("public.plain-text", registry: registry)!))
        #expect(notes.origin == .user(file: file, line: 2))
        #expect(registry.type(mimeType: "text/x-example-notes") == notes)
        #expect(registry.types(forFileName: "monday.notes").first?.type == notes)
        let recipe = try #require(registry.type(identifier: "com.example.recipe"))
        #expect(recipe.conforms(to: UTType("public.xml", registry: registry)!), "a single string is a one-item list")
        #expect(registry.types(forFileName: "soup.recipe").first?.type == recipe, "a type without MIME type is found by name")

        let lines = registry.diagnostics.filter { $0.file == file }.map(\.line)
        #expect(lines == [7, 13, 16], "\(registry.diagnostics)")
        #expect(registry.diagnostics.allSatisfy { !$0.message.isEmpty })
        #expect(registry.type(identifier: "com.example.broken") == nil)
        #expect(registry.type(identifier: "com.example.typo") == nil)
    }

    @Test("Declared globs, magic (nested, in hex) and XML roots take part in detection; bad ones are reported")
    func contentRules() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("content-types.yaml", """
            - identifier: com.example.recipe
              conformsTo: [public.plain-text]
              mimeTypes: [text/x-example-recipe]
              globs: [RECIPE, "*.recipe.txt"]
              magic:
                - {string: "RECIPE:", offset: "0:16", priority: 85}
                - {bytes: "CAFE D00D", offset: 0, and: [{string: "soup", offset: "4:32"}]}
              rootXML:
                - {namespace: "urn:example:recipes", localName: recipe}
            - identifier: com.example.bad-magic
              magic:
                - {string: "x", offset: "9:3"}
            - identifier: com.example.bad-hex
              magic:
                - {bytes: "zz"}
            """)
        let registry = UTTypeRegistry.load(mimeDirectories: SharedMIMEInfo.defaultDirectories(), userFiles: [file])
        let recipe = try #require(registry.type(identifier: "com.example.recipe"))
        #expect(registry.types(forFileName: "RECIPE").first?.type == recipe)
        #expect(registry.types(forFileName: "soup.recipe.txt").first?.type == recipe)
        #expect(registry.magic.hits(Array("  RECIPE: soup".utf8)).first?.mimeType == "text/x-example-recipe")
        #expect(registry.magic.hits([0xCA, 0xFE, 0xD0, 0x0D] + Array(" lentil soup".utf8)).contains { $0.mimeType == "text/x-example-recipe" })
        #expect(!registry.magic.hits([0xCA, 0xFE, 0xD0, 0x0D] + Array(" lentil stew".utf8)).contains { $0.mimeType == "text/x-example-recipe" })
        #expect(registry.xmlRoots.type(namespace: "urn:example:recipes", localName: "recipe") == "text/x-example-recipe")
        let lines = registry.diagnostics.filter { $0.file == file }.map(\.line)
        #expect(lines == [12, 15], "\(registry.diagnostics)")
    }

    @Test("A user declaration overrides an earlier one and claims its tags")
    func override() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("content-types.yaml", """
            - identifier: public.python-script
              description: Snake code
            - identifier: com.example.templated-markdown
              conformsTo: [net.daringfireball.markdown]
              extensions: [md]
            - identifier: com.example.orphan
              conformsTo: [com.example.nowhere]
            """)
        let registry = UTTypeRegistry.load(mimeDirectories: SharedMIMEInfo.defaultDirectories(), userFiles: [file])
        #expect(registry.type(identifier: "public.python-script")?.localizedDescription == "Snake code")
        #expect(registry.type(identifier: "public.python-script")?.orderedSupertypes.first?.identifier == "public.shell-script",
                "fields the user did not give are kept")
        #expect(registry.types(forFileName: "README.md").first?.type.identifier == "com.example.templated-markdown")
        #expect(registry.types(filenameExtension: "md").first?.identifier == "com.example.templated-markdown")
        #expect(registry.diagnostics.contains { $0.file == file && $0.line == 6 && $0.message.contains("com.example.nowhere") })
    }

    @Test("A file that is not YAML is one diagnostic with its line; the other layers still load")
    func invalidYAML() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("content-types.yaml", "- identifier: com.example.a\n  conformsTo: [public.text\n- oops: ]\n")
        let registry = UTTypeRegistry.load(mimeDirectories: SharedMIMEInfo.defaultDirectories(), userFiles: [file])
        let diagnostic = try #require(registry.diagnostics.first { $0.file == file })
        #expect(diagnostic.line != nil)
        #expect(diagnostic.message.contains("not valid YAML"))
        #expect(registry.type(identifier: "public.png") != nil)
    }

    @Test("A missing user file declares nothing and is no error")
    func missingFile() {
        let registry = UTTypeRegistry.load(mimeDirectories: [], userFiles: ["/nonexistent/docent/content-types.yaml"])
        #expect(registry.diagnostics.isEmpty)
        #expect(registry.type(identifier: "public.swift-source") != nil)
    }
}
