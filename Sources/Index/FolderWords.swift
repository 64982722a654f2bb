import Foundation
import GRDB

/// The words of the folders a file is in, a field of the index of its own (`folders`): a
/// project or a package is often named only by a folder (`gnuplot/htmldocs/logscale.html`,
/// `debian-policy/…/ch-maintainerscripts.html`), and people type that name beside what they
/// look for. The last `depth` folders of the file's parent: near ones say what the file is
/// about, and the ones near the root (`home`, a user's name) are left out of deep files. A
/// function of the parent path alone, so a move gives the file the words of its new place and
/// both stores, and the SQLite index's `files_text` view, compute the same words.
package enum FolderWords {
    /// How many of the nearest folders count.
    package static let depth = 4

    /// The last `depth` components of `parent`, space-separated (bytes that are not UTF-8
    /// replaced, as in names).
    package static func words(ofParent parent: [UInt8]) -> String {
        let components = parent.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).suffix(depth)
        return components.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
    }

    /// `docent_folders(parent)`, for the SQLite index's `files_text` view.
    static let function = DatabaseFunction("docent_folders", argumentCount: 1, pure: true) { values in
        guard let data = Data.fromDatabaseValue(values[0]) else { return "" }
        return words(ofParent: [UInt8](data))
    }
}
