// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "LogDocent",
    dependencies: [.package(path: "../docent")],
    targets: [
        .executableTarget(name: "LogDocent", dependencies: [.product(name: "DocentKit", package: "docent")]),
    ],
    swiftLanguageModes: [.v6]
)
