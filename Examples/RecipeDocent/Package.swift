// swift-tools-version:6.0
// A persistent-store document: a recipe box (an SQLite store an app writes) read through its
// records, in a complete `docent`. It depends on Docent by path, and on GRDB for its query API.
import Foundation
import PackageDescription

// The repository two levels up; a path dependency is known by its directory's name.
let docent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

let package = Package(
    name: "RecipeDocent",
    dependencies: [.package(path: docent.path), .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0")],
    targets: [
        .executableTarget(
            name: "RecipeDocent",
            dependencies: [.product(name: "DocentKit", package: docent.lastPathComponent.lowercased()), .product(name: "GRDB", package: "GRDB.swift")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
