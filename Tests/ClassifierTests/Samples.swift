/// Sample files built here from the formats' specifications, for the classification tests.
/// (No third party's test samples: those are the independent check.)
enum Samples {
    // MARK: - OLE2 compound files ([MS-CFB], version 3: 512-byte sectors, 64-byte mini sectors)

    /// A compound file holding `streams` (small ones in the mini stream, as writers do), with
    /// `padding` bytes of filler streams first so the directory can lie far into the file.
    static func compoundFile(_ streams: [(name: String, data: [UInt8])], rootCLSID: [UInt8] = Array(repeating: 0, count: 16),
                             padding: Int = 0) -> [UInt8] {
        let end: UInt32 = 0xFFFF_FFFE, free: UInt32 = 0xFFFF_FFFF, fatMark: UInt32 = 0xFFFF_FFFD
        var all = streams
        if padding > 0 { all.insert((name: "Filler", data: Array(repeating: 0x5A, count: padding)), at: 0) }
        let small = all.indices.filter { all[$0].data.count < 4096 }
        let large = all.indices.filter { all[$0].data.count >= 4096 }
        // The mini stream: each small stream in whole 64-byte mini sectors.
        var miniStream: [UInt8] = [], miniFAT: [UInt32] = [], miniStart: [Int: UInt32] = [:]
        for i in small {
            let count = max(1, (all[i].data.count + 63) / 64)
            miniStart[i] = UInt32(miniFAT.count)
            for k in 0..<count { miniFAT.append(k == count - 1 ? end : UInt32(miniFAT.count + 1)) }
            miniStream += all[i].data + Array(repeating: 0, count: count * 64 - all[i].data.count)
        }
        func sectors(_ bytes: Int) -> Int { (bytes + 511) / 512 }
        let directorySectors = sectors((all.count + 1) * 128)
        let miniFATSectors = miniFAT.isEmpty ? 0 : sectors(miniFAT.count * 4)
        let miniStreamSectors = sectors(miniStream.count)
        let largeSectors = large.map { sectors(all[$0].data.count) }
        let content = directorySectors + miniFATSectors + miniStreamSectors + largeSectors.reduce(0, +)
        var fatSectors = 1
        while fatSectors * 128 < content + fatSectors { fatSectors += 1 }
        precondition(fatSectors <= 109)
        var fat: [UInt32] = Array(repeating: fatMark, count: fatSectors)
        func chain(_ count: Int) -> UInt32 {
            let start = UInt32(fat.count)
            for k in 0..<count { fat.append(k == count - 1 ? end : UInt32(fat.count + 1)) }
            return start
        }
        let directoryStart = chain(directorySectors)
        let miniFATStart = miniFATSectors > 0 ? chain(miniFATSectors) : end
        let miniStreamStart = miniStreamSectors > 0 ? chain(miniStreamSectors) : end
        var largeStart: [Int: UInt32] = [:]
        for (k, i) in large.enumerated() { largeStart[i] = chain(largeSectors[k]) }
        while fat.count % 128 != 0 { fat.append(free) }

        var out: [UInt8] = []
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { for s in stride(from: 0, to: 32, by: 8) { out.append(UInt8((v >> UInt32(s)) & 0xFF)) } }
        func pad(to size: Int) { out += Array(repeating: 0, count: size - out.count % size == size ? 0 : size - out.count % size) }
        // Header.
        out += [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + Array(repeating: 0, count: 16)
        u16(0x3E); u16(3); u16(0xFFFE); u16(9); u16(6)
        out += Array(repeating: 0, count: 6)
        u32(0); u32(UInt32(fatSectors)); u32(directoryStart); u32(0); u32(4096)
        u32(miniFATStart); u32(UInt32(miniFATSectors)); u32(end); u32(0)
        for k in 0..<109 { u32(k < fatSectors ? UInt32(k) : free) }
        precondition(out.count == 512)
        for v in fat { u32(v) }
        // Directory: the root, then each stream as the right sibling of the one before.
        func entry(_ name: String, type: UInt8, child: UInt32, right: UInt32, clsid: [UInt8], start: UInt32, size: Int) {
            let begin = out.count
            let units = Array(name.utf16)
            for u in units { u16(u) }
            out += Array(repeating: 0, count: 64 - units.count * 2)
            u16(UInt16((units.count + 1) * 2))
            out += [type, 1]
            u32(free); u32(right); u32(child)
            out += clsid
            out += Array(repeating: 0, count: 4 + 16)
            u32(start); u32(UInt32(size)); u32(0)
            precondition(out.count - begin == 128)
        }
        entry("Root Entry", type: 5, child: all.isEmpty ? free : 1, right: free, clsid: rootCLSID,
              start: miniStreamStart, size: miniStream.count)
        for (i, stream) in all.enumerated() {
            entry(stream.name, type: 2, child: free, right: i + 1 < all.count ? UInt32(i + 2) : free,
                  clsid: Array(repeating: 0, count: 16), start: miniStart[i] ?? largeStart[i]!, size: stream.data.count)
        }
        pad(to: 512)
        for v in miniFAT { u32(v) }
        if !miniFAT.isEmpty { pad(to: 512) }
        out += miniStream
        pad(to: 512)
        for i in large {
            out += all[i].data
            pad(to: 512)
        }
        return out
    }

    /// A `CompObj` stream naming `userType` (as [MS-OLEDS] 2.3.8 lays it out).
    static func compObj(_ userType: String) -> [UInt8] {
        var out: [UInt8] = [0x01, 0x00, 0xFE, 0xFF, 0x03, 0x0A, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF] + Array(repeating: 0, count: 16)
        let text = Array(userType.utf8) + [0]
        out += [UInt8(text.count), 0, 0, 0] + text
        out += [0, 0, 0, 0, 0, 0, 0, 0]
        return out
    }

    // MARK: - Ogg

    /// The first page of an Ogg stream whose first packet is `packet` (RFC 3533).
    static func oggPage(_ packet: [UInt8]) -> [UInt8] {
        var out = Array("OggS".utf8) + [0, 0x02] + Array(repeating: 0, count: 8)
        out += [1, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 0, 0]
        out += [1, UInt8(packet.count)]
        return out + packet + Array(repeating: 0, count: 200)
    }

    // MARK: - Zip

    /// A zip whose first member is `mimetype`, stored, as OpenDocument, KOffice and Krita write.
    static func zipWithMimetype(_ mimetype: String, more: [(String, [UInt8])] = []) -> [UInt8] {
        var out: [UInt8] = [], central: [UInt8] = []
        func u16(_ v: Int, _ to: inout [UInt8]) { to += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        func u32(_ v: UInt32, _ to: inout [UInt8]) { for s in stride(from: 0, to: 32, by: 8) { to.append(UInt8((v >> UInt32(s)) & 0xFF)) } }
        let members = [("mimetype", Array(mimetype.utf8))] + more
        for (name, data) in members {
            let offset = UInt32(out.count)
            let crc = crc32(data)
            out += [0x50, 0x4B, 0x03, 0x04]; u16(10, &out); u16(0, &out); u16(0, &out); u16(0, &out); u16(0, &out)
            u32(crc, &out); u32(UInt32(data.count), &out); u32(UInt32(data.count), &out)
            u16(name.utf8.count, &out); u16(0, &out)
            out += Array(name.utf8) + data
            central += [0x50, 0x4B, 0x01, 0x02]; u16(20, &central); u16(10, &central); u16(0, &central); u16(0, &central)
            u16(0, &central); u16(0, &central); u32(crc, &central); u32(UInt32(data.count), &central); u32(UInt32(data.count), &central)
            u16(name.utf8.count, &central); u16(0, &central); u16(0, &central); u16(0, &central); u16(0, &central)
            u32(0, &central); u32(offset, &central)
            central += Array(name.utf8)
        }
        let centralOffset = out.count
        out += central
        out += [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0]; u16(members.count, &out); u16(members.count, &out)
        u32(UInt32(central.count), &out); u32(UInt32(centralOffset), &out); u16(0, &out)
        return out
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }
}
