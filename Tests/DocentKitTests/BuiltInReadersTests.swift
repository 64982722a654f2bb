import ContentTypes
@testable import DocentCLI
import DocumentModel
import Documents
import Testing

/// `docent` answers `docent info` itself from a table of the built-in readers; the table must
/// be the groups' own declarations, or its `document:` line would differ from the engine's.
@Suite("The built-in readers' table")
struct BuiltInReadersTests {
    @Test("The table lists every built-in group, in order, with the identifiers it reads")
    func tableMatchesTheGroups() {
        let groups = BuiltInDocuments.groups.map { group in
            (name: group.documentTypeName, readable: group.readableContentTypes.map(\.identifier))
        }
        let table = BuiltInReaders.readers().map { entry in (name: entry.name, readable: entry.readable.map(\.identifier)) }
        let literal = groups.map { "        (\"\($0.name)\", [\($0.readable.map { "\"\($0)\"" }.joined(separator: ", "))])," }.joined(separator: "\n")
        #expect(table.map(\.name) == groups.map(\.name), "Sources/DocentCLI/BuiltInReaders.swift should read:\n\(literal)")
        #expect(table.map(\.readable) == groups.map(\.readable), "Sources/DocentCLI/BuiltInReaders.swift should read:\n\(literal)")
    }

    @Test("The table chooses as the registry does, for every declared type")
    func sameChoice() {
        let registry = BuiltInDocuments.registry
        let readers = BuiltInReaders.readers()
        for type in UTTypeRegistry.shared.allTypes {
            #expect(ReaderChoice.best(for: type, readers: readers)?.description == registry.selection(for: type)?.description)
        }
    }
}
