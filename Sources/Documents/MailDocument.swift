import CGMime
public import ContentTypes
public import DocumentModel
import FileAccess
public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Mail: one message (`.eml`) or a mailbox (mbox), parsed with GMime. For each message:
/// From, To, Cc, Subject, Date, Message-ID; the text body (transfer encodings and charsets
/// decoded; HTML parts as text; the plain alternative preferred); attachments by name and
/// type; forwarded messages included.
///
/// GMime reads the file through a read-only descriptor. Runs isolated (in the helper
/// process): GMime is C over an untrusted format.
public struct MailDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [UTType("public.email-message"), UTType("io.docent.mbox")].compactMap { $0 } }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// An attached file, named and typed as the message says.
    public struct Attachment: Sendable, Equatable {
        /// The attachment's file name.
        public var name: String
        /// Its MIME type.
        public var type: String
    }

    /// One message: its headers, text and attachments.
    public struct Message: Sendable {
        /// The sender (`From:`).
        public var from: String?
        /// The recipients (`To:`).
        public var to: String?
        /// The copies (`Cc:`).
        public var cc: String?
        /// The subject.
        public var subject: String?
        /// The `Message-ID:`.
        public var messageID: String?
        /// When it was sent (`Date:`).
        public var date: Date?
        /// The text of its body (HTML parts as text).
        public var body = ""
        /// What is attached.
        public var attachments: [Attachment] = []
    }

    /// The messages: one for a message file, each of a mailbox's.
    public var messages: [Message] = []
    /// Whether the file is a mailbox (possibly of one message).
    public var isMailbox: Bool
    /// Messages past `messageLimit`, counted and not read.
    public var skipped = 0
    /// What could not be read.
    public var problems: [DocumentProblem] = []

    /// The most messages read from one mailbox, and the most body text kept in all.
    static let messageLimit = 100_000
    static let textLimit = 32 << 20
    /// The most body text kept per message.
    static let bodyLimit = 1 << 20

    private static let initialized: Bool = {
        g_mime_init()
        return true
    }()

    public init(configuration: ReadConfiguration) throws {
        _ = Self.initialized
        let file: ReadOnlyFile
        do { file = try configuration.file.readOnlyFile() } catch { throw DocumentReadError("unreadable: \(error)") }
        let head = try configuration.file.prefix(5)
        isMailbox = configuration.contentType.conforms(to: UTType("io.docent.mbox") ?? .data) || head.elementsEqual("From ".utf8)
        let readable = min(Int64(configuration.file.readLimit), Int64(file.status.size))
        let descriptor = dup(file.descriptor)
        guard descriptor >= 0 else { throw DocumentReadError("could not duplicate the descriptor") }
        // The descriptor may be one the classifier opened (or another process handed over):
        // GMime reads from the offset the open file is at, shared by duplicates.
        lseek(descriptor, 0, SEEK_SET)
        guard let stream = g_mime_stream_fs_new_with_bounds(descriptor, 0, gint64(readable)) else {
            close(descriptor)
            throw DocumentReadError("GMime could not open a stream")
        }
        defer { docent_gmime_unref(stream) }
        let parser = g_mime_parser_new_with_stream(stream)
        defer { docent_gmime_unref(parser) }
        g_mime_parser_set_format(parser, isMailbox ? GMIME_FORMAT_MBOX : GMIME_FORMAT_MESSAGE)
        let options = g_mime_parser_options_new()
        defer { g_mime_parser_options_free(options) }
        let warnings = Warnings()
        let context = Unmanaged.passUnretained(warnings).toOpaque()
        g_mime_parser_options_set_warning_callback(options, { offset, code, item, context in
            guard let context else { return }
            Unmanaged<Warnings>.fromOpaque(context).takeUnretainedValue()
                .add(offset: Int64(offset), code: code, item: item.map { String(cString: $0) })
        }, context)
        var text = 0
        while g_mime_parser_eos(parser) == 0 {
            guard let message = g_mime_parser_construct_message(parser, options) else { break }
            defer { docent_gmime_unref(message) }
            if messages.count >= Self.messageLimit || text >= Self.textLimit {
                skipped += 1
                continue
            }
            var read = Self.read(message, depth: 0)
            if read.body.utf8.count > Self.bodyLimit { read.body = String(read.body.utf8.prefix(Self.bodyLimit)) ?? "" }
            text += read.body.utf8.count
            messages.append(read)
        }
        guard !messages.isEmpty else {
            throw DocumentReadError(isMailbox ? "no message found in the mailbox" : "not a mail message")
        }
        if let cut = DocumentProblem.cutAtReadLimit(configuration.file) { problems.append(cut) }
        if skipped > 0 {
            problems.append(DocumentProblem(.warning, kind: .truncated, "Read \(messages.count) messages; \(skipped) more were counted, not read."))
        }
        problems += warnings.problems
    }

    /// GMime's complaints, gathered through its warning callback.
    private final class Warnings {
        var seen: [UInt32: Int] = [:]
        var problems: [DocumentProblem] = []

        func add(offset: Int64, code: GMimeParserWarning, item: String?) {
            seen[code.rawValue, default: 0] += 1
            guard seen[code.rawValue] == 1, problems.count < 20 else { return }
            // Damage (a cut or malformed message, the critical ones) is an error; untidiness a warning.
            let damage = code == GMIME_WARN_TRUNCATED_MESSAGE || code == GMIME_WARN_MALFORMED_MESSAGE
                || (code.rawValue >= GMIME_CRIT_INVALID_HEADER_NAME.rawValue && code != GMIME_WARN_PART_WITHOUT_CONTENT)
            let what = Self.descriptions[code.rawValue] ?? "Malformed mail (GMime warning \(code.rawValue))"
            let place = offset >= 0 ? " at byte \(offset)" : ""
            problems.append(DocumentProblem(damage ? .error : .warning, kind: code == GMIME_WARN_TRUNCATED_MESSAGE ? "truncated" : "malformed-mail",
                                            what + place + (item.map { ": \($0.prefix(80))" } ?? "") + "."))
        }

        static let descriptions: [UInt32: String] = [
            GMIME_WARN_DUPLICATED_HEADER.rawValue: "A header that should appear once is repeated",
            GMIME_WARN_INVALID_CONTENT_TYPE.rawValue: "An invalid content type (read as application/octet-stream)",
            GMIME_WARN_INVALID_RFC2047_HEADER_VALUE.rawValue: "An invalid encoded header value",
            GMIME_WARN_MALFORMED_MULTIPART.rawValue: "A multipart without parts",
            GMIME_WARN_TRUNCATED_MESSAGE.rawValue: "The message is truncated",
            GMIME_WARN_MALFORMED_MESSAGE.rawValue: "The message is malformed",
            GMIME_WARN_INVALID_ADDRESS_LIST.rawValue: "An invalid address list",
            GMIME_CRIT_INVALID_HEADER_NAME.rawValue: "An invalid header name (parts may be skipped)",
            GMIME_CRIT_MULTIPART_WITHOUT_BOUNDARY.rawValue: "A multipart without a boundary",
            GMIME_CRIT_NESTING_OVERFLOW.rawValue: "MIME parts nested too deep",
            GMIME_CRIT_PART_WITHOUT_HEADERS_OR_CONTENT.rawValue: "A MIME part without headers or content",
        ]
    }

    // MARK: - Reading a message

    private static func read(_ message: UnsafeMutablePointer<GMimeMessage>, depth: Int) -> Message {
        func addresses(_ list: UnsafeMutablePointer<InternetAddressList>?) -> String? {
            guard let list, internet_address_list_length(list) > 0,
                  let string = internet_address_list_to_string(list, nil, 0) else { return nil }
            defer { docent_gmime_free(string) }
            return String(cString: string).trimmingSpace.nilIfEmpty
        }
        var read = Message()
        read.from = addresses(g_mime_message_get_from(message))
        read.to = addresses(g_mime_message_get_to(message))
        read.cc = addresses(g_mime_message_get_cc(message))
        read.subject = g_mime_message_get_subject(message).map { String(cString: $0).trimmingSpace }?.nilIfEmpty
        read.messageID = g_mime_message_get_message_id(message).map { String(cString: $0) }
        if let date = g_mime_message_get_date(message) { read.date = Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix(date))) }
        var body: [String] = []
        if let part = g_mime_message_get_mime_part(message) {
            walk(part, depth: depth, body: &body, attachments: &read.attachments)
        }
        read.body = body.filter { !$0.isEmpty }.joined(separator: "\n\n")
        return read
    }

    /// The MIME type of a part (`text/plain`), lowercased.
    private static func mimeType(_ object: UnsafeMutablePointer<GMimeObject>) -> String {
        guard let type = g_mime_object_get_content_type(object), let string = g_mime_content_type_get_mime_type(type) else { return "application/octet-stream" }
        defer { docent_gmime_free(string) }
        return String(cString: string).lowercased()
    }

    /// Collects the text and attachments under `object`, depth first; nested messages
    /// (forwards) give their headers and text too.
    private static func walk(_ object: UnsafeMutablePointer<GMimeObject>, depth: Int, body: inout [String], attachments: inout [Attachment]) {
        guard depth < 32 else { return }
        let type = mimeType(object)
        if docent_gmime_is_multipart(object) != 0 {
            let multipart: UnsafeMutablePointer<GMimeMultipart> = cast(object)
            let count = Int(g_mime_multipart_get_count(multipart))
            var children = (0..<count).compactMap { g_mime_multipart_get_part(multipart, Int32($0)) }
            if type == "multipart/alternative" {
                // One rendition: the plain text if there is one, else the richest readable one.
                let types = children.map { mimeType($0) }
                let plain = types.lastIndex(of: "text/plain")
                let nested = children.lastIndex { docent_gmime_is_multipart($0) != 0 }
                let html = types.lastIndex(of: "text/html")
                if let chosen = plain ?? nested ?? html ?? children.indices.last { children = [children[chosen]] }
            }
            for child in children { walk(child, depth: depth + 1, body: &body, attachments: &attachments) }
        } else if docent_gmime_is_message_part(object) != 0 {
            guard let message = g_mime_message_part_get_message(cast(object)) else { return }
            let inner = read(message, depth: depth + 1)
            let header = [inner.from.map { "From: \($0)" }, inner.subject.map { "Subject: \($0)" }].compactMap { $0 }
            body.append((header + [inner.body]).joined(separator: "\n"))
            attachments += inner.attachments
        } else if docent_gmime_is_part(object) != 0 {
            let part: UnsafeMutablePointer<GMimePart> = cast(object)
            let name = g_mime_part_get_filename(part).map { String(cString: $0) }
            let isAttachment = g_mime_part_is_attachment(part) != 0 || (name != nil && !type.hasPrefix("text/"))
            if isAttachment {
                attachments.append(Attachment(name: name ?? "(unnamed)", type: type))
            }
            if docent_gmime_is_text_part(object) != 0, !isAttachment || type == "text/plain",
               let text = g_mime_text_part_get_text(cast(object)) {
                defer { docent_gmime_free(text) }
                let string = String(cString: text)
                if type == "text/html" {
                    body.append((try? HTMLDocument(html: Data(string.utf8)).text) ?? "")
                } else if type == "text/plain" || type == "text/enriched" || !isAttachment {
                    body.append(string.trimmingSpace)
                }
            }
        }
    }

    // MARK: - Rendering

    /// One message as the index stores it: its headers, then its body and attachment names.
    static func text(of message: Message) -> String {
        var lines: [String] = []
        if let from = message.from { lines.append("From: \(from)") }
        if let to = message.to { lines.append("To: \(to)") }
        if let cc = message.cc { lines.append("Cc: \(cc)") }
        if let subject = message.subject { lines.append("Subject: \(subject)") }
        if let date = message.date { lines.append("Date: \(date.formatted(.iso8601))") }
        if !message.body.isEmpty { lines.append("\n" + message.body) }
        if !message.attachments.isEmpty { lines.append("\nAttachments: " + message.attachments.map(\.name).joined(separator: ", ")) }
        return lines.joined(separator: "\n")
    }

    /// Every message's headers and text, one after another.
    public var text: String { messages.map(Self.text(of:)).joined(separator: "\n\n\u{0C}\n") }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(problems: problems)
        if isMailbox {
            metadata.append("Messages", .integer(messages.count + skipped))
            let dates = messages.compactMap(\.date)
            metadata.append("First", dates.min().map { .text($0.formatted(.iso8601)) })
            metadata.append("Last", dates.max().map { .text($0.formatted(.iso8601)) })
        } else if let message = messages.first {
            metadata.title = message.subject
            metadata.append("From", message.from.map { .text($0) })
            metadata.append("To", message.to.map { .text($0) })
            metadata.append("Cc", message.cc.map { .text($0) })
            metadata.append("Date", message.date.map { .text($0.formatted(.iso8601)) })
            metadata.append("Message-ID", message.messageID.map { .text($0) })
        }
        let attachments = messages.flatMap(\.attachments)
        metadata.append("Attachments", attachments.isEmpty ? nil : .list(attachments.prefix(50).map { "\($0.name) (\($0.type))" }))
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// The most messages listed in a mailbox's preview.
    static let previewMessages = 200

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
    public static var group: DocumentGroup {
        DocumentGroup(viewing: MailDocument.self) { configuration in
            let document = configuration.document
            let metadata = document.metadata
            if let title = metadata.title { Title(title) }
            Metadata(metadata.fields)
            Note.problems(document.problems)
            if document.isMailbox {
                Table(header: ["Date", "From", "Subject"], rows: document.messages.prefix(previewMessages).map { message in
                    [message.date.map { $0.formatted(.iso8601) } ?? "", message.from ?? "", message.subject ?? ""]
                })
                if document.messages.count > previewMessages {
                    Note("Showing the first \(previewMessages) of \(document.messages.count + document.skipped) messages.")
                }
            } else if let message = document.messages.first {
                let head = message.body.head()
                if !head.text.isEmpty { Text(head.text) }
                if head.isCut { Note("Showing the beginning of the message.") }
            }
        }
        .isolated()
    }
}

/// A GObject instance as one of its subclasses (what `GMIME_MULTIPART (object)` does in C),
/// after the type check.
private func cast<T>(_ object: UnsafeMutablePointer<GMimeObject>) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer(object).assumingMemoryBound(to: T.self)
}
