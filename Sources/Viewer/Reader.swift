import ContentTypes
import Engine
import FileAccess
import Foundation
import Index
import Rendering
import SystemPackage

/// A document's whole text as the reader shows it: numbered lines, served a stretch at a
/// time as the reader scrolls, every match of the query marked as the index matched it.
struct ReaderText: Sendable {
    let text: String
    /// Where each line starts, in UTF-8 bytes (and, last, the text's end plus one).
    let lineStarts: [Int]
    /// A PDF's: the line each page starts on (its pages' texts are joined by form feeds), and
    /// the address of a page's picture without the page's number; nil for other texts.
    let pages: (starts: [Int], picture: String)?

    init(_ text: String, pictures: String? = nil) {
        var text = text
        text.makeContiguousUTF8()
        self.text = text
        var starts = [0], pageStarts = [1]
        text.utf8.withContiguousStorageIfAvailable { bytes in
            for (i, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
                starts.append(i + 1)
                if pictures != nil, i + 1 < bytes.count, bytes[i + 1] == 0x0C { pageStarts.append(starts.count) }
            }
            if starts.last == bytes.count, bytes.count > 0 { starts.removeLast() }  // a final newline ends the last line
            starts.append(bytes.count + 1)
        }
        lineStarts = starts
        pages = pictures.map { (pageStarts, $0) }
    }

    /// The page line `number` is on (from 1; 1 for a text without pages).
    func page(ofLine number: Int) -> Int {
        guard let pages else { return 1 }
        return max(pages.starts.partitioningIndex { $0 > number }, 1)
    }

    var lineCount: Int { max(lineStarts.count - 1, 0) }

    /// The line holding byte `offset` (1-based).
    func line(at offset: Int) -> Int {
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low + 1
    }

    /// The text of `range` (UTF-8 bytes on line boundaries).
    func slice(_ range: Range<Int>) -> String {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range.clamped(to: 0..<bytes.count)]), as: UTF8.self)
        } ?? ""
    }

    /// The bytes of line `number` (1-based), without its newline.
    func bytes(ofLine number: Int) -> Range<Int> {
        lineStarts[number - 1]..<(lineStarts[number] - 1)
    }
}

/// A query's marks in one text: every match's bytes, and the line of each (for "3 of 17").
struct ReaderMarks: Sendable {
    let ranges: [Range<Int>]
    let lines: [Int]

    static let none = ReaderMarks(ranges: [], lines: [])
}

/// The last few texts and marks asked for, so that scrolling through a document does not
/// open it again for each stretch (keyed by the file's signature: a changed file is read again).
final class ReaderCache: Sendable {
    private struct Key: Hashable {
        let id: Int64
        let signature: FileSignature
    }
    private let texts = Locked<[(Key, ReaderText)]>([])
    private let marks = Locked<[(Key, String, ReaderMarks)]>([])
    static let kept = 4

    func text(id: Int64, signature: FileSignature, make: () -> ReaderText?) -> ReaderText? {
        let key = Key(id: id, signature: signature)
        if let hit = texts.withLock({ $0.first { $0.0 == key }?.1 }) { return hit }
        guard let made = make() else { return nil }
        texts.withLock { texts in
            texts.removeAll { $0.0.id == id }
            texts.insert((key, made), at: 0)
            if texts.count > Self.kept { texts.removeLast() }
        }
        return made
    }

    /// The marks of `query` in the text, if they were made already.
    func knownMarks(id: Int64, signature: FileSignature, query: String) -> ReaderMarks? {
        let key = Key(id: id, signature: signature)
        return marks.withLock { $0.first { $0.0 == key && $0.1 == query }?.2 }
    }

    func marks(id: Int64, signature: FileSignature, query: String, make: () -> ReaderMarks) -> ReaderMarks {
        let key = Key(id: id, signature: signature)
        if let hit = marks.withLock({ $0.first { $0.0 == key && $0.1 == query }?.2 }) { return hit }
        let made = make()
        marks.withLock { marks in
            marks.insert((key, query, made), at: 0)
            if marks.count > Self.kept * 2 { marks.removeLast() }
        }
        return made
    }
}

extension ViewerServer {
    /// Lines shown at once: the first screen, and each stretch loaded as the reader scrolls.
    static let readerLines = 300
    /// The most bytes of one stretch (a file of few, very long lines).
    static let readerBytes = 256 << 10

