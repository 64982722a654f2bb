import Engine
import Foundation
import SystemPackage
import Testing
import TestSupport

/// The one opener: a file is read from the opening that classified it, in this process and
/// in the helper process (handed the descriptor, not the path).
@Suite("One opener")
struct DocumentOpenerTests {
    let dir: TemporaryDirectory
    let opener = DocumentOpener(budget: DocumentBudget(readBytes: 16 << 20, textBytes: 1 << 20, seconds: 30, memoryBytes: 1 << 30))

    init() throws { dir = try TemporaryDirectory() }

    /// Classifies `name`, then puts `replacement`'s bytes at its path (a new file renamed over
    /// it, as an editor saves): what is read must still be the file that was classified.
    func readReplaced(_ name: String, original: [UInt8], replacement: [UInt8], text: Bool = true, preview: Bool = false)
        throws -> (DocumentOpener.Reader?, Extraction?) {
        let path = try dir.write(name, bytes: original)
        let prepared = try opener.prepare(FilePath(path))
        let other = try dir.write(name + ".new", bytes: replacement)
        #expect(rename(other, path) == 0)
        guard case .success(let extraction) = opener.read(prepared, preview: preview, text: text) else {
            Issue.record("\(name) could not be read")
            return (nil, nil)
        }
        return (opener.reader(for: prepared, text: text), extraction)
    }

    @Test("A PDF is read in the helper from the descriptor the indexer classified, as the type it decided")
    func helperReadsTheHandedFile() throws {
        let (reader, extraction) = try readReplaced("manual.pdf", original: SamplePDF.make(pages: 2, word: "alphaword"),
                                                    replacement: SamplePDF.make(pages: 2, word: "betaword"))
        #expect(reader == .helper)
        #expect(extraction?.documentType == "PDFDocument")
        #expect(extraction?.contentType == "com.adobe.pdf")
        #expect(extraction?.text?.contains("alphaword") == true)
        #expect(extraction?.text?.contains("betaword") == false)
    }

    @Test("A text is read in process from the same opening: the file renamed over its path is not read")
    func inProcessReadsTheClassifiedFile() throws {
        let (reader, extraction) = try readReplaced("notes.txt", original: Array("first version of the notes\n".utf8),
                                                    replacement: Array("second version\n".utf8), preview: true)
        #expect(reader == .inProcess)
        #expect(extraction?.text == "first version of the notes\n")
        #expect(extraction?.preview != nil)
    }

    @Test("A mailbox, read by GMime from a descriptor the classifier already read from, is read from its start")
    func descriptorReadersStartAtTheBeginning() throws {
        let mail = "From a@example.org Mon Jan  1 00:00:00 2024\nFrom: a@example.org\nSubject: quarterly figures\n\nthe body\n"
        let (_, extraction) = try readReplaced("box.mbox", original: Array(mail.utf8), replacement: Array("From x\n\nother\n".utf8))
        #expect(extraction?.text?.contains("quarterly figures") == true)
        #expect(extraction?.text?.contains("other") == false)
    }

    @Test("The one rule for where a file is read: isolated groups in the helper; OCR in the helper only when text is asked")
    func whereFilesAreRead() throws {
        let ocr = DocumentOpener(budget: DocumentBudget(readBytes: 1 << 20, textBytes: 1 << 20, seconds: 30, memoryBytes: 1 << 30,
                                                        ocr: OCRSettings()))
        // A PNG: signature, IHDR (1×1, 8-bit grey), IDAT, IEND, as the PNG specification lays them out.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1,
                            8, 0, 0, 0, 0, 0x3A, 0x7E, 0x9B, 0x55, 0, 0, 0, 10, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0, 0,
                            0, 2, 0, 1, 0xE5, 0x27, 0xDE, 0xFC, 0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        let image = try ocr.prepare(FilePath(try dir.write("scan.png", bytes: png)))
        #expect(ocr.reader(for: image, text: true) == .helper)
        #expect(ocr.reader(for: image, text: false) == .inProcess)
        #expect(opener.reader(for: try opener.prepare(FilePath(try dir.write("scan2.png", bytes: png))), text: true) == .inProcess)
        let pdf = try opener.prepare(FilePath(try dir.write("a.pdf", bytes: SamplePDF.make(pages: 1, word: "x"))))
        #expect(opener.reader(for: pdf, text: false) == .helper)
        // A FIFO is described, never opened (it would block): reading it returns at once, with no text.
        #expect(mkfifo(dir.path + "/pipe", 0o600) == 0)
        let fifo = try opener.prepare(FilePath(dir.path + "/pipe"))
        #expect(fifo.classification.file == nil)
        if case .success(let extraction?) = opener.read(fifo, preview: true, text: true) {
            #expect(extraction.text ?? "" == "")
        }
    }

    @Test("A file gone before it is classified is an error; one gone after is still read, from its opening")
    func goneFiles() throws {
        #expect(throws: (any Error).self) { try opener.prepare(FilePath(dir.path + "/never-there.txt")) }
        let path = try dir.write("brief.txt", "here and then gone\n")
        let prepared = try opener.prepare(FilePath(path))
        #expect(unlink(path) == 0)
        guard case .success(let extraction?) = opener.read(prepared, preview: false, text: true) else {
            Issue.record("the open file was not read")
            return
        }
        #expect(extraction.text == "here and then gone\n")
    }
}
