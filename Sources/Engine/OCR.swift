import COCR
import ContentTypes
import DocumentModel
import FileAccess
import Foundation
import SystemPackage

/// OCR's settings (`ocr:` in `config.yaml`): off unless enabled.
package struct OCRSettings: Sendable, Hashable, Codable {
    /// Tesseract's languages, as its language data names them (`eng`, `deu`, `chi_sim`), each
    /// from Debian's `tesseract-ocr-LANG` package.
    package var languages: [String]

    package init(languages: [String] = ["eng"]) {
        self.languages = languages
    }

    /// Tesseract's form: `eng+deu`.
    var tesseractLanguages: String { languages.joined(separator: "+") }
}

/// Text recognized in images and in PDF pages without a text layer, in the helper process, and
/// kept in `$XDG_CACHE_HOME/docent/ocr/` by the file's SHA-256 and the languages, so a
/// re-index, a moved or copied file, or a second index never runs OCR on the same bytes twice.
enum OCR {
    /// A PDF page with fewer characters of its own than this is read as a picture.
    static let scannedPageCharacters = 16
    /// How finely PDF pages are drawn for Tesseract (its documentation's advice: 300).
    static let dpi = 300

    /// PDFs and the raster images Leptonica reads.
    static let types: [UTType] = [.pdf, .png, .jpeg, .tiff, .gif, .webP, .bmp]

    static func applies(to type: UTType) -> Bool { types.contains { type.conforms(to: $0) } }

    /// One file's OCR, as cached.
    struct Result: Codable, Equatable {
        var text: String
        var pages: Int
        var seconds: Double
        /// The time budget ran out before every page was read.
        var stopped: Bool
        var languages: String
    }

    /// The text of the picture or scanned pages in `bytes`, from the cache or recognized now
    /// within `seconds`; nil with a reason when nothing could be read.
    static func read(_ bytes: Data, type: UTType, settings: OCRSettings, seconds: Double,
                     cache: Cache = Cache()) -> (result: Result?, error: String?, cached: Bool) {
        let key = cache.key(bytes, languages: settings.tesseractLanguages)
        // A result cut short by its budget is read again only when there is clearly more
        // time now (a raised `limits.documentSeconds`); otherwise it would stop there again.
        if let hit = cache.lookup(key), !hit.stopped || seconds < hit.seconds * 1.5 { return (hit, nil, true) }
        let started = ContinuousClock.now
        var out = DocentOCRResult()
        let deadline = Int32(max(1, min(seconds * 1000, Double(Int32.max))))
        bytes.withUnsafeBytes { buffer in
            if type.conforms(to: .pdf) {
                docent_ocr_pdf(buffer.baseAddress, buffer.count, settings.tesseractLanguages, Int32(dpi),
                               Int32(scannedPageCharacters), deadline, &out)
            } else {
                docent_ocr_image(buffer.baseAddress, buffer.count, settings.tesseractLanguages, deadline, &out)
            }
        }
        defer { docent_ocr_result_free(&out) }
        if let error = out.error { return (nil, String(cString: error), false) }
        let elapsed = ContinuousClock.now - started
        let result = Result(text: out.text.map { String(cString: $0) } ?? "", pages: Int(out.pages),
                            seconds: elapsed.seconds,
                            stopped: out.stopped != 0, languages: settings.tesseractLanguages)
        cache.store(result, key: key)
        return (result, nil, false)
    }

    /// The cache: one JSON file per (bytes, languages), private like the index.
    struct Cache: Sendable {
        let directory: String

        init(directory: String = Cache.defaultDirectory()) {
            self.directory = directory
        }

        /// `$XDG_CACHE_HOME/docent/ocr`.
        static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
            PreviewCache.cacheHome(environment: environment) + "/docent/ocr"
        }

        func key(_ bytes: Data, languages: String) -> String {
            var digest = [UInt8](repeating: 0, count: 32)
            bytes.withUnsafeBytes { docent_sha256($0.baseAddress, $0.count, &digest) }
            return digest.map { String(format: "%02x", $0) }.joined() + "." + languages
        }

        func lookup(_ key: String) -> Result? {
            guard let data = WholeFile.read(directory + "/" + key + ".json", limit: 64 << 20) else { return nil }
            return try? JSONDecoder().decode(Result.self, from: data)
        }

        func store(_ result: Result, key: String) {
            guard let data = try? JSONEncoder().encode(result) else { return }
            do {
                try PrivateStorage.makeDirectory(directory, tightenExisting: true)
                try PrivateStorage.replace(directory + "/" + key + ".json", with: [UInt8](data))
            } catch {
                // A cache that cannot be written costs the next run another OCR, nothing else.
            }
        }

        /// What the cache holds: results, pages and the seconds they cost.
        func totals() -> (results: Int, pages: Int, seconds: Double) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return (0, 0, 0) }
            var totals = (results: 0, pages: 0, seconds: 0.0)
            for name in names where name.hasSuffix(".json") {
                guard let result = lookup(String(name.dropLast(5))) else { continue }
                totals.results += 1
                totals.pages += result.pages
                totals.seconds += result.seconds
            }
            return totals
        }
    }
}

extension Extraction {
    /// The OCR'd text of the file at `path` added to this extraction's text, with a metadata
    /// field saying so (and a problem when the budget ran out or nothing could be read).
    mutating func addOCR(path: FilePath, type: UTType, settings: OCRSettings, readBytes: Int, textBytes: Int, seconds: Double) {
        guard let bytes = WholeFile.read(path.string, limit: readBytes) else { return }
        let (result, error, cached) = OCR.read(bytes, type: type, settings: settings, seconds: seconds)
        if let error {
            problems.append(DocumentProblem(.warning, kind: .ocr, "OCR: \(error)"))
            return
        }
        guard let result else { return }
        let recognized = result.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !recognized.isEmpty {
            text = Self.bounded([text ?? "", recognized].filter { !$0.isEmpty }.joined(separator: "\n"), to: textBytes)
        }
        let pages = "\(result.pages) page\(result.pages == 1 ? "" : "s")"
        let how = cached ? "from the cache" : String(format: "%.1f s", result.seconds)
        metadata.append(MetadataField(key: "OCR", value: .text("\(pages) (\(result.languages)), \(how)")))
        if result.stopped {
            problems.append(DocumentProblem(.warning, kind: .ocrStopped,
                                            "OCR stopped at the time budget after \(pages); the rest of the scan is not searchable"))
        }
    }
}

/// What OCR has cost on this machine, as its cache records (`docent status`).
package struct OCRTotals: Sendable, Equatable {
    /// Files (distinct bytes, per language set) read by OCR.
    package var files: Int
    package var pages: Int
    package var seconds: Double

    /// The totals of `$XDG_CACHE_HOME/docent/ocr`.
    package static func cached(environment: [String: String] = ProcessInfo.processInfo.environment) -> OCRTotals {
        let totals = OCR.Cache(directory: OCR.Cache.defaultDirectory(environment: environment)).totals()
        return OCRTotals(files: totals.results, pages: totals.pages, seconds: totals.seconds)
    }
}
