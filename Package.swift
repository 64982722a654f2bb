// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "docent",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "docent", targets: ["docent"]),
        .executable(name: "docent-bench", targets: ["DocentBench"]),
        .library(name: "ContentTypes", targets: ["ContentTypes"]),
        .library(name: "Classifier", targets: ["Classifier"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CMagic",
            pkgConfig: "libmagic",
            providers: [.apt(["libmagic-dev"])]
        ),
        .target(
            name: "ContentTypes",
            dependencies: ["Yams"],
            resources: [.embedInCode("Defaults/content-types.yaml")]
        ),
        .target(
            name: "Classifier",
            dependencies: [
                "ContentTypes", "CMagic",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "Watcher",
            dependencies: [.product(name: "SystemPackage", package: "swift-system")]
        ),
        .executableTarget(
            name: "docent",
            dependencies: [
                "ContentTypes", "Classifier", "Watcher",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "DocentBench",
            dependencies: [
                "ContentTypes", "Classifier", "Watcher",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ContentTypesTests", dependencies: ["ContentTypes", "TestSupport"]),
        .testTarget(
            name: "ClassifierTests",
            dependencies: ["Classifier", "ContentTypes", "Watcher", "TestSupport",
                           .product(name: "SystemPackage", package: "swift-system")]
        ),
        .testTarget(name: "DocentCLITests", dependencies: ["ContentTypes"]),
    ],
    swiftLanguageModes: [.v6]
)
