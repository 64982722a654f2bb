#if canImport(Glibc)
import Glibc
#endif
public import ContentTypes
@_exported import FileAccess
import Synchronization
public import SystemPackage

/// A file's content type with the evidence behind it.
public struct Classification: Sendable {
    /// The path as given.
    public var path: FilePath
    /// The winning type.
    public var contentType: UTType
    /// The canonical MIME type of the winning evidence.
    public var mimeType: String?
    /// Why the winner won.
    public var reason: ClassificationReason
    /// What `lstat` said; nil when the path could not be examined.
    public var status: FileStatus?
    /// libmagic's answer; nil for files that were not opened.
    public var magic: MagicEvidence?
    /// shared-mime-info's answer (globs, magic, XML root, OLE2 streams); nil for files that were not opened.
    public var shared: SharedMIMEEvidence?
    /// What the name's globs say, best first.
    public var nameCandidates: [NameCandidate]
    /// For a symbolic link, its target.
    public var symlinkTarget: String?
    /// The bytes read for libmagic, kept for the document that opens the file next.
    public var prefix: FilePrefix?
    /// A problem met on the way; the classification still stands (typed by name, or as data).
    public var error: Errno?
    /// The file itself, still open, when asked for (`classify(_:keepingOpen:)`): the document
    /// reads the rest of it from this one opening.
    public var file: ReadOnlyFile?
}

extension Classification {
    /// A classification decided by another process, which handed the open file over with
    /// its type: nothing is classified again.
    public init(decided contentType: UTType, path: FilePath, status: FileStatus, file: ReadOnlyFile) {
        self.init(path: path, contentType: contentType, mimeType: contentType.preferredMIMEType, reason: .contentOnly, status: status,
                  magic: nil, shared: nil, nameCandidates: [], symlinkTarget: nil, prefix: nil, error: nil, file: file)
    }
}

/// Classifies files: `lstat`, one bounded read, libmagic on the bytes, globs on the name,
/// resolved through conformance.
///
/// Not thread-safe: it owns a libmagic handle. Give each worker its own.
/// Files classified by path in this process (`Classifier.classifiedFiles`).
private let pathClassifications = Atomic<Int>(0)

public final class Classifier {
    /// How many files this process has classified by path, by every classifier: what a
    /// run's `IndexSummary.classified` is counted from (one per file read, never more).
    public static var classifiedFiles: Int { pathClassifications.load(ordering: .relaxed) }

    /// The revision of the classification rules in code: raised when a change can type a file
    /// differently, so indexes classify their files again (`Indexer`).
    public static let revision = 2

    /// The registry types come from.
    public let registry: UTTypeRegistry
    /// The resolver that weighs content against name.
    public let resolver: ContentTypeResolver
    /// shared-mime-info's detection (globs, magic, XML roots).
    public let detector: SharedMIMEDetector
    /// How many bytes of a file libmagic sees.
    public let prefixLimit: Int
    /// Whether a name the bytes cheaply confirm skips libmagic (see `confirmName`).
    public let useNameConfirmation: Bool
    private let magic: MagicHandle

    /// The default number of bytes read for classification: enough for every libmagic test
    /// that matters to an indexer (ISO 9660 volumes are recognised at 32 KiB).
    public static let defaultPrefixLimit = 64 * 1024

    /// A classifier with its own libmagic handle.
    public convenience init(registry: UTTypeRegistry = .shared, prefixLimit: Int = Classifier.defaultPrefixLimit,
                            magicDatabase: String? = nil, useNameConfirmation: Bool = true) throws(MagicError) {
        self.init(registry: registry, magic: try MagicHandle(databasePath: magicDatabase, maxBytes: prefixLimit),
                  prefixLimit: prefixLimit, useNameConfirmation: useNameConfirmation)
    }

    /// A classifier over a libmagic handle opened beforehand (with `maxBytes` = `prefixLimit`),
    /// so the handle can be loaded while the registry is.
    public init(registry: UTTypeRegistry, magic: MagicHandle, prefixLimit: Int = Classifier.defaultPrefixLimit,
                useNameConfirmation: Bool = true) {
        self.registry = registry
        self.useNameConfirmation = useNameConfirmation
        self.resolver = ContentTypeResolver(registry: registry)
        self.detector = SharedMIMEDetector(registry: registry)
        self.prefixLimit = prefixLimit
        self.magic = magic
    }