    /// The file's whole text (its plain-text rendition, read as the indexer reads it; another
    /// host's from what that host stored), and its signature now.
    func readerText(_ file: IndexedFile, id: Int64, read: (text: String, signature: FileSignature)? = nil) -> (ReaderText, FileSignature)? {
        // The text read with the preview, under the signature of the file it was read from; else
        // this machine's file as it is now (the index may not have caught up with a change the
        // page was told of); another host's as its row says.
        let stored = file.signature
        let signature = read?.signature
            ?? (file.host == nil ? (try? FileStatus.lstat(FilePath(bytes: file.path)))?.signature ?? stored : stored)
        let pictures = file.host == nil && Self.isPaged(file) ? "/picture/\(id)?v=\(signature.modified)&page=" : nil
        guard let text = readerCache.text(id: id, signature: signature, make: {
            (read?.text ?? readText(file, id: id, signature: signature)).map { ReaderText($0, pictures: pictures) }
        }) else { return nil }
        return (text, signature)
    }

    /// Every match of `query` in the whole text, and their lines (kept for the last texts).
    func readerMarks(_ text: ReaderText, id: Int64, signature: FileSignature, query: String) -> ReaderMarks {
        readerCache.marks(id: id, signature: signature, query: query) {
            guard let expression = highlighted(query), let ranges = try? TextWords().matches(in: text.text, of: expression) else { return .none }
            return ReaderMarks(ranges: ranges, lines: ranges.map { text.line(at: $0.lowerBound) })
        }
    }

    /// The text and the whole text's marks (for the stretches after the first, and the count).
    func reader(_ file: IndexedFile, id: Int64, query: String) -> (ReaderText, ReaderMarks)? {
        guard let (text, signature) = readerText(file, id: id) else { return nil }
        return (text, readerMarks(text, id: id, signature: signature, query: query))
    }

    /// Whether the reader shows the file page by page, each page's picture beside its text: a PDF.
    static func isPaged(_ file: IndexedFile) -> Bool {
        guard let type = UTTypeRegistry.shared.type(identifier: file.contentType), let pdf = UTType("com.adobe.pdf", registry: .shared) else { return false }
        return type.conforms(to: pdf)
    }

    /// What a reader marks of `query`: its words, and the compounds the search matched too.
    func highlighted(_ query: String) -> FTSExpression? {
        guard !query.isEmpty, let match = (try? SearchQuery.parse(query))?.match else { return nil }
        return ((try? index.compounded(match)) ?? match)?.highlighted
    }

    private func readText(_ file: IndexedFile, id: Int64, signature: FileSignature) -> String? {
        guard file.host == nil else { return (try? index.storedText(id: id, limit: documents.budget.textBytes)) ?? nil }
        if let stored = storedTextIfCurrent(file, id: id, signature: signature) { return stored }
        let opener = documents.opener
        guard let prepared = try? opener.prepare(FilePath(bytes: file.path)), prepared.classification.status?.kind == .regular,
              case .success(let extraction?) = opener.read(prepared, preview: false, text: true, textBytes: opener.budget.readBytes)
        else { return nil }
        return extraction.text ?? extraction.preview?.plainText
    }

    /// The text the index stored for a file that has not changed since (its row's signature is
    /// the file's now) and whose text is made by reading a format, not the file's own bytes: a
    /// 1,158-page PDF's text then costs an inflate (20 ms) instead of reading every page again
    /// (1.2 s). Nil when the file changed, is plain text (read as it is), or its stored text
    /// may have been cut at the index's limit. `signature`: the file's now.
    func storedTextIfCurrent(_ file: IndexedFile, id: Int64, signature: FileSignature) -> String? {
        guard file.errorKind == nil, let type = UTTypeRegistry.shared.type(identifier: file.contentType),
              let plainText = UTType("public.plain-text", registry: .shared), !type.conforms(to: plainText),
              file.signature.compared(to: signature) != .changed,
              let stored = (try? index.storedText(id: id, limit: documents.budget.textBytes)) ?? nil,
              stored.utf8.count < documents.budget.textBytes - 4
        else { return nil }
        return stored
    }

