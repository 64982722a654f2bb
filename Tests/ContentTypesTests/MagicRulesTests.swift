import Foundation
import TestSupport
import Testing
@testable import ContentTypes

/// shared-mime-info's compiled `magic` and `XMLnamespaces`, as the real `update-mime-database`
/// writes them from package files we write.
@Suite("shared-mime-info magic and XML roots")
struct MagicRulesTests {
    static func compile(_ dir: TemporaryDirectory, _ sub: String, _ body: String) throws -> String {
        let mimeDir = dir.path + "/" + sub
        try dir.write(sub + "/packages/test.xml", """
            <?xml version="1.0" encoding="UTF-8"?>
            <mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
            \(body)
            </mime-info>
            """)
        try #require(try runTool("/usr/bin/update-mime-database", [mimeDir]).status == 0, "update-mime-database failed")
        return mimeDir
    }

    static let package = """
        <mime-type type="application/x-t-plain"><magic><match type="string" value="PLAIN" offset="0"/></magic></mime-type>
        <mime-type type="application/x-t-range"><magic priority="60"><match type="string" value="NEEDLE" offset="10:200"/></magic></mime-type>
        <mime-type type="application/x-t-nested">
          <magic priority="70">
            <match type="string" value="OUTER" offset="0">
              <match type="string" value="LEFT" offset="5"/>
              <match type="string" value="RIGHT" offset="5">
                <match type="byte" value="0x7f" offset="10"/>
              </match>
            </match>
          </magic>
        </mime-type>
        <mime-type type="application/x-t-mask"><magic><match type="string" value="\\x40\\x00" mask="0xf0ff" offset="0"/></magic></mime-type>
        <mime-type type="application/x-t-host16"><magic><match type="host16" value="0x1234" offset="0"/></magic></mime-type>
        <mime-type type="application/x-t-big32"><magic><match type="big32" value="0xcafed00d" offset="0"/></magic></mime-type>
        <mime-type type="application/x-t-little32"><magic><match type="little32" value="0x0d00feca" offset="4"/></magic></mime-type>
        <mime-type type="application/x-t-strong"><magic priority="90"><match type="string" value="STRONG" offset="0"/></magic></mime-type>
        <mime-type type="application/x-t-weak"><magic priority="20"><match type="string" value="STRONG" offset="0"/></magic></mime-type>
        <mime-type type="application/x-t-newline"><magic><match type="string" value="A\\nB" offset="0"/></magic></mime-type>
        <mime-type type="application/x-t-doc+xml">
          <sub-class-of type="application/xml"/>
          <root-XML namespaceURI="urn:docent:test" localName="doc"/>
          <root-XML namespaceURI="" localName="plain-root"/>
        </mime-type>
        """

    static func hits(_ rules: MagicRules, _ bytes: [UInt8]) -> [String] { rules.hits(bytes).map(\.mimeType) }

    @Test("Plain, ranged, nested, masked and numeric rules match as the spec says")
    func matching() throws {
        let dir = try TemporaryDirectory()
        let info = SharedMIMEInfo.load(directories: [try Self.compile(dir, "mime", Self.package)])
        let rules = info.magic
        func bytes(_ s: String, pad: Int = 64) -> [UInt8] { Array(s.utf8) + Array(repeating: 0x20, count: pad) }
        #expect(Self.hits(rules, bytes("PLAIN text")) == ["application/x-t-plain"])
        #expect(Self.hits(rules, bytes("xPLAIN")).isEmpty)
        // A range: anywhere from offset 10 to 209.
        #expect(Self.hits(rules, bytes(String(repeating: "-", count: 150) + "NEEDLE")) == ["application/x-t-range"])
        #expect(Self.hits(rules, bytes("--NEEDLE")).isEmpty)                              // before the range
        #expect(Self.hits(rules, bytes(String(repeating: "-", count: 215) + "NEEDLE")).isEmpty)   // after it
        // Nested: the parent and one child; a child's own children count.
        #expect(Self.hits(rules, bytes("OUTERLEFT")) == ["application/x-t-nested"])
        #expect(Self.hits(rules, Array("OUTERRIGHT".utf8) + [0x7F, 0, 0]) == ["application/x-t-nested"])
        #expect(Self.hits(rules, bytes("OUTERRIGHT-")).isEmpty)
        #expect(Self.hits(rules, bytes("OUTERother")).isEmpty)
        // Masks compare only the bits they keep.
        #expect(Self.hits(rules, [0x4A, 0x00, 0x20, 0x20]) == ["application/x-t-mask"])
        #expect(Self.hits(rules, [0x5A, 0x00, 0x20, 0x20]).isEmpty)
        #expect(Self.hits(rules, [0x4A, 0x01, 0x20, 0x20]).isEmpty)
        // host16 is the host's order (little-endian here); big32 and little32 are fixed.
        #expect(Self.hits(rules, [0x34, 0x12, 0, 0]) == ["application/x-t-host16"])
        #expect(Self.hits(rules, [0xCA, 0xFE, 0xD0, 0x0D, 0xCA, 0xFE, 0x00, 0x0D]) == ["application/x-t-big32", "application/x-t-little32"])
        // Priority orders the hits.
        #expect(Self.hits(rules, bytes("STRONG")) == ["application/x-t-strong", "application/x-t-weak"])
        #expect(rules.hits(bytes("STRONG")).map(\.priority) == [90, 20])
        // A value holding a newline (the compiled file is not line-based).
        #expect(Self.hits(rules, bytes("A\nB")) == ["application/x-t-newline"])
        // Root elements.
        #expect(info.xmlRoots.type(namespace: "urn:docent:test", localName: "doc") == "application/x-t-doc+xml")
        #expect(info.xmlRoots.type(namespace: "", localName: "plain-root") == "application/x-t-doc+xml")
    }

