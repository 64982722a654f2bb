import Classifier
import DocumentModel
import Documents
import Foundation
import Index
import SystemPackage

extension Indexer {
    /// One file's row: classified, opened and read once (`DocumentOpener`), its text and
    /// metadata; failures recorded on it. Nil when the file is gone (it leaves no trace).
    /// With `identical`, what was read from a byte-identical large file met before in the run
    /// is used instead of reading this one. When the preview cache holds an entry for the
    /// file, its preview is made from the same reading and the entry replaced: the file is
    /// never opened a second time for it.
    func row(for path: FilePath, identical: IdenticalFiles? = nil) -> IndexedFile? {
        gate.pass()  // paused: wait here
        let prepared: PreparedFile
        do {
            prepared = try opener.prepare(path)
        } catch {
            // Gone between readdir and now: no trace. Still there: it could not be examined
            // (libmagic could not be loaded), which its row says.
            guard let status = try? FileStatus.lstat(path) else { return nil }
            var row = IndexedFile(status: status, path: path, contentType: "public.item")
            row.errorKind = DocumentProblem.Kind.unreadable.rawValue
            row.errorMessage = error.message
            return row
        }
        let classification = prepared.classification
        guard let status = classification.status else { return nil }
        var row = IndexedFile(status: status, path: path, contentType: classification.contentType.identifier)
        row.evidence = classification.reason.code
        if let error = classification.error {
            if error == .noSuchFileOrDirectory { return nil }
            row.errorKind = DocumentProblem.Kind.unreadable.rawValue
            row.errorMessage = "\(error)"
        }
        let cached = previews.flatMap { $0.hasEntry(for: path, readLimit: readLimit) ? $0 : nil }
        let extraction: Result<Extraction?, ExtractionFailure>
        var copied = false
        if let identical, let copy = identical.extraction(for: path, file: classification.file, status: status, contentType: classification.contentType.identifier) {
            extraction = .success(copy)
            copied = true
        } else {
            extraction = opener.read(prepared, preview: cached != nil, text: true, textBytes: textLimit)
        }
        if let identical, !copied, case .success(let read?) = extraction, row.errorKind == nil {
            identical.remember(read, file: prepared.classification.file, path: path, status: status)
        }
        switch extraction {
        case .success(nil):
            return nil  // gone while being read
        case .success(let extraction?):
            row.documentType = extraction.documentType
            // A file compressed on its own is filed under what it holds (a gzipped man page is a man page).
            if let inner = extraction.innerContentType, row.errorKind == nil { row.contentType = inner }
            row.title = extraction.title
            row.metadata = Self.json(extraction.metadata)
            row.headings = extraction.headings?.joined(separator: "\n")
            row.text = extraction.text ?? ""
            if row.errorKind == nil, let problem = extraction.problems.first(where: { $0.severity == .error }) {
                row.errorKind = problem.kind.rawValue
                row.errorMessage = problem.message
            }
            if let cached, extraction.preview != nil {
                var preview = extraction
                preview.text = nil
                _ = cached.store(preview, for: path, status: status, readLimit: readLimit)
            }
        case .failure(let failure):
            row.documentType = prepared.selection?.group.documentTypeName
            row.errorKind = row.errorKind ?? failure.kind.rawValue
            row.errorMessage = row.errorMessage ?? failure.description
        }
        return row
    }

    /// The fields as the row stores them, each value with its type.
    static func json(_ fields: [MetadataField]) -> String? {
        guard !fields.isEmpty else { return nil }
        var object: [String: IndexedFile.StoredValue] = [:]
        for field in fields {
            switch field.value {
            case .text(let text): object[field.key] = .text(text)
            case .integer(let integer): object[field.key] = .integer(integer)
            case .number(let number): object[field.key] = .number(number)
            case .boolean(let boolean): object[field.key] = .boolean(boolean)
            case .list(let items): object[field.key] = .list(items)
            }
        }
        return IndexedFile.metadataJSON(object)
    }
}

extension IndexedFile {
    /// A row for `path` with what `lstat` said.
    init(status: FileStatus, path: FilePath, contentType: String) {
        self.init(path: path.bytes, device: Int64(bitPattern: status.device), inode: Int64(bitPattern: status.inode),
                  size: status.size, modified: status.modified, changed: status.changed, contentType: contentType)
    }
}
