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

@main
struct LogDocent: DocentApp {
    var body: some DocumentScene {
        DocumentGroup(viewing: LogDocument.self) { file in
            Title("Application log")
            Text("\(file.document.lines.count) lines")
        }
    }
}
