import Testing
@testable import ContentTypes

@Suite("Conformance of the system-declared constants")
struct ConformanceTests {
    @Test("Docent's shipped declarations load without a problem")
    func builtInDeclarationsAreClean() {
        let builtIn = UTTypeRegistry.builtInDeclarations()
        #expect(builtIn.diagnostics.isEmpty, "\(builtIn.diagnostics)")
        #expect(builtIn.declarations.count > 150)
        // Every supertype named in Config/content-types.yaml is itself declared there.
        let ids = Set(builtIn.declarations.map { $0.identifier.lowercased() })
        for d in builtIn.declarations {
            for parent in d.conformsTo { #expect(ids.contains(parent.lowercased()), "\(d.identifier) → \(parent)") }
        }
    }

    static let chains: [(UTType, [UTType])] = [
        (.pythonScript, [.shellScript, .script, .sourceCode, .plainText, .text, .data, .content, .item]),
        (.swiftSource, [.sourceCode, .plainText, .text, .data, .item]),
        (.cSource, [.sourceCode, .plainText, .text]),
        (.shellScript, [.script, .sourceCode, .plainText]),
        (.javaScript, [.script, .sourceCode]),
        (.utf8PlainText, [.plainText, .text, .data]),
        (.json, [.text, .data, .content, .item]),
        (.xml, [.text]),
        (.html, [.text]),
        (.yaml, [.text]),
        (.markdown, [.plainText, .text]),
        (.commaSeparatedText, [.delimitedText, .text]),
        (.tabSeparatedText, [.delimitedText, .text]),
        (.png, [.image, .data, .content, .item]),
        (.jpeg, [.image]),
        (.gif, [.image]),
        (.webP, [.image]),
        (.svg, [.image]),
        (.tiff, [.image]),
        (.bmp, [.image]),
        (.pdf, [.data, .compositeContent, .content, .item]),
        (.zip, [.archive, .data]),
        (.gzip, [.archive, .data]),
        (.bz2, [.archive, .data]),
        (.mp3, [.audio, .audiovisualContent, .data, .content]),
        (.mpeg4Movie, [.movie, .audiovisualContent]),
        (.mpeg4Audio, [.audio, .mpeg4Movie]),
        (.font, [.data, .content]),
        (.epub, [.data, .compositeContent]),
        (.emailMessage, [.message, .data]),
        (.database, [.data, .item]),
        (.unixExecutable, [.executable, .data, .item]),
        (.folder, [.directory, .item]),
        (.symbolicLink, [.item]),
    ]

    @Test("Each constant conforms to Apple's chain", arguments: chains)
    func chain(type: UTType, expected: [UTType]) {
        #expect(type.isDeclared)
        #expect(!type.isDynamic)
        for supertype in expected {
            #expect(type.conforms(to: supertype), "\(type) should conform to \(supertype)")
            #expect(type.isSubtype(of: supertype))
            #expect(supertype.isSupertype(of: type))
            #expect(type.supertypes.contains(supertype))
        }
        #expect(type.conforms(to: type))
        #expect(!type.isSubtype(of: type))
    }

    static let nonConformances: [(UTType, UTType)] = [
        (.png, .text), (.json, .plainText), (.pdf, .text), (.folder, .data), (.text, .sourceCode),
        (.pythonScript, .image), (.zip, .text), (.symbolicLink, .data), (.image, .png),
    ]

    @Test("Unrelated types do not conform", arguments: nonConformances)
    func nonConformance(type: UTType, other: UTType) {
        #expect(!type.conforms(to: other))
    }

    @Test("Tags and preferred tags")
    func tags() {
        #expect(UTType.pdf.preferredFilenameExtension == "pdf")
        #expect(UTType.pdf.preferredMIMEType == "application/pdf")
        #expect(UTType.pythonScript.tags[.filenameExtension]?.contains("py") == true)
        #expect(UTType.jpeg.tags[.filenameExtension]?.contains("jpg") == true)
        #expect(UTType.markdown.identifier == "net.daringfireball.markdown")
        #expect(UTType.pythonScript.localizedDescription == "Python script")
        #expect(UTType.png.identifier == "public.png")
    }

    @Test("Lookup by extension and MIME type, aliases and parameters understood")
    func lookups() {
        #expect(UTType(filenameExtension: "py") == .pythonScript)
        #expect(UTType(filenameExtension: ".PY") == .pythonScript)
        #expect(UTType(filenameExtension: "swift") == .swiftSource)
        #expect(UTType(filenameExtension: "docx")?.identifier == "org.openxmlformats.wordprocessingml.document")
        #expect(UTType(mimeType: "text/x-python3") == .pythonScript)
        #expect(UTType(mimeType: "application/x-gzip") == .gzip)  // a shared-mime-info alias
        #expect(UTType(mimeType: "Text/HTML; charset=utf-8") == .html)
        #expect(UTType(mimeType: "image/svg+xml") == .svg)
        #expect(UTType("PUBLIC.PNG") == .png)
        #expect(UTType("not an identifier") == nil)
    }

    @Test("Unknown tags give dynamic types that conform to what was asked")
    func dynamicTypes() throws {
        let ext = try #require(UTType(filenameExtension: "zzqq"))
        #expect(ext.isDynamic)
        #expect(!ext.isDeclared)
        #expect(ext.identifier.hasPrefix("dyn."))
        #expect(ext.conforms(to: .data))
        #expect(ext.tags[.filenameExtension] == ["zzqq"])
        let asImage = try #require(UTType(filenameExtension: "md", conformingTo: .image))
        #expect(asImage.isDynamic, "md is Markdown, which is not an image")
        #expect(asImage.conforms(to: .image))
        let mime = try #require(UTType(mimeType: "application/x-docent-unknown"))
        #expect(mime.isDynamic)
        #expect(mime.preferredMIMEType == "application/x-docent-unknown")
        let undeclared = try #require(UTType("com.example.undeclared"))
        #expect(!undeclared.isDeclared)
        #expect(!undeclared.isDynamic)
    }

    @Test("Every shared-mime-info type has a type, derived where nobody declares one")
    func derivedTypes() throws {
        let registry = UTTypeRegistry.shared
        let xcf = try #require(registry.type(mimeType: "image/x-xcf"))
        #expect(xcf.identifier == "org.freedesktop.mime.image.x-xcf")
        #expect(xcf.conforms(to: .image))
        #expect(xcf.origin == .sharedMIMEInfo)
        #expect(xcf.localizedDescription?.isEmpty == false, "the description comes from the database")
        let rst = try #require(registry.type(mimeType: "text/x-rst"))
        #expect(rst.conforms(to: .plainText), "text/* is plain text")
        let allKnown = registry.allTypes.count
        #expect(allKnown > 800)
    }
}
