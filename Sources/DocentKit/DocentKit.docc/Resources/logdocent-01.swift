import DocentKit

struct LogDocument: FileDocument {
    static var readableContentTypes: [UTType] { [UTType(exportedAs: "com.example.app-log", conformingTo: .plainText)] }
    var lines: [String]
    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else { throw CocoaError(.fileReadCorruptFile) }
        lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(lines.joined(separator: "\n").utf8))
    }
}
