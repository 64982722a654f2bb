package import DocumentModel
import Documents
import FileAccess

/// The viewing groups of the program running: an app's own (a `DocentApp`'s scene), then
/// the built-in ones. Every command, the watcher, the preview cache and the helper process
/// read documents through this registry, so an app's groups are used everywhere the
/// built-in ones are — and, being in the registry, recorded in an index's fingerprints.
package enum AppDocuments {
    private static let registration = Locked<(groups: [DocumentGroup], servesHelper: Bool)>(([], false))

    /// Puts `groups` in front of the built-in ones. Call once, before any command runs.
    /// `servesHelper`: this executable serves the helper's `_extract` too, so isolated
    /// groups — the app's included — are opened in a copy of it.
    package static func register(_ groups: [DocumentGroup], servesHelper: Bool) {
        registration.withLock { $0 = (groups, servesHelper) }
    }

    /// The app's groups, in the order its scene lists them.
    package static var registeredGroups: [DocumentGroup] { registration.withLock { $0.groups } }

    /// The app's groups, then the built-in ones (specificity decides between them).
    package static var groups: [DocumentGroup] { registeredGroups + BuiltInDocuments.groups }

    package static var registry: DocumentRegistry { DocumentRegistry(groups: groups) }

    /// Whether this executable serves the helper (see `register`).
    static var servesHelper: Bool { registration.withLock { $0.servesHelper } }
}
