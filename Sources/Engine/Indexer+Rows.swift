import Classifier
import DocumentModel
import Documents
import Foundation
import Index
import SystemPackage

extension Indexer {
    /// One file's row: classified, opened, its text and metadata; failures recorded on it.
    /// Nil when the file is gone (it leaves no trace).
    func row(for path: FilePath, loader: DocumentLoader?) -> IndexedFile? {
        guard let loader else {
            guard let status = try? FileStatus.lstat(path) else { return nil }
            var row = IndexedFile(status: status, path: path, contentType: "public.item")
            row.errorKind = "unreadable"
            row.errorMessage = "libmagic could not be loaded"
            return row
        }
        let prepared: PreparedFile
        do {
            prepared = try loader.prepare(path)
        } catch {
            // Only lstat failures land here: the file went away between readdir and now.
            return nil
        }
        let classification = prepared.classification
        guard let status = classification.status else { return nil }
        var row = IndexedFile(status: status, path: path, contentType: classification.contentType.identifier)
        row.evidence = classification.reason.code
        if let error = classification.error {
            if error == .noSuchFileOrDirectory { return nil }
            row.errorKind = "unreadable"
            row.errorMessage = "\(error)"
        }
        do {
            let document = try documents.openSynchronously(prepared.configuration)
            row.documentType = document.documentTypeName
            row.title = document.metadata.title
            row.metadata = Self.json(document.metadata.fields)
            if let text = try document.plainTextSynchronously() { row.text = Self.bounded(text, to: textLimit) }
            if row.errorKind == nil, let problem = document.metadata.problems.first(where: { $0.severity == .error }) {
                row.errorKind = problem.kind
                row.errorMessage = problem.message
            }
        } catch {
            row.errorKind = row.errorKind ?? "unopenable"
            row.errorMessage = row.errorMessage ?? "\(error)"
        }
        return row
    }

    static func json(_ fields: [MetadataField]) -> String? {
        guard !fields.isEmpty else { return nil }
        var object: [String: String] = [:]
        for field in fields { object[field.key] = field.value.description }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// `text` cut to at most `limit` UTF-8 bytes, on a character boundary.
    static func bounded(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: limit)
        while !text.indices.contains(end), end > text.startIndex { end = text.utf8.index(before: end) }
        return String(text[..<end])
    }
}

extension IndexedFile {
    /// A row for `path` with what `lstat` said.
    init(status: FileStatus, path: FilePath, contentType: String) {
        self.init(path: path.bytes, device: Int64(bitPattern: status.device), inode: Int64(bitPattern: status.inode),
                  size: status.size, modified: status.modified, changed: status.changed, contentType: contentType)
    }
}
