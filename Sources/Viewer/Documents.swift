import Classifier
import ContentTypes
import DocentCLI
import DocentKit
import DocumentModel
import Engine
import FileAccess
import Foundation
import Index
import SystemPackage

/// What the viewer shows of one indexed file, made from the file as it is on disk now.
struct DocumentView: Sendable {
    /// The file's row id.
    let id: Int64
    let file: IndexedFile
    /// The file's status now; nil when it is gone.
    let status: FileStatus?
    let extraction: Extraction?
    /// Why there is no extraction.
    let problem: String?
    /// Why the file has its type (`docent info`).
    let explanation: String?
    /// The types it can be exported as.
    let renditions: [String]
    let contentType: UTType?
    /// The whole text, when asked for and read with the preview (the reader's, from the same
    /// opening of the file).
    var text: String? = nil
}

/// Opens indexed files for the viewer: previews (from the cache `docent watch` keeps, else
/// made and kept), renditions, pictures. Documents of isolated groups are opened in helper
/// processes under the budgets, exactly as the indexer opens them.
final class ViewerDocuments: Sendable {
    let budget: DocumentBudget
    /// The one way files are read, as the indexer reads them.
    let opener: DocumentOpener
    let previews: PreviewCache?
    let thumbnails: ThumbnailCache

    init(budget: DocumentBudget, previews: PreviewCache?, thumbnails: ThumbnailCache) {
        self.budget = budget
        opener = DocumentOpener(budget: budget)
        self.previews = previews
        self.thumbnails = thumbnails
    }

    /// The file's preview, metadata, renditions and the reason for its type; with `text`, its
    /// whole plain text too when the file is read for the preview anyway (no cached preview).
    /// `fromRow`: when the file has not changed since it was indexed and no preview is cached,
    /// the view is made from what its row stored (title, metadata, the problem it recorded)
    /// rather than by reading the file: a PDF's reader shows its pages from the stored text,
    /// and reading a 1,158-page manual again for its first ten costs a second.
    func view(_ file: IndexedFile, id: Int64, text wanted: Bool = false, fromRow: Bool = false) -> DocumentView {
        let path = FilePath(bytes: file.path)
        let prepared: PreparedFile
        do {
            prepared = try opener.prepare(path)
        } catch {
            return DocumentView(id: id, file: file, status: nil, extraction: nil, problem: "it is gone: \(error)", explanation: nil,
                                renditions: [], contentType: nil)
        }
        let classification = prepared.classification
        let explanation = InfoFormat.text(classification, selection: prepared.selection?.choice)
        guard let status = classification.status, status.kind == .regular else {
            return DocumentView(id: id, file: file, status: classification.status, extraction: nil,
                                problem: "not a regular file: it is never opened", explanation: explanation, renditions: [],
                                contentType: classification.contentType)
        }
        let renditions: [String]
        if let group = prepared.selection?.group {
            renditions = group.runsIsolated ? ["public.plain-text"] : group.writableContentTypes.map(\.identifier)
        } else {
            renditions = []
        }
        var extraction: Extraction?
        var problem: String?
        var text: String?
        if let cached = previews?.lookup(path, status: status, readLimit: budget.readBytes) {
            extraction = cached
        } else if fromRow, file.signature.compared(to: status.signature) != .changed {
            let problems = file.errorKind.map { [DocumentProblem(.error, kind: DocumentProblem.Kind(rawValue: $0), file.errorMessage ?? $0)] } ?? []
            return DocumentView(id: id, file: file, status: status,
                                extraction: Extraction(contentType: file.contentType, documentType: file.documentType ?? "", selection: "as indexed",
                                                       title: file.title, metadata: RemoteFile.fields(of: file), problems: problems,
                                                       preview: Preview(elements: problems.map { .note(.error, $0.message) })),
                                problem: nil, explanation: explanation, renditions: renditions, contentType: classification.contentType)
        } else {
            switch opener.read(prepared, preview: true, text: wanted, textBytes: budget.readBytes) {
            case .success(var made?):
                (text, made.text) = (made.text, nil)
                extraction = made
            case .success(nil): problem = "it went away while being read"
            case .failure(let failure):
                problem = prepared.selection.map { "\($0.group.documentTypeName): \(failure)" } ?? "\(failure)"
            }
        }
        if let extraction, let previews { _ = previews.store(extraction, for: path, status: status, readLimit: budget.readBytes) }
        return DocumentView(id: id, file: file, status: status, extraction: extraction, problem: problem, explanation: explanation,
                            renditions: renditions, contentType: classification.contentType, text: text)
    }

    /// The file's rendition as `type`: its bytes, or why there are none.
    func export(_ file: IndexedFile, as type: UTType) async -> Result<Data, ViewerError> {
        let path = FilePath(bytes: file.path)
        let prepared: PreparedFile
        do {
            prepared = try opener.prepare(path)
        } catch {
            return .failure(.notFound("the file is gone"))
        }
        guard let group = prepared.selection?.group else { return .failure(.notFound("no document type reads it")) }
        let plainText = UTType("public.plain-text", registry: .shared)!
        do {
            guard let document = try await opener.openInProcess(prepared) else {
                // Read in a helper: its text is what crosses back.
                guard plainText.conforms(to: type) else { return .failure(.notFound("\(group.documentTypeName) is exported as plain text only")) }
                switch opener.read(prepared, preview: false, text: true, textBytes: .max) {
                case .success(let extraction?): return .success(Data((extraction.text ?? "").utf8))
                case .success(nil): return .failure(.notFound("the file is gone"))
                case .failure(let failure): return .failure(.notFound("\(failure)"))
                }
            }
            let wrapper = try await document.export(as: type)
            return .success(wrapper.regularFileContents ?? Data())
        } catch {
            return .failure(.notFound("\(error)"))
        }
    }

    /// A PNG of the file at `size`: the shared thumbnail cache's when valid, else made in a
    /// helper and kept there; nil when none can be made (remembered until the file changes).
    func picture(_ file: IndexedFile, size: ThumbnailCache.Size) -> Data? {
        let path = FilePath(bytes: file.path)
        guard let status = try? FileStatus.lstat(path), status.kind == .regular else { return nil }
        if let png = thumbnails.lookup(path, status: status, size: size) { return png }
        if thumbnails.hasFailed(path, status: status) { return nil }
        switch opener.helpers.picture(path, size: size.pixels) {
        case .success(let png?):
            thumbnails.store(png, for: path, size: size)
            return png
        case .success(nil):
            return nil
        case .failure(.unavailable):
            return nil  // no helper to run: nothing learnt about the file
        case .failure:
            thumbnails.storeFailure(for: path, status: status)
            return nil
        }
    }
}

extension ViewerDocuments {
    /// The width a PDF's page is drawn at beside its text (its longer side, in pixels): sharp
    /// at the reader's widest on a display of twice the density.
    static let pagePixels = 1200

    /// A picture of page `page` (from 0) of a PDF, made in a helper; nil when there is none.
    /// Not kept here: the browser keeps it (the address names the file's version).
    func pagePicture(_ file: IndexedFile, page: Int) -> Data? {
        let path = FilePath(bytes: file.path)
        guard let status = try? FileStatus.lstat(path), status.kind == .regular,
              case .success(let png?) = opener.helpers.picture(path, size: Self.pagePixels, page: page) else { return nil }
        return png
    }
}

/// A request the viewer cannot answer.
enum ViewerError: Error, Sendable {
    case notFound(String)
}
