package import ContentTypes
import Synchronization

/// The viewing groups Docent knows, in declaration order, and the choice among them.
///
/// Declared the way a SwiftUI `App` lists its scenes:
/// ```swift
/// let registry = DocumentRegistry {
///     DocumentGroup(viewing: LogDocument.self) { configuration in ... }
///     BuiltInDocuments.groups
/// }
/// ```
/// For a file's content type, the group whose readable type is the most specific one the
/// file's type conforms to wins (the type itself first, then its nearest supertypes); ties
/// go to the group declared first.
package struct DocumentRegistry: Sendable {
    /// The groups, in declaration order.
    package let groups: [DocumentGroup]
    /// The choice for each content type met so far: an indexer asks once per file, and
    /// working it out (the type's ancestry against every group's readable types) was 2% of
    /// a cold index.
    private let choices = ChoiceCache()

    package init(@DocumentGroupBuilder _ content: () -> [DocumentGroup]) { groups = content() }
    package init(groups: [DocumentGroup]) { self.groups = groups }

    /// Every group that can open `type`, best first.
    package func candidates(for type: UTType) -> [DocumentSelection] {
        choices.choices(for: type) {
            ReaderChoice.candidates(for: type, readers: groups.map(\.readableContentTypes))
        }.map { found in
            DocumentSelection(group: groups[found.order], contentType: type, readableType: found.readableType,
                              distance: found.distance, order: found.order)
        }
    }

    /// Each group's `fingerprint`, by document type name.
    package var fingerprints: [String: String] {
        Dictionary(groups.map { ($0.documentTypeName, $0.fingerprint) }, uniquingKeysWith: { first, _ in first })
    }

    /// The document types whose fingerprints differ from `stored` (what an index recorded),
    /// or that `stored` lacks or this registry lacks: everything when nothing was recorded.
    package func changedDocumentTypes(since stored: [String: String]?) -> Set<String> {
        let current = fingerprints
        guard let stored else { return Set(current.keys) }
        return Set(current.keys.filter { stored[$0] != current[$0] }).union(stored.keys.filter { current[$0] == nil })
    }

    /// The group that opens `type`, if any.
    package func selection(for type: UTType) -> DocumentSelection? { candidates(for: type).first }

    /// Opens the file in `configuration` with the best group that can; when it fails, with
    /// the next, noting why on the document that opened (so a binary file named `.md` still
    /// gets a preview, with the Markdown reader's complaint).
    ///
    /// Runs off the caller's actor.
    /// - Throws: `DocumentOpenError` when no group could open the file.
    package func open(_ configuration: FileDocumentReadConfiguration) async throws(DocumentOpenError) -> OpenedDocument {
        try openSynchronously(configuration)
    }

    /// `open(_:)` on the calling thread, for worker threads that are not in a task.
    package func openSynchronously(_ configuration: FileDocumentReadConfiguration) throws(DocumentOpenError) -> OpenedDocument {
        var problems: [DocumentProblem] = []
        if configuration.file.isTruncated {
            problems.append(DocumentProblem(
                .warning, kind: .truncated,
                "Truncated: only the first \(configuration.file.readLimit) of \(configuration.file.fileAttributes.size) bytes were read."))
        }
        var failures: [(DocumentSelection, any Error)] = []
        for candidate in candidates(for: configuration.contentType) {
            do {
                let document = try candidate.group.open(configuration, candidate)
                let failed = failures.map { selection, error in
                    DocumentProblem(.error, kind: .unreadable,
                                    "Could not be read as \(selection.readableType.identifier) (\(selection.group.documentTypeName)): \(error)")
                }
                return document.adding(failed + problems)
            } catch {
                failures.append((candidate, error))
            }
        }
        throw DocumentOpenError(contentType: configuration.contentType,
                                failures: failures.map { ($0.0.group.documentTypeName, "\($0.1)") })
    }
}

/// Why a group was chosen for a content type.
package struct DocumentSelection: Sendable, CustomStringConvertible {
    /// The chosen group.
    package let group: DocumentGroup
    /// The file's type.
    package let contentType: UTType
    /// The group's readable type that the file's type conforms to.
    package let readableType: UTType
    /// 0 when the file's type is the readable type, otherwise how far up its conformance
    /// the readable type is.
    package let distance: Int
    /// The group's place in declaration order.
    package let order: Int

    package var description: String { choice.description }

    /// The choice without the group itself: what `docent info` says.
    package var choice: ReaderChoice {
        ReaderChoice(documentTypeName: group.documentTypeName, contentType: contentType, readableType: readableType,
                     distance: distance, order: order)
    }
}

