import ArgumentParser
import DocentCLI
import DocumentModel
import Engine
import Foundation
import Index
import Rendering

extension PreviewCommand {
    /// `docent preview FILE --query Q`: the document's whole text (its plain-text rendition,
    /// within --max-bytes), each line holding a match of `query` as the index matches it,
    /// numbered, the matches marked as `docent search` marks them (bold on a terminal,
    /// [brackets] on a pipe). No match: said on standard error, exit status 1.
    func passages(_ query: String) async throws {
        let parsed: SearchQuery
        do { parsed = try SearchQuery.parse(query) } catch { throw CommandFailure(error.description) }
        guard let expression = parsed.match?.highlighted else {
            throw CommandFailure("the query has no words to find in the text (only filters or exclusions): \(query)")
        }
        let opened = try await Opening.open(file, readLimit: maxBytes, preview: false, text: true)
        let text: String
        switch opened.opened {
        case .document(let document):
            do { text = try document.plainTextSynchronously() ?? document.preview().plainText } catch {
                throw CommandFailure("\(file): \(error)")
            }
        case .extraction(let extraction): text = extraction.text ?? extraction.preview?.plainText ?? ""
        }
        let marks: [Range<Int>]
        do { marks = try TextWords().matches(in: text, of: expression) } catch { throw CommandFailure("\(error)") }
        let lines = MatchedLine.lines(of: text, marks: marks)
        guard !lines.isEmpty else {
            Output.error("no match for \(query) in \(file)")
            throw ExitCode(1)
        }
        if resolvedFormat == .json {
            let output = PassagesOutput(path: file, query: query, matches: marks.count, lines: lines.map { line in
                let (window, marks, before, after) = line.window(in: text)
                let utf8 = Array(window.utf8)
                // Offsets in Unicode scalars, as JSON readers count them in most languages' strings.
                func scalars(_ offset: Int) -> Int { String(decoding: utf8[..<offset], as: UTF8.self).unicodeScalars.count }
                return PassagesOutput.Line(line: line.number, text: window, marks: marks.map { [scalars($0.lowerBound), scalars($0.upperBound)] },
                                           cutBefore: before, cutAfter: after)
            })
            return Output.write(JSONRenderer.encode(output) + "\n")
        }
        let terminal = Output.isTerminal && resolvedFormat == .ansi
        let (open, close) = terminal && !Terminal.noColor ? ("\u{1B}[1m", "\u{1B}[0m") : ("[", "]")
        let digits = String(lines.last!.number).count
        var out = ""
        for line in lines {
            let (window, marks, before, after) = line.window(in: text)
            let utf8 = Array(window.utf8)
            var shown = String.UnicodeScalarView()
            func append(_ range: Range<Int>) {
                for scalar in String(decoding: utf8[range], as: UTF8.self).unicodeScalars { shown.appendTerminalSafe(scalar) }
            }
            var at = 0
            for mark in marks {
                append(at..<mark.lowerBound)
                shown.append(contentsOf: open.unicodeScalars)
                append(mark)
                shown.append(contentsOf: close.unicodeScalars)
                at = mark.upperBound
            }
            append(at..<utf8.count)
            let number = String(line.number)
            out += String(repeating: " ", count: digits - number.count) + number + ": " + (before ? "…" : "") + String(shown) + (after ? "…" : "") + "\n"
        }
        Output.write(out)
    }
}

/// What `docent preview --query --format json` prints.
struct PassagesOutput: Encodable {
    struct Line: Encodable {
        let line: Int
        let text: String
        /// [start, end) of each match in `text`, in Unicode scalars.
        let marks: [[Int]]
        let cutBefore: Bool
        let cutAfter: Bool
    }
    let path: String
    let query: String
    let matches: Int
    let lines: [Line]
}
