import DocumentModel

/// A program made of document types, in the shape of SwiftUI's `App`: its `body` lists
/// `DocumentGroup`s, and `main()` runs a complete `docent` — index, watch, search, status,
/// preview, export, info, types — whose registry is those groups followed by the built-in
/// ones (the most specific readable type decides, as always).
///
/// ```swift
/// @main
/// struct LogDocent: DocentApp {
///     var body: some DocumentScene {
///         DocumentGroup(viewing: LogDocument.self) { file in
///             Title("Application log")
///             Text("\(file.document.lines.count) lines")
///         }
///     }
/// }
/// ```
///
/// The executable serves its own helper process, so the app's isolated groups
/// (`.isolated()`) are opened in a copy of it, under the same budgets as the built-in ones.
public protocol DocentApp {
    /// The scene's type: what `body` returns.
    associatedtype Body: DocumentScene
    /// The app's document groups.
    @DocumentSceneBuilder var body: Body { get }
    /// Makes the app; `main()` does, as SwiftUI's `App` is made.
    init()
}

extension DocentApp {
    /// Runs the app as the `docent` command line.
    public static func main() async {
        await DocentMain.run(groups: Self().body.documentGroups)
    }
}

/// What a `DocentApp`'s body is made of: one or more `DocumentGroup`s (SwiftUI's `Scene`).
public protocol DocumentScene {
    /// The groups, in order.
    var documentGroups: [DocumentGroup] { get }
}

extension DocumentGroup: DocumentScene {
    public var documentGroups: [DocumentGroup] { [self] }
}

/// Several scenes, as a `DocentApp`'s body lists them.
public struct DocumentScenes: DocumentScene {
    public let documentGroups: [DocumentGroup]
    /// Scenes made of these groups, in this order.
    public init(_ groups: [DocumentGroup]) { documentGroups = groups }
}

/// Builds a body from `DocumentGroup`s listed one per line, with `if`, `if`/`else` and `for`.
@resultBuilder
public enum DocumentSceneBuilder {
    /// One scene, as its groups.
    public static func buildExpression(_ scene: some DocumentScene) -> DocumentScenes { DocumentScenes(scene.documentGroups) }
    /// Scenes one after the other, their groups in order.
    public static func buildBlock(_ scenes: DocumentScenes...) -> DocumentScenes { DocumentScenes(scenes.flatMap(\.documentGroups)) }
    /// A scene under `if`, or none.
    public static func buildOptional(_ scene: DocumentScenes?) -> DocumentScenes { scene ?? DocumentScenes([]) }
    /// The first branch of an `if`–`else`.
    public static func buildEither(first scene: DocumentScenes) -> DocumentScenes { scene }
    /// The second branch of an `if`–`else`.
    public static func buildEither(second scene: DocumentScenes) -> DocumentScenes { scene }
    /// Scenes made by a `for` loop, in order.
    public static func buildArray(_ scenes: [DocumentScenes]) -> DocumentScenes { DocumentScenes(scenes.flatMap(\.documentGroups)) }
}
