import Foundation

/// The types' descriptions ("PDF document", "Python script") by identifier, as a search prints
/// them beside each hit: looked up in the bytes of the descriptions file kept beside the types
/// cache, one identifier at a time, or in a table made from a registry. A search names a
/// handful of types; making a dictionary of all 900 first was 2 ms of a 10 ms search process.
package struct TypeDescriptions: Sendable {
    /// `\nidentifier<TAB>description` lines, the first line (the key) included, ending with `\n`.
    private let lines: [UInt8]
    private let table: [String: String]

    /// From the lines of a descriptions file (`RegistryCache.writeDescriptions`).
    init(lines: [UInt8]) {
        self.lines = [UInt8(ascii: "\n")] + lines + (lines.last == UInt8(ascii: "\n") ? [] : [UInt8(ascii: "\n")])
        table = [:]
    }

    init(_ table: [String: String]) {
        (self.lines, self.table) = ([], table)
    }

    /// The description of the type `identifier`, nil when it has none.
    package subscript(identifier: String) -> String? {
        if let found = table[identifier] { return found }
        // A line that starts with the identifier and a tab: each line's start found by memchr.
        let needle = Array(identifier.utf8) + [UInt8(ascii: "\t")]
        return lines.withUnsafeBufferPointer { haystack -> String? in
            guard let base = haystack.baseAddress else { return nil }
            var at = 0
            while at < haystack.count, let newline = memchr(base + at, Int32(UInt8(ascii: "\n")), haystack.count - at) {
                let start = base.distance(to: newline.assumingMemoryBound(to: UInt8.self)) + 1
                if haystack.count - start >= needle.count, memcmp(base + start, needle, needle.count) == 0 {
                    let description = start + needle.count
                    let end = haystack[description...].firstIndex(of: UInt8(ascii: "\n")) ?? haystack.count
                    return String(decoding: haystack[description..<end], as: UTF8.self)
                }
                at = start
            }
            return nil
        }
    }

    /// Every identifier and its description.
    package var all: [String: String] {
        var found = table
        for line in lines.split(separator: UInt8(ascii: "\n")).dropFirst() {
            guard let tab = line.firstIndex(of: UInt8(ascii: "\t")) else { continue }
            found[String(decoding: line[..<tab], as: UTF8.self)] = String(decoding: line[(tab + 1)...], as: UTF8.self)
        }
        return found
    }
}
