import DocentKit

/// iCalendar (RFC 5545), as calendar programs export it: each event, to-do and journal entry
/// with its summary, start, end, place and description. Docent's own reader sees only text.
struct CalendarDocument: FileDocument {
    static var readableContentTypes: [UTType] { [UTType(importedAs: "com.apple.ical.ics", conformingTo: .text)] }
    static var writableContentTypes: [UTType] { [.plainText] }

    struct Entry {
        var kind = "", summary = "", start = "", end = "", location = "", description = ""
    }
    var name: String?
    var entries: [Entry] = []

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents else { throw CocoaError(.fileReadCorruptFile) }
        // Unfold (a line starting with a space or tab continues the one before), then read
        // NAME;PARAMS:VALUE lines inside BEGIN/END blocks.
        let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\n ", with: "").replacingOccurrences(of: "\n\t", with: "")
        guard text.hasPrefix("BEGIN:VCALENDAR") else { throw CocoaError(.fileReadCorruptFile) }
        var current: Entry?
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].split(separator: ";")[0].uppercased()
            let value = Self.unescape(line[line.index(after: colon)...])
            switch key {
            case "BEGIN" where ["VEVENT", "VTODO", "VJOURNAL"].contains(value): current = Entry(kind: String(value.dropFirst()).capitalized)
            case "END" where current != nil && value.hasPrefix("V"): entries.append(current!); current = nil
            case "X-WR-CALNAME": name = value
            case "SUMMARY": current?.summary = value
            case "DTSTART": current?.start = Self.date(value)
            case "DTEND", "DUE": current?.end = Self.date(value)
            case "LOCATION": current?.location = value
            case "DESCRIPTION": current?.description = value
            default: break
            }
        }
    }

    /// 20261201T090000Z → 2026-12-01 09:00 UTC; 20261201 → 2026-12-01.
    static func date(_ value: String) -> String {
        let d = Array(value)
        guard d.count >= 8 else { return value }
        let day = "\(String(d[0..<4]))-\(String(d[4..<6]))-\(String(d[6..<8]))"
        guard d.count >= 13 else { return day }
        return day + " \(String(d[9..<11])):\(String(d[11..<13]))" + (value.hasSuffix("Z") ? " UTC" : "")
    }

    static func unescape(_ value: Substring) -> String {
        value.replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(of: "\\N", with: "\n")
            .replacingOccurrences(of: "\\,", with: ",").replacingOccurrences(of: "\\;", with: ";")
            .replacingOccurrences(of: "\\\\", with: "\\")
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let lines = entries.map { [$0.summary, $0.start, $0.location, $0.description].filter { !$0.isEmpty }.joined(separator: "\n") }
        return FileWrapper(regularFileWithContents: Data(([name].compactMap { $0 } + lines).joined(separator: "\n\n").utf8))
    }
}

@main
struct CalendarDocent: DocentApp {
    var body: some DocumentScene {
        DocumentGroup(viewing: CalendarDocument.self) { file in
            Title(file.document.name ?? "Calendar")
            Metadata(["Entries": .integer(file.document.entries.count)])
            Table(header: ["", "Summary", "Start", "End", "Location"],
                  rows: file.document.entries.map { [$0.kind, $0.summary, $0.start, $0.end, $0.location] })
        }
    }
}
