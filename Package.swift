// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "docent",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "docent", targets: ["docent"]),
        .executable(name: "docent-engine", targets: ["docent-engine"]),
        .executable(name: "docent-bench", targets: ["DocentBench"]),
        .library(name: "DocentKit", targets: ["DocentKit"]),
        .library(name: "DocentViewer", targets: ["Viewer"]),
        .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
        .library(name: "ContentTypes", targets: ["ContentTypes"]),
        .library(name: "Classifier", targets: ["Classifier"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // `swift package generate-documentation`: DocentKit's DocC documentation.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.20.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // Hummingbird's own dependencies, named because the viewer imports them (HTTPTypes, NIOCore).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CMagic",
            pkgConfig: "libmagic",
            providers: [.apt(["libmagic-dev"])]
        ),
        .systemLibrary(
            name: "CCmarkGFM",
            pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"])]
        ),
        .systemLibrary(
            name: "CPoppler",
            pkgConfig: "poppler-glib",
            providers: [.apt(["libpoppler-glib-dev"])]
        ),
        .systemLibrary(
            name: "CArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // libpq, PostgreSQL's own client, for a shared index on PostgreSQL (credentials from
        // libpq's places: environment, service file, password file), loaded with dlopen when
        // first needed (Debian's libpq5): nothing to build against, nothing loaded otherwise.
        .target(name: "CLibPQ", linkerSettings: [.linkedLibrary("dl")]),
        // GMime (libgmime-3.0-dev): its headers through a link in include/, its GLib
        // include paths from poppler-glib's pkg-config entry (see gmime.c).
        .target(name: "CGMime", dependencies: ["CPoppler"]),
        .systemLibrary(
            name: "CExif",
            pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]
        ),
        // TagLib's C++ API behind a small C function: its C API can only open files by
        // name (read-write when it may); this gives it a read-only stream over a descriptor.
        .target(
            name: "CTagLib",
            linkerSettings: [.linkedLibrary("tag")]
        ),
        // Pictures of documents (an image scaled, a PDF's first page, a song's cover) as PNG
        // with the freedesktop thumbnail keys: gdk-pixbuf, and poppler with cairo. Run in the helper.
        // gdk-pixbuf-2.0.pc's flags include one SwiftPM refuses (-pthread): its headers come
        // through a link in private/ (to Debian's libgdk-pixbuf-2.0-dev), GLib's through poppler-glib.
        .target(
            name: "CPicture",
            dependencies: ["CPoppler"],
            cSettings: [.headerSearchPath("private")],
            linkerSettings: [.linkedLibrary("gdk_pixbuf-2.0")]
        ),
        // MuPDF (Debian's libmupdf-dev, static, AGPL-3.0-or-later) for PDF text: every call
        // into it is made in C, inside its own fz_try (its errors are longjmps).
        .target(
            name: "CMuPDF",
            linkerSettings: ["mupdf", "mupdf-third", "mujs", "gumbo", "openjp2", "jbig2dec", "jpeg", "freetype", "harfbuzz", "z", "m"]
                .map { .linkedLibrary($0) }
        ),
        // OCR with Tesseract over pictures Leptonica reads or MuPDF draws (helper process only).
        .target(
            name: "COCR",
            dependencies: ["CMuPDF"],
            linkerSettings: [.linkedLibrary("tesseract"), .linkedLibrary("lept")]
        ),
        // GNOME Shell's and KRunner's search over D-Bus, through GLib's GDBus (GLib's include
        // paths from poppler-glib's pkg-config entry).
        .target(
            name: "CDesktopBus",
            dependencies: ["CPoppler"],
            linkerSettings: [.linkedLibrary("gio-2.0"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]
        ),
        // glibc allocator settings for the engine, and giving freed memory back (mallopt and
        // malloc_trim are not in Swift's Glibc module).
        .target(name: "CMalloc"),
        // An FTS5 snippet function that reads and tokenizes only up to the fragment it shows.
        .target(name: "CSnippet", dependencies: ["CSQLite", "CZstd"]),
        .target(
            name: "FileAccess",
            dependencies: ["CFileSystem", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(
            name: "ContentTypes",
            dependencies: ["FileAccess", "Yams"],
            resources: [.embedInCode("Defaults/content-types.yaml")]
        ),
        // `import UniformTypeIdentifiers` works as on Apple platforms (ContentTypes re-exported).
        .target(name: "UniformTypeIdentifiers", dependencies: ["ContentTypes"]),
        .target(
            name: "Classifier",
            dependencies: [
                "ContentTypes", "CMagic", "FileAccess",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(
            name: "DocumentModel",
            dependencies: ["ContentTypes", "FileAccess", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(name: "Rendering", dependencies: ["DocumentModel"]),
        .target(
            name: "Documents",
            dependencies: ["DocumentModel", "ContentTypes", "CCmarkGFM", "CLibXML2", "CZlib", "CPoppler", "CMuPDF", "CArchive", "CSQLite", "CGMime", "CExif", "CTagLib",
                           "FileAccess"]
        ),
        .target(
            name: "Index",
            dependencies: ["CSQLite", "CZstd", "CSnippet", "FileAccess", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The index on PostgreSQL, shared by several hosts.
        .target(name: "PostgresIndex", dependencies: ["Index", "CLibPQ", "FileAccess"]),
        .target(
            name: "Engine",
            dependencies: ["Classifier", "DocumentModel", "Documents", "FileAccess", "ContentTypes", "Index", "Watcher", "Yams", "CPicture", "CTagLib", "COCR", "CMalloc",
                           .product(name: "SystemPackage", package: "swift-system"),
                           .product(name: "Logging", package: "swift-log")],
            resources: [.embedInCode("Defaults/docent.yaml")]
        ),
        // What Swift's Glibc module lacks: statfs, ioprio_set, pidfd_open, posix_spawn's closefrom.
        .target(name: "CFileSystem"),
        .target(
            name: "Watcher",
            dependencies: ["FileAccess", "CFileSystem", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // The search and info commands and what they share with the others: SQLite, libmagic
        // and the PostgreSQL store (libpq loaded only when used), no document readers.
        .target(
            name: "DocentCLI",
            dependencies: [
                "ContentTypes", "Classifier", "DocumentModel", "FileAccess", "Index", "PostgresIndex", "Rendering", "Watcher", "Yams",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // `docent`: runs searches itself and hands every other command to `docent-engine`.
        .executableTarget(
            name: "docent",
            dependencies: ["DocentCLI", "ContentTypes", "FileAccess", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            plugins: ["BuildInfoPlugin"]
        ),
        // Every command, the helper, and `DocentApp`: the package others build their own
        // Docent with (docs/WritingDocumentTypes.md).
        .target(
            name: "DocentKit",
            dependencies: [
                "ContentTypes", "Watcher", "FileAccess", "CFileSystem", "DocumentModel", "Documents",
                "Rendering", "Engine", "Index", "PostgresIndex", "DocentCLI", "CMalloc", "CDesktopBus",
                // Not imported here: declared so that an app depending on DocentKit can `import UniformTypeIdentifiers`.
                "UniformTypeIdentifiers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [.embedInCode("Desktop/search-provider.service"), .embedInCode("Desktop/search-provider.ini"),
                        .embedInCode("Desktop/krunner.desktop"), .embedInCode("Desktop/docent.desktop")],
            plugins: ["BuildInfoPlugin"]
        ),
        // The commit `docent --version` names, written at build time.
        .plugin(name: "BuildInfoPlugin", capability: .buildTool(), path: "Sources/BuildInfoPlugin"),
        // `docent serve`: the viewer in a browser, on Hummingbird (a product of its own, so an
        // app built on DocentKit adds it by choice).
        .target(
            name: "Viewer",
            dependencies: [
                "DocentKit", "DocentCLI", "Engine", "Index", "PostgresIndex", "Rendering", "Classifier", "ContentTypes", "DocumentModel",
                "FileAccess", "Watcher",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [.embedInCode("Assets/app.js"), .embedInCode("Assets/app.css"), .embedInCode("Assets/icon.svg")]
        ),
        .executableTarget(name: "docent-engine", dependencies: ["DocentKit", "Viewer"]),
        .executableTarget(
            name: "DocentBench",
            dependencies: [
                // TestSupport: the private PostgreSQL server `docent-bench postgres` starts, as the tests do.
                "ContentTypes", "Classifier", "Watcher", "Engine", "Index", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "ContentTypesTests", dependencies: ["ContentTypes", "TestSupport"]),
        .testTarget(
            name: "ClassifierTests",
            dependencies: ["Classifier", "ContentTypes", "TestSupport", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .testTarget(
            name: "DocumentModelTests",
            dependencies: ["DocumentModel", "ContentTypes", "FileAccess", "Engine", "Documents", "TestSupport",
                           .product(name: "SystemPackage", package: "swift-system")]
        ),
        .testTarget(
            name: "IndexTests",
            dependencies: ["Index", "CSnippet", "FileAccess", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering", "DocumentModel"]),
        .testTarget(
            name: "DocumentsTests",
            dependencies: ["Documents", "DocumentModel", "ContentTypes", "Engine", "Index", "Rendering", "TestSupport",
                           .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "SystemPackage", package: "swift-system")]
        ),
        .testTarget(
            name: "WatcherTests",
            dependencies: ["Watcher", "FileAccess", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .testTarget(
            name: "DocentKitTests",
            dependencies: ["DocentKit", "DocentCLI", "ContentTypes", "Documents", "DocumentModel", "Engine", "TestSupport", "UniformTypeIdentifiers",
                           .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "SystemPackage", package: "swift-system")]
        ),
        .testTarget(
            name: "PostgresTests",
            dependencies: ["PostgresIndex", "Index", "TestSupport"]
        ),
        // The viewer's routes, token and Host checks in process (the router's responder).
        .testTarget(
            name: "ViewerTests",
            dependencies: ["Viewer", "DocentKit", "Engine", "Index", "FileAccess", "TestSupport",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                           .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system"),
                           .product(name: "HTTPTypes", package: "swift-http-types")]
        ),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "FileAccess", "Index", "Watcher", "TestSupport", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "DocentCLITests", dependencies: ["FileAccess", "TestSupport"]),
        // The map kept true: every module's imports against this file and docs/ARCHITECTURE.md.
        .testTarget(name: "PackageTests", exclude: ["DocentKit-API.txt"]),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzz targets (Fuzz/): libFuzzer executables, one per parser of untrusted bytes, built only
// for fuzzing (`DOCENT_FUZZ=1`, with `-sanitize=fuzzer`; Fuzz/run.sh does both).
if Context.environment["DOCENT_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzJSON", ["Documents"]), ("FuzzCSV", ["Documents"]), ("FuzzRTF", ["Documents"]), ("FuzzPostScript", ["Documents"]), ("FuzzDVI", ["Documents"]),
        ("FuzzManPage", ["Documents"]), ("FuzzMarkdown", ["Documents"]), ("FuzzImageHeader", ["Documents"]),
        ("FuzzQuery", ["Index"]), ("FuzzDeclarations", ["ContentTypes"]), ("FuzzInotify", ["Watcher"]),
        ("FuzzHelperReply", ["Engine"]), ("FuzzTokenizer", ["CSnippet", .product(name: "GRDB", package: "GRDB.swift")]),
    ]
    package.targets.append(.target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/FuzzSupport"))
    for target in fuzzTargets {
        package.targets.append(.executableTarget(name: target.name, dependencies: target.dependencies + ["FuzzSupport"],
                                                 path: "Fuzz/\(target.name)"))
        package.products.append(.executable(name: target.name, targets: [target.name]))
    }
}

// A few test modules alone (`DOCENT_TEST_MODULES=IndexTests,WatcherTests`): the package then
// declares only those test targets and what they need, so that a build of their own — CI's
// AddressSanitizer pass (`.ci/run`) — compiles neither the executables nor the packages of the
// server and the PostgreSQL store (NIO, Hummingbird, swift-crypto) that none of them reaches.
if let modules = Context.environment["DOCENT_TEST_MODULES"] {
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var needed = Set(modules.split(separator: ",").map(String.init))
    var frontier = Array(needed)
    while let name = frontier.popLast() {
        let target = byName[name]
        let names = (target?.dependencies ?? []).compactMap { dependency -> String? in
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): name
            default: nil
            }
        } + (target?.plugins ?? []).compactMap { plugin -> String? in
            if case .plugin(let name, nil) = plugin { name } else { nil }
        }
        for name in names where byName[name] != nil && needed.insert(name).inserted { frontier.append(name) }
    }
    package.targets.removeAll { !needed.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Executable)?.targets ?? (product as? Product.Library)?.targets ?? []
        return !targets.allSatisfy(needed.contains)
    }
}

// Imports are internal unless written `public import` (SE-0409): what a module shows of its
// dependencies is chosen, not implied. (Its own public declarations say which they need.)
for target in package.targets where target.type != .system && target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("InternalImportsByDefault")]
}