    /// The reader of a file (nil when it has no text): from line `from`, else around the
    /// first match, else from the start. The first screen does not wait for the whole text's
    /// matches: the first is looked for a stretch at a time, the count comes after
    /// (`/api/marks`), unless the marks are known already.
    func readerSection(_ file: IndexedFile, id: Int64, query: String, from: Int?,
                       read: (text: String, signature: FileSignature)? = nil) -> String? {
        guard let (text, signature) = readerText(file, id: id, read: read), text.lineCount > 0 else { return nil }
        let language = Self.language(of: file)
        if let known = readerCache.knownMarks(id: id, signature: signature, query: query) {
            return Self.readerSection(text, marks: known, id: id, query: query, from: from, language: language)
        }
        let expression = highlighted(query)
        let first = from == nil ? expression.flatMap { Self.firstMatch(in: text, of: $0) } : nil
        let start = min(max(1, from ?? first.map { Self.opening(text, at: $0) } ?? 1), text.lineCount)
        let stretch = Self.marks(in: text, from: start, count: Self.readerLines, of: expression)
        return Self.readerSection(text, marks: stretch, id: id, query: query, from: start, pending: expression != nil, language: language)
    }

    /// The language the reader colours a file's lines as (the page's highlighter names
    /// languages by their usual extensions: py, swift, c, sh, json …): source code, scripts
    /// and markup only, by the file's own extension.
    static func language(of file: IndexedFile) -> String? {
        guard let type = UTTypeRegistry.shared.type(identifier: file.contentType) else { return nil }
        let coloured = ["public.source-code", "public.script", "public.xml", "public.html", "public.json", "public.css"]
            .compactMap { UTType($0, registry: .shared) }.contains { type.conforms(to: $0) }
        guard coloured else { return nil }
        let ext = (file.name as NSString).pathExtension.lowercased()
        return ext.isEmpty ? type.preferredFilenameExtension : ext
    }

    /// The first line shown to show line `match`: the start of its page, in a PDF whose page
    /// fits a stretch (its picture then beside the match), else 20 lines above it.
    static func opening(_ text: ReaderText, at match: Int) -> Int {
        if let pages = text.pages {
            let start = pages.starts[text.page(ofLine: match) - 1]
            if match - start < readerLines - 50 { return start }
        }
        return match - 20
    }

    /// The line of the first match, looking through the text a megabyte at a time (on whole lines).
    static func firstMatch(in text: ReaderText, of expression: FTSExpression) -> Int? {
        guard let words = try? TextWords() else { return nil }
        var line = 1
        while line <= text.lineCount {
            var last = line
            while last < text.lineCount, text.lineStarts[last] - text.lineStarts[line - 1] < 1 << 20 { last += 1 }
            let range = text.lineStarts[line - 1]..<(text.lineStarts[last] - 1)
            if let found = (try? words.matches(in: text.slice(range), of: expression))?.first {
                return text.line(at: range.lowerBound + found.lowerBound)
            }
            line = last + 1
        }
        return nil
    }

    /// The marks of lines `from` … (as many as a stretch shows), found in those lines alone.
    static func marks(in text: ReaderText, from: Int, count: Int, of expression: FTSExpression?) -> ReaderMarks {
        guard let expression, from <= text.lineCount else { return .none }
        let last = min(from + count - 1, text.lineCount)
        let range = text.lineStarts[from - 1]..<min(text.lineStarts[last] - 1, text.lineStarts[from - 1] + readerBytes + 1)
        guard let ranges = try? TextWords().matches(in: text.slice(range), of: expression) else { return .none }
        let shifted = ranges.map { ($0.lowerBound + range.lowerBound)..<($0.upperBound + range.lowerBound) }
        return ReaderMarks(ranges: shifted, lines: shifted.map { text.line(at: $0.lowerBound) })
    }

