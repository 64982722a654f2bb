#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One test of a magic rule: `value` (under `mask`) found at `offset`, or anywhere in
/// `offset ..< offset + range`; a matchlet with children matches only if one child does too.
package struct Matchlet: Sendable, Hashable {
    package var offset: Int
    package var range: Int
    package var value: [UInt8]
    package var mask: [UInt8]?
    package var children: [Matchlet]

    package init(offset: Int, range: Int = 1, value: [UInt8], mask: [UInt8]? = nil, children: [Matchlet] = []) {
        self.offset = offset
        self.range = max(range, 1)
        self.value = value
        self.mask = mask
        self.children = children
    }

    /// Whether the matchlet (and, when it has children, one of them) holds for `data`.
    func matches(_ data: UnsafeRawBufferPointer) -> Bool {
        guard ownMatch(data) else { return false }
        return children.isEmpty || children.contains { $0.matches(data) }
    }

    private func ownMatch(_ data: UnsafeRawBufferPointer) -> Bool {
        let n = value.count
        guard n > 0, offset + n <= data.count, let base = data.baseAddress else { return false }
        let last = min(offset + range - 1, data.count - n)
        if let mask {
            var start = offset
            while start <= last {
                var ok = true
                for k in 0..<n where (data[start + k] & mask[k]) != (value[k] & mask[k]) { ok = false; break }
                if ok { return true }
                start += 1
            }
            return false
        }
        return value.withUnsafeBufferPointer { v -> Bool in
            let first = Int32(v[0])
            var start = offset
            while start <= last {
                // memchr for the first byte, then compare the rest.
                guard let hit = memchr(base + start, first, last - start + 1) else { return false }
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + at, v.baseAddress!, n) == 0 { return true }
                start = at + 1
            }
            return false
        }
    }

    /// How far into a file the matchlet and its children look.
    var extent: Int {
        children.reduce(offset + range - 1 + value.count) { max($0, $1.extent) }
    }
}

/// The magic rules of one type at one priority: it matches when any top-level matchlet does.
package struct MagicSection: Sendable, Hashable {
    /// 0–100; 50 is the default, 80 and above overrides a name's glob.
    package var priority: Int
    /// The MIME type the section names; empty when it names a type by `identifier`.
    package var mimeType: String
    /// The type identifier, for a Docent declaration that has no MIME type.
    package var identifier: String?
    package var matchlets: [Matchlet]

    package init(priority: Int, mimeType: String, identifier: String? = nil, matchlets: [Matchlet]) {
        self.priority = priority
        self.mimeType = mimeType
        self.identifier = identifier
        self.matchlets = matchlets
    }

    /// Whether `data` (a file's first bytes) satisfies the section.
    package func matches(_ data: UnsafeRawBufferPointer) -> Bool { matchlets.contains { $0.matches(data) } }

    /// The type named: the MIME type, or the identifier.
    package var typeName: String { identifier ?? mimeType }
}

/// A magic section that matched a file.
package struct MagicHit: Sendable, Hashable {
    package var mimeType: String
    package var identifier: String?
    package var priority: Int
    package var typeName: String { identifier ?? mimeType }
}

