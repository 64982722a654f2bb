/// What an image's header says, read without decoding any pixels.
struct ImageHeader: Sendable, Hashable {
    var format: String
    var width: Int
    var height: Int
    /// Bits per channel or per pixel, as the format states it.
    var bitDepth: Int?
    /// `RGB`, `RGBA`, `greyscale`, `palette`, `CMYK`, …
    var colourModel: String?
    var hasAlpha: Bool?
    var isInterlaced: Bool?
    var isAnimated: Bool?
    /// An embedded colour profile's name or kind (`sRGB`, `ICC`).
    var colourProfile: String?
    /// A problem found in the structure (a PNG cut before its end).
    var problem: String?

    struct Malformed: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Parses the header of a PNG, JPEG, GIF, WebP or BMP from the file's first bytes.
    ///
    /// - Parameter isWholeFile: the bytes are the whole file, so structure that ends early
    ///   means the file was truncated.
    static func parse(_ b: [UInt8], isWholeFile: Bool) throws(Malformed) -> ImageHeader {
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return try png(b, isWholeFile: isWholeFile) }
        if b.starts(with: [0xFF, 0xD8]) { return try jpeg(b, isWholeFile: isWholeFile) }
        if b.starts(with: Array("GIF87a".utf8)) || b.starts(with: Array("GIF89a".utf8)) { return try gif(b) }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return try webp(b) }
        if b.starts(with: Array("BM".utf8)) { return try bmp(b) }
        throw Malformed("not a PNG, JPEG, GIF, WebP or BMP image (no known signature)")
    }

    static func be32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    static func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    static func le24(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }
    static func le32(_ b: [UInt8], _ i: Int) -> Int32 { Int32(bitPattern: UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24) }

    // MARK: - PNG (RFC 2083): IHDR, then chunks up to IEND

    static func png(_ b: [UInt8], isWholeFile: Bool) throws(Malformed) -> ImageHeader {
        guard b.count >= 33, Array(b[12..<16]) == Array("IHDR".utf8) else { throw Malformed("PNG file truncated before its IHDR header") }
        let depth = Int(b[24]), colourType = b[25]
        let model: String, alpha: Bool
        switch colourType {
        case 0: (model, alpha) = ("greyscale", false)
        case 2: (model, alpha) = ("RGB", false)
        case 3: (model, alpha) = ("palette", false)
        case 4: (model, alpha) = ("greyscale", true)
        case 6: (model, alpha) = ("RGB", true)
        default: throw Malformed("PNG IHDR has an invalid colour type \(colourType)")
        }
        var header = ImageHeader(format: "PNG", width: be32(b, 16), height: be32(b, 20), bitDepth: depth,
                                 colourModel: alpha ? model + "A" : model, hasAlpha: alpha, isInterlaced: b[28] == 1)
        guard header.width > 0, header.height > 0 else { throw Malformed("PNG IHDR gives a zero dimension") }
        // Walk the chunks that are in hand for profile, transparency, animation and the end.
        var i = 8, sawEnd = false, sawData = false
        while i + 8 <= b.count {
            let length = be32(b, i)
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            switch type {
            case "sRGB": header.colourProfile = "sRGB"
            case "iCCP":
                let nameEnd = b[(i + 8)..<min(b.count, i + 88)].firstIndex(of: 0) ?? (i + 8)
                header.colourProfile = "ICC: " + String(decoding: b[(i + 8)..<nameEnd], as: UTF8.self)
            case "tRNS": header.hasAlpha = true
            case "acTL": header.isAnimated = true
            case "IDAT": sawData = true
            case "IEND": sawEnd = true
            default: break
            }
            if sawEnd { break }
            i += 12 + length
        }
        if isWholeFile && !sawEnd {
            header.problem = sawData ? "the PNG file is truncated (it ends before its IEND chunk)"
                : "the PNG file is truncated (it has no image data)"
        }
        return header
    }

    // MARK: - JPEG: markers up to the start-of-frame

    static func jpeg(_ b: [UInt8], isWholeFile: Bool) throws(Malformed) -> ImageHeader {
        var i = 2
        var profile: String?
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { throw Malformed("JPEG marker expected at byte \(i)") }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            if marker == 0xD9 || marker == 0xDA { break }  // end of image, start of scan before a frame header
            let length = be16(b, i + 2)
            guard length >= 2 else { throw Malformed("JPEG segment with a bad length at byte \(i)") }
            if marker == 0xE2, i + 16 <= b.count, Array(b[(i + 4)..<(i + 15)]) == Array("ICC_PROFILE".utf8) { profile = "ICC" }
            // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard i + 10 <= b.count else { break }
                let components = Int(b[i + 9])
                let model = switch components {
                case 1: "greyscale"
                case 3: "YCbCr"
                case 4: "CMYK"
                default: "\(components) components"
                }
                return ImageHeader(format: "JPEG", width: be16(b, i + 7), height: be16(b, i + 5), bitDepth: Int(b[i + 4]),
                                   colourModel: model, hasAlpha: false, isInterlaced: marker == 0xC2 || marker == 0xC6,
                                   colourProfile: profile)
            }
            i += 2 + length
        }
        throw Malformed(isWholeFile || i + 4 > b.count ? "JPEG file truncated before its frame header" : "JPEG has no frame header")
    }

    // MARK: - GIF

    static func gif(_ b: [UInt8]) throws(Malformed) -> ImageHeader {
        guard b.count >= 13 else { throw Malformed("GIF file truncated before its screen descriptor") }
        let packed = b[10]
        let hasTable = packed & 0x80 != 0
        let colours = hasTable ? 1 << (Int(packed & 0x07) + 1) : nil
        // Animated GIFs carry the NETSCAPE2.0 looping extension.
        let looping = Array("NETSCAPE2.0".utf8)
        // (Regression, found by Fuzz/FuzzImageHeader: a 13- to 23-byte GIF made this range
        // run backwards, 13...(count - 11), which traps.)
        let animated = b.count >= 13 + looping.count
            && (13...(b.count - looping.count)).contains { b[$0..<($0 + looping.count)].elementsEqual(looping) }
        return ImageHeader(format: "GIF", width: le16(b, 6), height: le16(b, 8), bitDepth: Int(packed & 0x07) + 1,
                           colourModel: colours.map { "palette (\($0) colours)" } ?? "palette", hasAlpha: nil,
                           isAnimated: animated ? true : nil)
    }

    // MARK: - WebP: VP8, VP8L or VP8X

    static func webp(_ b: [UInt8]) throws(Malformed) -> ImageHeader {
        guard b.count >= 30 else { throw Malformed("WebP file truncated before its first chunk") }
        let chunk = String(decoding: b[12..<16], as: UTF8.self)
        switch chunk {
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { throw Malformed("WebP VP8 frame without its start code") }
            return ImageHeader(format: "WebP", width: le16(b, 26) & 0x3FFF, height: le16(b, 28) & 0x3FFF, bitDepth: 8,
                               colourModel: "YUV (lossy)", hasAlpha: false)
        case "VP8L":
            guard b[20] == 0x2F else { throw Malformed("WebP VP8L without its signature") }
            let bits = UInt32(b[21]) | UInt32(b[22]) << 8 | UInt32(b[23]) << 16 | UInt32(b[24]) << 24
            return ImageHeader(format: "WebP", width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1,
                               bitDepth: 8, colourModel: "RGBA (lossless)", hasAlpha: (bits >> 28) & 1 == 1)
        case "VP8X":
            let flags = b[20]
            return ImageHeader(format: "WebP", width: le24(b, 24) + 1, height: le24(b, 27) + 1, bitDepth: 8,
                               colourModel: "extended", hasAlpha: flags & 0x10 != 0, isAnimated: flags & 0x02 != 0,
                               colourProfile: flags & 0x20 != 0 ? "ICC" : nil)
        default:
            throw Malformed("WebP with an unknown first chunk '\(chunk)'")
        }
    }

    // MARK: - BMP: BITMAPCOREHEADER or BITMAPINFOHEADER and its successors

    static func bmp(_ b: [UInt8]) throws(Malformed) -> ImageHeader {
        guard b.count >= 26 else { throw Malformed("BMP file truncated before its DIB header") }
        let dibSize = Int(le32(b, 14))
        if dibSize == 12 {
            return ImageHeader(format: "BMP", width: le16(b, 18), height: le16(b, 20), bitDepth: le16(b, 24), colourModel: "RGB")
        }
        guard dibSize >= 40, b.count >= 30 else { throw Malformed("BMP with an unknown DIB header of \(dibSize) bytes") }
        let height = Int(le32(b, 22))
        let bits = le16(b, 28)
        return ImageHeader(format: "BMP", width: Int(le32(b, 18)), height: abs(height), bitDepth: bits,
                           colourModel: bits <= 8 ? "palette" : "RGB", hasAlpha: bits == 32)
    }
}
