import CTagLib
public import ContentTypes
public import DocumentModel
import FileAccess
import Foundation

/// Audio and video files: tags (title, artist, album, track, year, genre, and whatever
/// else the file carries: album artist, composer, lyrics …) and duration, bit rate, sample
/// rate and channels, read with TagLib — MP3, FLAC, Ogg Vorbis/Opus/FLAC/Speex, MP4/M4A,
/// WMA, WAV, AIFF, APE, Musepack, WavPack, TrueAudio.
///
/// TagLib reads through a read-only stream over the descriptor (only what it asks for:
/// tags sit at the ends, so a large video costs a few reads). Runs isolated (in the helper
/// process): TagLib is C++ over untrusted formats.
public struct MediaDocument: FileDocument, DocumentMetadataProviding {
    /// The formats TagLib reads (not every `public.audio`: a MIDI or µ-law file is left to
    /// the generic reader rather than failing here).
    public static var readableContentTypes: [UTType] {
        ["public.mp3", "org.xiph.flac", "org.xiph.ogg-audio", "public.mpeg-4", "public.aiff-audio", "public.aifc-audio",
         "com.microsoft.waveform-audio", "org.freedesktop.mime.audio.x-ms-wma", "org.freedesktop.mime.video.x-ms-wmv",
         "org.freedesktop.mime.application.vnd.ms-asf", "org.freedesktop.mime.audio.x-ape", "org.freedesktop.mime.audio.x-musepack",
         "org.freedesktop.mime.audio.x-wavpack", "org.freedesktop.mime.audio.x-tta", "org.freedesktop.mime.audio.x-speex+ogg",
         "org.freedesktop.mime.audio.x-flac+ogg", "org.freedesktop.mime.audio.x-m4b", "org.freedesktop.mime.video.ogg"]
            .compactMap { UTType($0) }
    }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The container format (`MP3`, `FLAC`, `MP4`).
    public var format: String
    /// The title tag.
    public var title: String?
    /// The artist tag.
    public var artist: String?
    /// The album tag.
    public var album: String?
    /// The genre tag.
    public var genre: String?
    /// The comment tag.
    public var comment: String?
    /// The year tag.
    public var year: Int?
    /// The track number tag.
    public var track: Int?
    /// Every tag, by TagLib's property name (`ALBUMARTIST`, `COMPOSER`, `LYRICS` …), in order.
    public var tags: [(key: String, value: String)] = []
    /// The duration in seconds.
    public var duration: Double?
    /// The bit rate in kbit/s.
    public var bitRate: Int?
    /// The sample rate in Hz.
    public var sampleRate: Int?
    /// The number of channels.
    public var channels: Int?

    public init(configuration: ReadConfiguration) throws {
        let file: ReadOnlyFile
        do { file = try configuration.file.readOnlyFile() } catch { throw DocumentReadError("unreadable: \(error)") }
        var info = docent_media_info()
        let recognised = (configuration.file.filename ?? "").withCString { name in
            docent_media_read(file.descriptor, Int64(file.status.size), name, &info)
        }
        defer { docent_media_info_free(&info) }
        guard recognised == 0 else { throw DocumentReadError("TagLib does not recognise it as audio or video") }
        func string(_ value: UnsafeMutablePointer<CChar>?) -> String? {
            value.map { String(cString: $0).trimmingSpace }.flatMap { $0.isEmpty ? nil : $0 }
        }
        format = info.format.map { String(cString: $0) } ?? "audio"
        let tags: [(key: String, value: String)] = (string(info.properties) ?? "").split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            return parts.count == 2 ? (key: String(parts[0]), value: String(parts[1])) : nil
        }
        self.tags = tags
        // The file's main tag first; a format whose main tag is empty (a WAV's ID3 chunk
        // when only its INFO list is filled) through the merged properties.
        func tag(_ key: String) -> String? { tags.first { $0.key == key }?.value }
        (title, artist, album) = (string(info.title) ?? tag("TITLE"), string(info.artist) ?? tag("ARTIST"), string(info.album) ?? tag("ALBUM"))
        (genre, comment) = (string(info.genre) ?? tag("GENRE"), string(info.comment) ?? tag("COMMENT"))
        year = info.year > 0 ? Int(info.year) : tag("DATE").flatMap { Int($0.prefix(4)) }
        track = info.track > 0 ? Int(info.track) : tag("TRACKNUMBER").flatMap { Int($0.prefix { $0.isNumber }) }
        duration = info.length_ms > 0 ? Double(info.length_ms) / 1000 : nil
        bitRate = info.bitrate_kbps > 0 ? Int(info.bitrate_kbps) : nil
        sampleRate = info.sample_rate > 0 ? Int(info.sample_rate) : nil
        channels = info.channels > 0 ? Int(info.channels) : nil
    }

    /// Tags shown by their own fields already.
    static let commonTags: Set<String> = ["TITLE", "ARTIST", "ALBUM", "GENRE", "COMMENT", "DATE", "TRACKNUMBER", "ENCODER", "ENCODEDBY"]

    /// `3:07` or `1:02:03`.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: title)
        metadata.append("Artist", artist.map { .text($0) })
        metadata.append("Album", album.map { .text($0) })
        metadata.append("Track", track.map { .integer($0) })
        metadata.append("Year", year.map { .integer($0) })
        metadata.append("Genre", genre.map { .text($0) })
        metadata.append("Duration", duration.map { .text(Self.clock($0)) })
        metadata.append("Seconds", duration.map { .text(String(format: "%.3f", $0)) })
        metadata.append("Format", .text(format))
        metadata.append("Bit rate", bitRate.map { .text("\($0) kb/s") })
        metadata.append("Sample rate", sampleRate.map { .text("\($0) Hz") })
        metadata.append("Channels", channels.map { .integer($0) })
        metadata.append("Comment", comment.map { .text($0) })
        for (key, value) in tags.prefix(40) where !Self.commonTags.contains(key) && value.utf8.count <= 200 {
            metadata.append(key.capitalized, .text(value))
        }
        return metadata
    }

    /// The text the index stores: every tag's value, one per line (lyrics included).
    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        var lines = [title, artist, album, genre, comment].compactMap { $0 }
        for (key, value) in tags where !Self.commonTags.contains(key) || key == "COMMENT" {
            if !lines.contains(value) { lines.append(value) }
        }
        return .text(lines.joined(separator: "\n"))
    }

    /// The built-in group reading these documents (as `docent` registers it; an app may list it with its own).
    public static var group: DocumentGroup {
        DocumentGroup(viewing: MediaDocument.self) { configuration in
            let document = configuration.document
            if let title = document.title { Title(title) }
            Metadata(document.metadata.fields)
            if let lyrics = document.tags.first(where: { $0.key == "LYRICS" })?.value {
                Section("Lyrics") { Text(lyrics) }
            }
        }
        .isolated()
    }
}
