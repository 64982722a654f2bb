// `import UniformTypeIdentifiers`, as on Apple platforms: Docent's `UTType` and its registry.
@_exported import ContentTypes
