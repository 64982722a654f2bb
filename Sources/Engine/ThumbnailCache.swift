package import FileAccess
package import Foundation
package import SystemPackage

/// The thumbnail cache of the freedesktop Thumbnail Managing Standard, shared with file
/// managers: `$XDG_CACHE_HOME/thumbnails/{normal,large,x-large,xx-large}/MD5(URI).png`, each
/// PNG carrying the `Thumb::URI` and `Thumb::MTime` of the file it shows. A thumbnail is
/// used only while both match the file; Docent's are written the same way (atomically,
/// `0600` in `0700` directories), so a file manager reuses them and Docent reuses theirs.
/// A file no picture can be made of is remembered under `fail/docent-0.1/` until it changes.
package struct ThumbnailCache: Sendable {
    /// The standard's sizes: the directory and the largest side in pixels.
    package enum Size: String, Sendable, CaseIterable {
        case normal, large, xLarge = "x-large", xxLarge = "xx-large"

        package var pixels: Int {
            switch self {
            case .normal: 128
            case .large: 256
            case .xLarge: 512
            case .xxLarge: 1024
            }
        }
    }

    /// `$XDG_CACHE_HOME/thumbnails`.
    package let directory: String
    static let failures = "fail/docent-0.1"

    package init(directory: String = ThumbnailCache.defaultDirectory) {
        self.directory = directory
    }

    package static var defaultDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
        return cache + "/thumbnails"
    }

    /// Where the thumbnail of `uri` at `size` lives.
    package func path(of uri: String, size: Size) -> String {
        "\(directory)/\(size.rawValue)/\(Pictures.md5(uri)).png"
    }

    /// A valid thumbnail of `file` (whose status is `status`) at `size` or a larger one: its
    /// PNG, else nil.
    package func lookup(_ file: FilePath, status: FileStatus, size: Size) -> Data? {
        let uri = Pictures.fileURI(file)
        for candidate in Size.allCases where candidate.pixels >= size.pixels {
            if let png = Self.read(path(of: uri, size: candidate)), Self.isValid(png, uri: uri, status: status) { return png }
        }
        return nil
    }

    /// Whether a failure to make `file`'s picture is remembered for its current version.
    package func hasFailed(_ file: FilePath, status: FileStatus) -> Bool {
        let uri = Pictures.fileURI(file)
        guard let png = Self.read("\(directory)/\(Self.failures)/\(Pictures.md5(uri)).png") else { return false }
        return Self.isValid(png, uri: uri, status: status)
    }

    /// Keeps `png` (made by `Pictures`, so it carries the keys) as the thumbnail of `file` at `size`.
    package func store(_ png: Data, for file: FilePath, size: Size) {
        write(png, to: path(of: Pictures.fileURI(file), size: size))
    }

    /// Remembers that no picture could be made of `file` as it is now: a one-pixel PNG with
    /// its keys, as the standard describes.
    package func storeFailure(for file: FilePath, status: FileStatus) {
        let uri = Pictures.fileURI(file)
        let png = PNGText.onePixel(keys: ["Thumb::URI": uri, "Thumb::MTime": String(status.modified / 1_000_000_000),
                                          "Software": "Docent"])
        write(png, to: "\(directory)/\(Self.failures)/\(Pictures.md5(uri)).png")
    }

    private func write(_ png: Data, to path: String) {
        // The standard asks for 0700 directories and 0600 files; a directory a file manager
        // made is used as it is. `path` is DIRECTORY/SIZE/NAME or DIRECTORY/fail/docent-0.1/NAME.
        var folders = [(path as NSString).deletingLastPathComponent]
        while let last = folders.last, last.count > directory.count { folders.append((last as NSString).deletingLastPathComponent) }
        for folder in folders.reversed() { try? PrivateStorage.makeDirectory(folder, tightenExisting: false) }
        let temporary = "\(path).docent-\(getpid())-\(UInt32.random(in: 0 ... .max)).tmp"
        try? PrivateStorage.replace(path, with: [UInt8](png), temporary: temporary)
    }

    private static func read(_ path: String) -> Data? {
        WholeFile.read(path, limit: 16 << 20)
    }

    /// Whether `png`'s keys say it shows `uri` as it is now.
    static func isValid(_ png: Data, uri: String, status: FileStatus) -> Bool {
        let keys = PNGText.keys(in: png)
        return keys["Thumb::URI"] == uri && keys["Thumb::MTime"] == String(status.modified / 1_000_000_000)
    }
}

/// The text chunks of a PNG file, read and written per the PNG specification.
package enum PNGText {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The `tEXt` keywords and values of `png` (Latin-1 text), up to its image data's end.
    package static func keys(in png: Data) -> [String: String] {
        let bytes = [UInt8](png)
        guard bytes.count > 8, Array(bytes[0 ..< 8]) == signature else { return [:] }
        var keys: [String: String] = [:]
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[offset + 4 ..< offset + 8], as: UTF8.self)
            let start = offset + 8
            guard length >= 0, start + length + 4 <= bytes.count else { break }
            if type == "tEXt", let zero = bytes[start ..< start + length].firstIndex(of: 0) {
                let keyword = String(decoding: bytes[start ..< zero], as: UTF8.self)
                // tEXt is Latin-1; a URI is ASCII (percent-escaped), so each byte is a character.
                keys[keyword] = String(bytes[(zero + 1) ..< (start + length)].map { Character(Unicode.Scalar($0)) })
            }
            if type == "IEND" { break }
            offset = start + length + 4
        }
        return keys
    }

    /// A 1×1 transparent PNG with `keys` as tEXt chunks.
    static func onePixel(keys: [String: String]) -> Data {
        var out = signature
        func chunk(_ type: String, _ data: [UInt8]) {
            let length = UInt32(data.count)
            out += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            let body = Array(type.utf8) + data
            out += body
            let crc = CRC32.of(body)
            out += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])  // 1×1, 8-bit RGBA
        for (key, value) in keys.sorted(by: { $0.key < $1.key }) {
            chunk("tEXt", Array(key.utf8) + [0] + value.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : 0x3F })
        }
        // One filtered scanline (filter byte 0, four zero bytes) in a zlib stream: a stored block.
        let raw: [UInt8] = [0, 0, 0, 0, 0]
        var zlib: [UInt8] = [0x78, 0x01, 0x01, 0x05, 0x00, 0xFA, 0xFF] + raw
        let adler = Adler32.of(raw)
        zlib += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        chunk("IDAT", zlib)
        chunk("IEND", [])
        return Data(out)
    }
}

enum CRC32 {
    static let table: [UInt32] = (0 ..< 256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0 ..< 8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func of(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

enum Adler32 {
    static func of(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return b << 16 | a
    }
}
