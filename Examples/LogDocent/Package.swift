// swift-tools-version:6.0
// The DocentApp example from docs/WritingDocumentTypes.md: application logs (`.applog`) as a
// document type of their own, in a complete `docent`. It depends on Docent by path and on
// nothing else.
import Foundation
import PackageDescription

// The repository two levels up; a path dependency is known by its directory's name.
let docent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

let package = Package(
    name: "LogDocent",
    dependencies: [.package(path: docent.path)],
    targets: [
        .executableTarget(
            name: "LogDocent",
            dependencies: [.product(name: "DocentKit", package: docent.lastPathComponent.lowercased())]
        ),
    ],
    swiftLanguageModes: [.v6]
)