    /// Classifies the file at `path`. Never throws: problems are recorded on the result.
    ///
    /// - Parameters:
    ///   - describe: also ask libmagic for its description (a second pass over the bytes).
    ///   - consultLibmagic: ask libmagic even where the bytes already confirm the name (for
    ///     `docent info`, which shows every witness).
    ///   - keepingOpen: keep the file open in the result (`file`), for the document that reads it next.
    public func classify(_ path: FilePath, describe: Bool = false, consultLibmagic: Bool = false, keepingOpen: Bool = false) -> Classification {
        pathClassifications.add(1, ordering: .relaxed)
        let name = path.lastComponent?.string ?? path.string
        let candidates = resolver.nameCandidates(fileName: name)
        var result = Classification(
            path: path, contentType: UTType.data(in: registry), mimeType: nil, reason: .contentOnly,
            status: nil, magic: nil, shared: nil, nameCandidates: candidates, symlinkTarget: nil, prefix: nil, error: nil)
        let status: FileStatus
        do {
            status = try FileStatus.lstat(path)
        } catch {
            result.error = error
            apply(resolver.resolve(magicMIMEType: nil, candidates: candidates, isEmpty: false), to: &result)
            return result
        }
        result.status = status
        switch status.kind {
        case .regular:
            break
        case .symbolicLink:
            let target = (try? Directory.symbolicLinkDestination(path).string) ?? "?"
            var s = stat()
            let dangling = path.withPlatformString { stat($0, &s) } != 0
            result.symlinkTarget = target
            result.contentType = registry.typeOrDynamic(mimeType: "inode/symlink")
            result.mimeType = "inode/symlink"
            result.reason = .symbolicLink(target: target, dangling: dangling)
            return result
        default:
            let mime = status.kind.inodeMIMEType ?? "application/octet-stream"
            result.contentType = registry.typeOrDynamic(mimeType: mime)
            result.mimeType = mime
            result.reason = .special(status.kind)
            return result
        }
        do {
            let file = try ReadOnlyFile(path, expected: status)
            let prefix = try FilePrefix.read(file, limit: prefixLimit)
            result.prefix = prefix
            if keepingOpen { result.file = file }
            var compound: CompoundFileEvidence?
            if CompoundFile.isCompoundFile(prefix.bytes) {
                // The directory may lie beyond the prefix: read its sectors (bounded) from the same file.
                compound = CompoundFile.identify(prefix: prefix.bytes) { offset, count in
                    guard !prefix.isWholeFile, let bytes = try? file.read(upTo: count, at: offset), bytes.count == count else { return nil }
                    return bytes
                }
            }
            let shared = detector.detect(candidates: candidates, bytes: prefix.bytes, isEmpty: prefix.bytes.isEmpty,
                                         compoundFile: compound)
            result.shared = shared
            if !describe, !consultLibmagic, let confirmed = confirmName(candidates, bytes: prefix.bytes, shared: shared) {
                apply(confirmed, to: &result)
                return result
            }
            return classify(bytes: prefix.bytes, candidates: candidates, shared: shared, isEmpty: prefix.bytes.isEmpty,
                            describe: describe, into: result)
        } catch {
            result.error = error
            apply(resolver.resolve(magicMIMEType: nil, candidates: candidates, isEmpty: false), to: &result)
            return result
        }
    }

    /// Classifies `bytes` as if they were the start of a file called `fileName` (no disk access).
    public func classify(bytes: [UInt8], fileName: String, describe: Bool = false) -> Classification {
        let candidates = resolver.nameCandidates(fileName: fileName)
        let compound = CompoundFile.identify(prefix: bytes) { _, _ in nil }
        let shared = detector.detect(candidates: candidates, bytes: bytes, isEmpty: bytes.isEmpty, compoundFile: compound)
        let result = Classification(
            path: FilePath(fileName), contentType: UTType.data(in: registry), mimeType: nil, reason: .contentOnly,
            status: nil, magic: nil, shared: shared, nameCandidates: candidates, symlinkTarget: nil,
            prefix: FilePrefix(bytes: bytes, isWholeFile: true), error: nil)
        return classify(bytes: bytes, candidates: candidates, shared: shared, isEmpty: bytes.isEmpty, describe: describe, into: result)
    }

    private func classify(bytes: [UInt8], candidates: [NameCandidate], shared: SharedMIMEEvidence, isEmpty: Bool,
                          describe: Bool, into result: Classification) -> Classification {
        var result = result
        do {
            var evidence = try bytes.withUnsafeBytes { buffer throws(MagicError) in try magic.evidence(for: buffer, describe: describe) }
            if evidence.mimeType == "application/x-sharedlib", ELFHeader.isPositionIndependentExecutable(bytes) {
                // libmagic tells PIE executables from libraries only when it can read the whole file.
                evidence.mimeType = "application/x-pie-executable"
            }
            result.magic = evidence
            apply(resolver.resolve(shared: shared, magicMIMEType: evidence.mimeType, candidates: candidates, isEmpty: isEmpty),
                  to: &result)
        } catch {
            // libmagic failed on these bytes: shared-mime-info is the only content witness.
            result.magic = nil
            apply(resolver.resolve(sharedOnly: shared), to: &result)
        }
        return result
    }

    /// The name's type, when it is unambiguous and the bytes confirm it cheaply (its format's
    /// signature, or text for a text type); nil when libmagic must look.
    ///
    /// Resolution would give the same answer (the name refines or wins over what libmagic
    /// would say), so this saves libmagic's work and changes no outcome. `describe` asks for
    /// libmagic's full evidence and so never takes this path.
    private func confirmName(_ candidates: [NameCandidate], bytes: [UInt8], shared: SharedMIMEEvidence) -> ContentTypeResolver.Resolution? {
        guard useNameConfirmation, let best = candidates.first else { return nil }
        // shared-mime-info must say the same: its strong magic or an OLE2 stream may name another type.
        guard shared.typeName == (best.mimeType.map(registry.canonicalMIMEType) ?? best.type.identifier) else { return nil }
        // Ambiguous names (two types at the top weight) need the content to decide.
        if candidates.count > 1, candidates[1].weight == best.weight, candidates[1].type != best.type,
           candidates[1].pattern.utf8.count == best.pattern.utf8.count {
            return nil
        }
        guard let how = ContentSignature.confirm(best, bytes: bytes, registry: registry) else { return nil }
        return .init(type: best.type, mimeType: best.mimeType, reason: .nameConfirmed(name: best.type.identifier, by: how))
    }

    private func apply(_ resolution: ContentTypeResolver.Resolution, to result: inout Classification) {
        result.contentType = resolution.type
        result.mimeType = resolution.mimeType
        result.reason = resolution.reason
    }
}
