// swift-tools-version:6.0
// iCalendar files (`.ics`: events, to-dos, journal entries) read as calendars, in a complete
// `docent`. It depends on Docent by path and on nothing else.
import Foundation
import PackageDescription

// The repository two levels up; a path dependency is known by its directory's name.
let docent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

let package = Package(
    name: "CalendarDocent",
    dependencies: [.package(path: docent.path)],
    targets: [
        .executableTarget(
            name: "CalendarDocent",
            dependencies: [.product(name: "DocentKit", package: docent.lastPathComponent.lowercased())]
        ),
    ],
    swiftLanguageModes: [.v6]
)