    /// The reader: a stretch of lines (around the first match, or the start), the matches'
    /// lines for "3 of 17" — or, `pending`, to be asked for — and what the script needs to load
    /// the rest as the reader scrolls.
    static func readerSection(_ text: ReaderText, marks: ReaderMarks, id: Int64, query: String, from asked: Int? = nil,
                              pending: Bool = false, language: String? = nil) -> String {
        let from = min(max(1, asked ?? marks.lines.first.map { opening(text, at: $0) } ?? 1), max(text.lineCount, 1))
        let counter = marks.ranges.isEmpty && !pending
            ? (query.isEmpty ? "" : "<span class=\"at\">No match in the text</span>")
            : "<button type=\"button\" class=\"step\" data-step=\"-1\" title=\"Previous match (N)\" aria-label=\"Previous match\">↑</button>"
                + "<span class=\"at\" aria-live=\"polite\">\(pending ? "" : "1 of \(marks.ranges.count)")</span>"
                + "<button type=\"button\" class=\"step\" data-step=\"1\" title=\"Next match (n)\" aria-label=\"Next match\">↓</button>"
        let stretch = lines(text, marks: marks, from: from, count: readerLines)
        // A PDF's: the lines beside the picture of the page being read (each page's own picture
        // at its start instead, on a narrow screen).
        let body = text.pages.map { pages in
            "<div class=\"paged\" data-pictures=\"\(escape(pages.picture))\" data-pages=\"\(pages.starts.count)\"><div class=\"texts\">\(stretch)</div>"
                + "<aside class=\"page-view\"><figure><img alt=\"\" width=\"612\" height=\"792\"><figcaption></figcaption></figure></aside></div>"
        } ?? stretch
        return """
            <section id="reader" class="reader" data-id="\(id)" data-q="\(escape(query))" data-lines="\(text.lineCount)"\(language.map { " data-language=\"\(escape($0))\"" } ?? "") \
            \(pending ? "data-pending=\"1\"" : "data-matches=\"\(marks.lines.map(String.init).joined(separator: ","))\"")>
            <nav class="matches"><span class="lines-count">\(text.pages.map { "\($0.starts.count.formatted()) pages · " } ?? "")\(text.lineCount.formatted()) lines</span>\(counter)</nav>
            \(body)
            </section>

            """
    }

    /// Lines `from` … of the text as an `<ol>` numbered from `from`, every match marked.
    static func lines(_ text: ReaderText, marks: ReaderMarks, from: Int, count: Int) -> String {
        guard text.lineCount > 0, from >= 1, from <= text.lineCount else {
            return "<ol class=\"lines\" data-from=\"\(from)\" data-to=\"\(from - 1)\"></ol>"
        }
        return text.text.utf8.withContiguousStorageIfAvailable { bytes in
            var html = ""
            var bytesShown = 0
            var number = from
            // The first mark at or after the stretch's start.
            var next = marks.ranges.partitioningIndex { $0.lowerBound >= text.lineStarts[from - 1] }
            func piece(_ range: Range<Int>) -> String {
                range.isEmpty ? "" : escape(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
            }
            while number <= text.lineCount, number < from + count, bytesShown < readerBytes {
                let line = text.bytes(ofLine: number)
                var end = min(line.upperBound, line.lowerBound + readerBytes)
                while end < line.upperBound, end > line.lowerBound, bytes[end] & 0xC0 == 0x80 { end -= 1 }  // on a character's start
                let shown = line.lowerBound..<end
                var body = ""
                var at = shown.lowerBound
                var figure = ""
                if let pages = text.pages, case let page = text.page(ofLine: number), pages.starts[page - 1] == number {
                    if at < shown.upperBound, bytes[at] == 0x0C { at += 1 }  // the form feed between pages is the picture's place
                    figure = "<figure class=\"page\"><img src=\"\(escape(pages.picture))\(page)\" loading=\"lazy\" width=\"612\" height=\"792\" "
                        + "alt=\"Page \(page)\"><figcaption>Page \(page) of \(pages.starts.count)</figcaption></figure>"
                }
                while next < marks.ranges.count, marks.ranges[next].lowerBound < shown.upperBound {
                    let mark = marks.ranges[next].clamped(to: at..<shown.upperBound)
                    if !mark.isEmpty {
                        body += piece(at..<mark.lowerBound) + "<mark>" + piece(mark) + "</mark>"
                        at = mark.upperBound
                    }
                    next += 1
                }
                body += piece(at..<shown.upperBound)
                if shown.upperBound < line.upperBound {
                    body += "<span class=\"cut\">… \((line.upperBound - shown.upperBound).formatted()) more bytes on this line</span>"
                }
                while next < marks.ranges.count, marks.ranges[next].lowerBound <= line.upperBound { next += 1 }
                html += "<li id=\"L\(number)\" value=\"\(number)\"\(figure.isEmpty ? "" : " class=\"page-start\" data-page=\"\(text.page(ofLine: number))\"")>\(figure)\(body.isEmpty ? "\u{200B}" : body)</li>"
                bytesShown += shown.count + 1
                number += 1
            }
            let page = text.pages == nil ? "" : " data-page=\"\(text.page(ofLine: from))\""
            return "<ol class=\"lines\" start=\"\(from)\" data-from=\"\(from)\" data-to=\"\(number - 1)\"\(page)>" + html + "</ol>"
        } ?? ""
    }
}

extension Array {
    /// The first index whose element satisfies `belongs` (the elements that do come last).
    func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