/// Content rules by type: shared-mime-info's compiled `magic` file and Docent's declarations,
/// tried in priority order.
package struct MagicRules: Sendable {
    /// Sections, highest priority first (in file order within a priority, as `update-mime-database` sorts them).
    package private(set) var sections: [MagicSection] = []
    /// Types that have at least one section (canonical MIME types and identifiers).
    package private(set) var typesWithMagic: Set<String> = []
    /// How many bytes of a file the rules read, at most.
    package private(set) var extent = 0
    /// Sections by the byte every one of their tests needs at offset 0 (most of them: `%PDF`,
    /// `PK\3\4`, `OggS`), so a file is tried only against those that can match its first byte
    /// and the rest; nil until `reindex()`.
    private var index: (byFirstByte: [[Int]], others: [Int])?

    package init() {}

    package init(_ sections: [MagicSection]) {
        for s in sections { add(s) }
    }

    /// Rules from sections already in priority order (a cache's).
    init(orderedSections: [MagicSection]) {
        sections = orderedSections
        typesWithMagic = Set(orderedSections.map(\.typeName))
        extent = orderedSections.reduce(0) { e, s in s.matchlets.reduce(e) { max($0, $1.extent) } }
        reindex()
    }

    /// Adds `section`, keeping priority order (a stable insert after its equals).
    package mutating func add(_ section: MagicSection) {
        index = nil
        let at = sections.firstIndex { $0.priority < section.priority } ?? sections.endIndex
        sections.insert(section, at: at)
        typesWithMagic.insert(section.typeName)
        extent = max(extent, section.matchlets.reduce(0) { max($0, $1.extent) })
    }

    /// Drops every section of `typeName` (a higher-priority directory's `__NOMAGIC__`, or its own rules).
    package mutating func removeAll(of typeName: String) {
        index = nil
        sections.removeAll { $0.typeName == typeName }
        typesWithMagic.remove(typeName)
    }

    /// Every section that matches `data`, highest priority first.
    package func hits(_ data: UnsafeRawBufferPointer) -> [MagicHit] {
        var found: [MagicHit] = []
        func test(_ section: MagicSection) {
            if section.matches(data) {
                found.append(MagicHit(mimeType: section.mimeType, identifier: section.identifier, priority: section.priority))
            }
        }
        guard let index else {
            for section in sections { test(section) }
            return found
        }
        // Both lists are in section order; merge them to keep priority order.
        let first = data.isEmpty ? [] : index.byFirstByte[Int(data[0])]
        var i = 0, j = 0
        while i < first.count || j < index.others.count {
            if j == index.others.count || (i < first.count && first[i] < index.others[j]) {
                test(sections[first[i]]); i += 1
            } else {
                test(sections[index.others[j]]); j += 1
            }
        }
        return found
    }

    /// Builds the first-byte index; call once the sections are all added (adding more drops it).
    package mutating func reindex() {
        var byFirstByte = [[Int]](repeating: [], count: 256), others: [Int] = []
        for (k, section) in sections.enumerated() {
            let firsts = section.matchlets.map { m -> UInt8? in
                m.offset == 0 && m.range == 1 && m.mask == nil && !m.value.isEmpty ? m.value[0] : nil
            }
            if firsts.contains(where: { $0 == nil }) {
                others.append(k)
            } else {
                for byte in Set(firsts.compactMap { $0 }) { byFirstByte[Int(byte)].append(k) }
            }
        }
        index = (byFirstByte, others)
    }

    package func hits(_ bytes: [UInt8]) -> [MagicHit] { bytes.withUnsafeBytes { hits($0) } }

    // MARK: - The compiled format

    /// Parses shared-mime-info's compiled `magic` file: the header `MIME-Magic\0\n`, then
    /// sections `[priority:type]` of lines `[indent]>offset=LLvalue[&mask][~word][+range]`
    /// (LL a big-endian length; the value may hold newlines, so this reads byte by byte).
    /// A malformed section is skipped from its first bad line to the next section.
    ///
    /// - Returns: the sections, and the types a `__NOMAGIC__` line clears in lower directories.
    package static func parseCompiled(_ data: [UInt8]) -> (sections: [MagicSection], cleared: [String]) {
        let header = Array("MIME-Magic\0\n".utf8)
        guard data.count >= header.count, Array(data[0..<header.count]) == header else { return ([], []) }
        var sections: [MagicSection] = [], cleared: [String] = []
        var i = header.count
        var current: (priority: Int, mime: String)?
        var roots: [Matchlet] = []
        var stack: [(indent: Int, matchlet: Matchlet)] = []   // the open path from a root to the last matchlet

        func closeTo(_ indent: Int) {
            // Fold the open path down to `indent` levels, attaching each child to its parent.
            while stack.count > indent {
                let (_, done) = stack.removeLast()
                if stack.isEmpty { roots.append(done) } else { stack[stack.count - 1].matchlet.children.append(done) }
            }
        }
        func finishSection() {
            closeTo(0)
            if let c = current, !roots.isEmpty { sections.append(MagicSection(priority: c.priority, mimeType: c.mime, matchlets: roots)) }
            roots = []
            current = nil
        }
        func skipLine() { while i < data.count, data[i] != 0x0A { i += 1 }; i += 1 }
        func number() -> Int? {
            var v = 0, digits = 0
            while i < data.count, data[i] >= 0x30, data[i] <= 0x39, digits < 9 { v = v * 10 + Int(data[i] - 0x30); i += 1; digits += 1 }
            return digits > 0 ? v : nil
        }

        while i < data.count {
            if data[i] == UInt8(ascii: "[") {
                finishSection()
                guard let close = data[i...].firstIndex(of: UInt8(ascii: "]")), let colon = data[i..<close].firstIndex(of: UInt8(ascii: ":")),
                      let priority = Int(String(decoding: data[(i + 1)..<colon], as: UTF8.self))
                else { skipLine(); continue }
                current = (priority, String(decoding: data[(colon + 1)..<close], as: UTF8.self))
                i = close + 1
                if i < data.count, data[i] == 0x0A { i += 1 }
                continue
            }
            if data[i...].starts(with: Array("__NOMAGIC__".utf8)) {
                if let c = current { cleared.append(c.mime) }
                skipLine()
                continue
            }
            guard current != nil else { skipLine(); continue }
            // [indent]>offset=
            let indent = data[i] == UInt8(ascii: ">") ? 0 : number()
            guard let indent, i < data.count, data[i] == UInt8(ascii: ">") else { current = nil; skipLine(); continue }
            i += 1
            guard let offset = number(), i + 2 < data.count, data[i] == UInt8(ascii: "=") else { current = nil; skipLine(); continue }
            let length = Int(data[i + 1]) << 8 | Int(data[i + 2])
            i += 3
            guard i + length <= data.count else { break }
            var value = Array(data[i..<(i + length)])
            i += length
            var mask: [UInt8]?
            if i < data.count, data[i] == UInt8(ascii: "&") {
                guard i + 1 + length <= data.count else { break }
                mask = Array(data[(i + 1)..<(i + 1 + length)])
                i += 1 + length
            }
            var wordSize = 1
            if i < data.count, data[i] == UInt8(ascii: "~") { i += 1; wordSize = number() ?? 1 }
            var range = 1
            if i < data.count, data[i] == UInt8(ascii: "+") { i += 1; range = number() ?? 1 }
            guard i < data.count, data[i] == 0x0A else { current = nil; skipLine(); continue }
            i += 1
            // A host-order number: the file holds it big-endian; this host is little-endian.
            if wordSize > 1, length % wordSize == 0, UInt16(littleEndian: 1) == 1 {
                value = swapped(value, wordSize)
                mask = mask.map { swapped($0, wordSize) }
            }
            guard indent <= stack.count else { current = nil; skipLine(); continue }
            closeTo(indent)
            stack.append((indent, Matchlet(offset: offset, range: range, value: value, mask: mask)))
        }
        finishSection()
        return (sections, cleared)
    }

    private static func swapped(_ bytes: [UInt8], _ size: Int) -> [UInt8] {
        var out = bytes
        var start = 0
        while start + size <= out.count {
            out[start..<(start + size)].reverse()
            start += size
        }
        return out
    }
}

/// XML root elements that name a type: shared-mime-info's `XMLnamespaces` and Docent's declarations.
package struct XMLRootRules: Sendable {
    /// "namespace localName" → the type's MIME type (or identifier).
    package private(set) var types: [String: String] = [:]

    package init() {}

    package mutating func add(namespace: String, localName: String, type: String) {
        types[namespace + " " + localName] = type
    }

    /// The type for a root element, if one is declared.
    package func type(namespace: String, localName: String) -> String? { types[namespace + " " + localName] }

    /// Parses `XMLnamespaces`: lines `namespaceURI localName mimetype`.
    package static func parse(_ text: String) -> [(namespace: String, localName: String, mimeType: String)] {
        text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ", omittingEmptySubsequences: false)
            guard f.count == 3, !f[1].isEmpty, !f[2].isEmpty else { return nil }
            return (String(f[0]), String(f[1]), String(f[2]))
        }
    }
}