/// Which reader opens a content type, and why: the choice `DocumentRegistry` makes, over
/// readers known by name and readable types (so it can be made without the groups at hand).
package struct ReaderChoice: Sendable, CustomStringConvertible {
    package let documentTypeName: String
    package let contentType: UTType
    package let readableType: UTType
    package let distance: Int
    package let order: Int

    package init(documentTypeName: String, contentType: UTType, readableType: UTType, distance: Int, order: Int) {
        self.documentTypeName = documentTypeName
        self.contentType = contentType
        self.readableType = readableType
        self.distance = distance
        self.order = order
    }

    package var description: String {
        distance == 0
            ? "\(documentTypeName) reads \(readableType.identifier) itself"
            : "\(documentTypeName) reads \(readableType.identifier), which \(contentType.identifier) conforms to (\(distance) step\(distance == 1 ? "" : "s") up)"
    }

    /// The readers (each a list of readable types, in declaration order) that can open
    /// `type`, best first: the most specific readable type the file's type conforms to wins
    /// (the type itself, then its nearest supertypes); ties go to the reader declared first.
    /// `documentTypeName` is left empty for the caller to fill.
    package static func candidates(for type: UTType, readers: [[UTType]]) -> [ReaderChoice] {
        let ancestry = [type] + type.orderedSupertypes
        var found: [ReaderChoice] = []
        for (index, readable) in readers.enumerated() {
            var best: (distance: Int, readable: UTType)?
            for candidate in readable {
                guard let distance = ancestry.firstIndex(of: candidate) else { continue }
                if best == nil || distance < best!.distance { best = (distance, candidate) }
            }
            if let best {
                found.append(ReaderChoice(documentTypeName: "", contentType: type, readableType: best.readable,
                                          distance: best.distance, order: index))
            }
        }
        return found.sorted { ($0.distance, $0.order) < ($1.distance, $1.order) }
    }

    /// The best of `readers` (names and readable types) for `type`.
    package static func best(for type: UTType, readers: [(name: String, readable: [UTType])]) -> ReaderChoice? {
        guard let first = candidates(for: type, readers: readers.map(\.readable)).first else { return nil }
        return ReaderChoice(documentTypeName: readers[first.order].name, contentType: type, readableType: first.readableType,
                            distance: first.distance, order: first.order)
    }
}

/// No registered group could open a file.
package struct DocumentOpenError: Error, Sendable, CustomStringConvertible {
    package let contentType: UTType
    /// Each group tried, and its error.
    package let failures: [(documentTypeName: String, message: String)]

    package var description: String {
        failures.isEmpty
            ? "no document type reads \(contentType.identifier)"
            : failures.map { "\($0.documentTypeName): \($0.message)" }.joined(separator: "; ")
    }
}

/// Builds a list of document groups, in the spirit of SwiftUI's `SceneBuilder`.
@resultBuilder
package enum DocumentGroupBuilder {
    package static func buildExpression(_ group: DocumentGroup) -> [DocumentGroup] { [group] }
    package static func buildExpression(_ groups: [DocumentGroup]) -> [DocumentGroup] { groups }
    package static func buildExpression(_ registry: DocumentRegistry) -> [DocumentGroup] { registry.groups }
    package static func buildBlock(_ parts: [DocumentGroup]...) -> [DocumentGroup] { parts.flatMap { $0 } }
    package static func buildOptional(_ part: [DocumentGroup]?) -> [DocumentGroup] { part ?? [] }
    package static func buildEither(first part: [DocumentGroup]) -> [DocumentGroup] { part }
    package static func buildEither(second part: [DocumentGroup]) -> [DocumentGroup] { part }
    package static func buildArray(_ parts: [[DocumentGroup]]) -> [DocumentGroup] { parts.flatMap { $0 } }
}

/// `DocumentRegistry`'s remembered choices, by declared content type and the registry that
/// declared it (the same identifier can conform differently in another registry).
private final class ChoiceCache: Sendable {
    private struct Key: Hashable {
        let registry: ObjectIdentifier
        let type: UTType
    }
    /// A key's type holds its registry, so a registry's identifier is never reused meanwhile.
    private let entries = Mutex<[Key: [ReaderChoice]]>([:])

    /// Only declared types are remembered: an undeclared one's ancestry is not all in its
    /// identifier (`dyn.ext.foo` is text or data by its content).
    func choices(for type: UTType, compute: () -> [ReaderChoice]) -> [ReaderChoice] {
        guard type.origin != nil else { return compute() }
        let key = Key(registry: ObjectIdentifier(type.registry), type: type)
        if let known = entries.withLock({ $0[key] }) { return known }
        let choices = compute()
        entries.withLock { $0[key] = choices }
        return choices
    }
}
