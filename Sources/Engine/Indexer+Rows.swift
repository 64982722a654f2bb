import Classifier
import DocumentModel
import Documents
import Foundation
import Index
import SystemPackage

extension Indexer {
    /// One file's row: classified, opened, its text and metadata; failures recorded on it.
    /// Nil when the file is gone (it leaves no trace). With `identical`, what was read from a
    /// byte-identical large file met before in the run is used instead of reading this one.
    func row(for path: FilePath, loader: DocumentLoader?, identical: IdenticalFiles? = nil) -> IndexedFile? {
        gate.pass()  // paused: wait here
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
        let extraction: Result<Extraction?, ExtractionFailure>
        // With OCR on, images and PDFs go to the helper too: Tesseract and Leptonica are C
        // over untrusted pictures, and OCR runs under the helper's budgets.
        let ocr = helpers.budget.ocr != nil && OCR.applies(to: classification.contentType)
        var copied = false
        if let identical, let copy = identical.extraction(for: path, status: status, contentType: classification.contentType.identifier) {
            extraction = .success(copy)
            copied = true
        } else if prepared.selection?.group.runsIsolated == true || (ocr && prepared.selection != nil) {
            extraction = helpers.extract(path, preview: false, text: true)
        } else {
            do {
                let document = try documents.openSynchronously(prepared.configuration)
                extraction = .success(try Extraction(document, preview: false, text: true, textBytes: textLimit))
            } catch {
                extraction = .failure(.unopenable("\(error)"))
            }
        }
        if let identical, !copied, case .success(let read?) = extraction, row.errorKind == nil { identical.remember(read, path: path, status: status) }
        switch extraction {
        case .success(nil):
            return nil  // gone while being read
        case .success(let extraction?):
            row.documentType = extraction.documentType
            row.title = extraction.title
            row.metadata = Self.json(extraction.metadata)
            row.text = extraction.text ?? ""
            if row.errorKind == nil, let problem = extraction.problems.first(where: { $0.severity == .error }) {
                row.errorKind = problem.kind
                row.errorMessage = problem.message
            }
        case .failure(let failure):
            row.documentType = prepared.selection?.group.documentTypeName
            row.errorKind = row.errorKind ?? failure.kind
            row.errorMessage = row.errorMessage ?? failure.description
        }
        return row
    }

    static func json(_ fields: [MetadataField]) -> String? {
        guard !fields.isEmpty else { return nil }
        var object: [String: String] = [:]
        for field in fields { object[field.key] = field.value.description }
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