    @Test("A higher directory's rules for a type replace the lower ones; magic-deleteall clears them")
    func layers() throws {
        let dir = try TemporaryDirectory()
        let system = try Self.compile(dir, "system", Self.package)
        let user = try Self.compile(dir, "user", """
            <mime-type type="application/x-t-plain"><magic><match type="string" value="OTHER" offset="0"/></magic></mime-type>
            <mime-type type="application/x-t-strong"><magic-deleteall/><glob pattern="*.strong"/></mime-type>
            """)
        let rules = SharedMIMEInfo.load(directories: [user, system]).magic
        #expect(Self.hits(rules, Array("OTHER   ".utf8)) == ["application/x-t-plain"])
        #expect(Self.hits(rules, Array("PLAIN   ".utf8)).isEmpty)
        #expect(Self.hits(rules, Array("STRONG  ".utf8)) == ["application/x-t-weak"])
    }

    @Test("Damaged compiled files: a bad section is skipped, truncation ends the read, nothing crashes")
    func damaged() throws {
        let dir = try TemporaryDirectory()
        let path = try Self.compile(dir, "mime", Self.package) + "/magic"
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(MagicRules.parseCompiled(good).sections.count == 10)   // every type above with magic
        #expect(MagicRules.parseCompiled(Array(good.prefix(5))).sections.isEmpty)   // no header
        for cut in stride(from: 12, to: good.count, by: 7) { _ = MagicRules.parseCompiled(Array(good.prefix(cut))) }
        var bad = good
        if let i = bad.firstIndex(of: UInt8(ascii: ">")) { bad[i] = UInt8(ascii: "?") }   // the first rule's '>' gone
        let parsed = MagicRules.parseCompiled(bad).sections
        #expect(parsed.count == 9)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var noisy = good
            for _ in 0..<8 { noisy[Int.random(in: 12..<noisy.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            let rules = MagicRules(MagicRules.parseCompiled(noisy).sections)
            _ = rules.hits(Array(repeating: 0x41, count: 300))
        }
    }

    @Test("The first-byte index finds exactly what trying every section finds")
    func indexMatchesLinear() throws {
        let system = SharedMIMEInfo.load(directories: ["/usr/share/mime"]).magic
        var indexed = system
        indexed.reindex()
        #expect(system.sections.count > 300)
        var samples: [[UInt8]] = []
        for path in ["/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf", "/usr/bin/ls", "/usr/share/mime/packages/freedesktop.org.xml",
                     "/usr/share/common-licenses/GPL-3", "/usr/share/mime/magic"] {
            if let data = FileManager.default.contents(atPath: path) { samples.append([UInt8](data.prefix(65536))) }
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let length = Int.random(in: 0..<600, using: &random)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            // Often a real signature's first bytes, so the buckets are exercised.
            if let section = system.sections.randomElement(using: &random), let m = section.matchlets.first,
               m.offset + m.value.count <= bytes.count, Bool.random(using: &random) {
                bytes.replaceSubrange(m.offset..<(m.offset + m.value.count), with: m.value)
            }
            samples.append(bytes)
        }
        for bytes in samples {
            #expect(indexed.hits(bytes) == system.hits(bytes))
        }
    }

    @Test("Root elements are read past the declaration, comments, a DOCTYPE with an internal subset and a BOM")
    func roots() {
        func root(_ s: String, bom: Bool = false) -> XMLRoot.Element? { XMLRoot.sniff((bom ? [0xEF, 0xBB, 0xBF] : []) + Array(s.utf8)) }
        #expect(root("<svg xmlns=\"http://www.w3.org/2000/svg\"/>") == .init(namespace: "http://www.w3.org/2000/svg", localName: "svg"))
        #expect(root("<?xml version='1.0'?>\n<!-- a > b -->\n<!DOCTYPE x [ <!ENTITY e \"]>\"> ]>\n<a:feed xmlns:a='urn:atom' xmlns='urn:other'>",
                     bom: true) == .init(namespace: "urn:atom", localName: "feed"))
        #expect(root("  <rss version=\"2.0\"><channel/></rss>") == .init(namespace: "", localName: "rss"))
        #expect(root("<interface>") == .init(namespace: "", localName: "interface"))
        #expect(root("plain text <b>") == nil)
        #expect(root("<!-- never closed") == nil)
        #expect(root("<") == nil)
        #expect(root("<?xml version=\"1.0\"?>") == nil)
    }
}
