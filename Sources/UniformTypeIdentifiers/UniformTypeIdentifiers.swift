// `import UniformTypeIdentifiers`, as on Apple platforms: Docent's `UTType` and its registry.
// Foundation too, as Apple's UniformTypeIdentifiers re-exports it.
@_exported import Foundation
@_exported import ContentTypes
