import ContentTypes

/// What an OLE2 compound file's directory says it holds.
public struct CompoundFileEvidence: Sendable, Hashable {
    /// The MIME type the streams name.
    public var mimeType: String
    /// The stream (or `CompObj` user type) that named it.
    public var stream: String
}

/// Reads an OLE2 compound file's directory ([MS-CFB]) far enough to see its stream names and
/// its `CompObj` user type, where Word, Excel, PowerPoint, Visio, Publisher, Outlook, Works,
/// WordPerfect and StarOffice 5 write their format's name.
///
/// Bounded: at most `budget` bytes are read beyond the prefix, sector numbers are checked
/// against the file's size, and a chain that loops or runs long ends the walk.
enum CompoundFile {
    static let signature: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]

    /// Reads `count` bytes at `offset` of the file; nil past its end or on error.
    typealias Reader = (_ offset: Int, _ count: Int) -> [UInt8]?

    struct Entry {
        var name: String
        var type: UInt8        // 1 storage, 2 stream, 5 root
        var start: UInt32
        var size: UInt64
    }

    /// Whether `bytes` start with the compound file signature.
    static func isCompoundFile(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 512 && bytes[0..<8].elementsEqual(signature)
    }

    /// The format the directory names, or nil when it names none Docent knows (or is damaged).
    static func identify(prefix: [UInt8], budget: Int = 1 << 20, read: @escaping Reader) -> CompoundFileEvidence? {
        guard isCompoundFile(prefix) else { return nil }
        var file = Walker(header: prefix, read: read, budget: budget)
        guard let entries = file.directory() else { return nil }
        let names = Set(entries.map { (entry: Entry) in entry.name })
        func has(_ name: String) -> Bool { names.contains(name) }
        // Stream names first: they are what the applications look for.
        let byStream: [(String, String)] = [
            ("PowerPoint Document", "application/vnd.ms-powerpoint"),
            ("WordDocument", "application/msword"),
            ("Workbook", "application/vnd.ms-excel"),
            ("Book", "application/vnd.ms-excel"),
            ("VisioDocument", "application/vnd.visio"),
            ("Quill", "application/vnd.ms-publisher"),
            ("__properties_version1.0", "application/vnd.ms-outlook"),
            ("StarWriterDocument", "application/vnd.stardivision.writer"),
            ("StarCalcDocument", "application/vnd.stardivision.calc"),
            ("StarMathDocument", "application/vnd.stardivision.math"),
            ("StarChartDocument", "application/vnd.stardivision.chart"),
            ("PerfectOffice_MAIN", "application/vnd.wordperfect"),
            ("MatOST", "application/vnd.ms-works"),
            ("WksSSWorkBook", "application/vnd.ms-works"),
        ]
        var userType = ""
        if let compObj = entries.first(where: { $0.name == "\u{1}CompObj" && $0.type == 2 }),
           let bytes = file.stream(compObj, limit: 4096) {
            let printable: [UInt8] = bytes.map { (0x20..<0x7F).contains($0) ? $0 : 0x20 }
            userType = String(decoding: printable, as: UTF8.self)
        }
        if has("StarDrawDocument3") || has("StarDrawDocument") {
            // StarOffice 5 keeps drawings and presentations in the same stream; CompObj tells them apart.
            let impress = userType.contains("StarImpress")
            return .init(mimeType: impress ? "application/vnd.stardivision.impress" : "application/vnd.stardivision.draw",
                         stream: impress ? "CompObj: StarImpress" : "StarDrawDocument3")
        }
        for (stream, mime) in byStream where has(stream) { return .init(mimeType: mime, stream: stream) }
        let byUserType: [(String, String)] = [
            ("Works", "application/vnd.ms-works"), ("WordPerfect", "application/vnd.wordperfect"),
            ("StarWriter", "application/vnd.stardivision.writer"), ("StarCalc", "application/vnd.stardivision.calc"),
            ("StarImpress", "application/vnd.stardivision.impress"), ("StarDraw", "application/vnd.stardivision.draw"),
        ]
        for (word, mime) in byUserType where userType.contains(word) { return .init(mimeType: mime, stream: "CompObj: \(word)") }
        if entries.first(where: { $0.type == 5 }) != nil, file.rootCLSID == msiCLSID {
            return .init(mimeType: "application/x-msi", stream: "root CLSID (Windows Installer)")
        }
        return nil
    }

    /// {000C1084-0000-0000-C000-000000000046}, as stored (little-endian fields).
    static let msiCLSID: [UInt8] = [0x84, 0x10, 0x0C, 0x00, 0x00, 0x00, 0x00, 0x00, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46]

    struct Walker {
        let header: [UInt8]
        let read: Reader
        var budget: Int
        let sectorSize: Int
        let miniSectorSize: Int
        let miniCutoff: Int
        var fatCache: [UInt32: [UInt8]] = [:]
        var rootCLSID: [UInt8] = []
        var root: Entry?

        init(header: [UInt8], read: @escaping Reader, budget: Int) {
            self.header = header
            self.read = read
            self.budget = budget
            let shift = Int(Self.u16(header, 0x1E))
            sectorSize = (shift == 9 || shift == 12) ? 1 << shift : 512
            let miniShift = Int(Self.u16(header, 0x20))
            miniSectorSize = miniShift == 6 ? 64 : 64
            let cutoff = Int(Self.u32(header, 0x38))
            miniCutoff = cutoff > 0 && cutoff <= 1 << 20 ? cutoff : 4096
        }

        static func u16(_ b: [UInt8], _ o: Int) -> UInt16 { o + 2 <= b.count ? UInt16(b[o]) | UInt16(b[o + 1]) << 8 : 0 }
        static func u32(_ b: [UInt8], _ o: Int) -> UInt32 {
            guard o + 4 <= b.count else { return 0 }
            let b0 = UInt32(b[o]), b1 = UInt32(b[o + 1]) << 8, b2 = UInt32(b[o + 2]) << 16, b3 = UInt32(b[o + 3]) << 24
            return b0 | b1 | b2 | b3
        }

        mutating func fetch(_ offset: Int, _ count: Int) -> [UInt8]? {
            if offset + count <= header.count { return Array(header[offset..<(offset + count)]) }
            guard budget >= count else { return nil }
            budget -= count
            return read(offset, count)
        }

        mutating func sector(_ n: UInt32) -> [UInt8]? {
            guard n < 0xFFFF_FFFA else { return nil }
            let data = fetch((Int(n) + 1) * sectorSize, sectorSize)
            return data?.count == sectorSize ? data : nil
        }

        /// The FAT sector holding entry `k` of the FAT (from the header's 109 DIFAT slots, then the DIFAT chain).
        mutating func fatSectorNumber(_ k: Int) -> UInt32? {
            if k < 109 { return Self.u32(header, 0x4C + 4 * k) }
            var difat = Self.u32(header, 0x44)
            var index = k - 109
            let perSector = sectorSize / 4 - 1
            var hops = 0
            while hops < 64 {
                guard let s = sector(difat) else { return nil }
                if index < perSector { return Self.u32(s, 4 * index) }
                index -= perSector
                difat = Self.u32(s, 4 * perSector)
                hops += 1
            }
            return nil
        }

        mutating func next(_ n: UInt32) -> UInt32? {
            let perSector = sectorSize / 4
            let k = Int(n) / perSector
            guard let fatNumber = fatSectorNumber(k) else { return nil }
            if fatCache[fatNumber] == nil { fatCache[fatNumber] = sector(fatNumber) }
            guard let fat = fatCache[fatNumber] else { return nil }
            return Self.u32(fat, 4 * (Int(n) % perSector))
        }

        /// The sectors of the chain starting at `start`, at most `limit`.
        mutating func chain(_ start: UInt32, limit: Int) -> [UInt32] {
            var out: [UInt32] = []
            var seen: Set<UInt32> = []
            var n = start
            while n < 0xFFFF_FFFA, out.count < limit, seen.insert(n).inserted {
                out.append(n)
                guard let following = next(n) else { break }
                n = following
            }
            return out
        }

        mutating func directory() -> [Entry]? {
            var entries: [Entry] = []
            let first = Self.u32(header, 0x30)
            for n in chain(first, limit: 64) {
                guard let s = sector(n) else { break }
                for e in stride(from: 0, to: sectorSize, by: 128) {
                    let nameLength = Int(Self.u16(s, e + 0x40))
                    let type = s[e + 0x42]
                    guard (2...64).contains(nameLength), [1, 2, 5].contains(type) else { continue }
                    var units: [UInt16] = []
                    for c in stride(from: 0, to: nameLength - 2, by: 2) { units.append(Self.u16(s, e + c)) }
                    let low = UInt64(Self.u32(s, e + 0x78))
                    let high: UInt64 = sectorSize == 512 ? 0 : UInt64(Self.u32(s, e + 0x7C)) << 32
                    let entry = Entry(name: String(decoding: units, as: UTF16.self), type: type,
                                      start: Self.u32(s, e + 0x74), size: low | high)
                    if type == 5, root == nil {
                        root = entry
                        rootCLSID = Array(s[(e + 0x50)..<(e + 0x60)])
                    }
                    entries.append(entry)
                }
            }
            return entries.isEmpty ? nil : entries
        }

        /// The first `limit` bytes of a stream (mini stream or regular sectors).
        mutating func stream(_ entry: Entry, limit: Int) -> [UInt8]? {
            let size = Int(min(entry.size, UInt64(limit)))
            guard size > 0 else { return nil }
            var out: [UInt8] = []
            if entry.size < UInt64(miniCutoff), let root {
                // Mini sectors live in the root entry's stream; the mini FAT chains them.
                let miniFAT = chain(Self.u32(header, 0x3C), limit: 16).compactMap { sector($0) }.flatMap { $0 }
                let rootSectors = chain(root.start, limit: 256)
                let perSector = sectorSize / miniSectorSize
                var mini = entry.start
                var seen: Set<UInt32> = []
                while out.count < size, mini < 0xFFFF_FFFA, seen.insert(mini).inserted {
                    let index = Int(mini) / perSector
                    guard index < rootSectors.count, let s = sector(rootSectors[index]) else { return nil }
                    let at = (Int(mini) % perSector) * miniSectorSize
                    out += s[at..<(at + miniSectorSize)]
                    guard 4 * Int(mini) + 4 <= miniFAT.count else { break }
                    mini = Self.u32(miniFAT, 4 * Int(mini))
                }
            } else {
                for n in chain(entry.start, limit: (size + sectorSize - 1) / sectorSize) {
                    guard let s = sector(n) else { return nil }
                    out += s
                }
            }
            return Array(out.prefix(size))
        }
    }
}
