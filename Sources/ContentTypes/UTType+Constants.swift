// Static constants for the system-declared types an indexer meets, as in Apple's
// UniformTypeIdentifiers. Each resolves through `UTTypeRegistry.shared`.

extension UTType {
    /// `public.item`
    public static var item: UTType { UTType(declared: "public.item", registry: .shared) }
    /// `public.content`
    public static var content: UTType { UTType(declared: "public.content", registry: .shared) }
    /// `public.composite-content`
    public static var compositeContent: UTType { UTType(declared: "public.composite-content", registry: .shared) }
    /// `public.data`
    public static var data: UTType { UTType(declared: "public.data", registry: .shared) }
    /// `public.directory`
    public static var directory: UTType { UTType(declared: "public.directory", registry: .shared) }
    /// `public.folder`
    public static var folder: UTType { UTType(declared: "public.folder", registry: .shared) }
    /// `public.volume`
    public static var volume: UTType { UTType(declared: "public.volume", registry: .shared) }
    /// `com.apple.package`
    public static var package: UTType { UTType(declared: "com.apple.package", registry: .shared) }
    /// `com.apple.bundle`
    public static var bundle: UTType { UTType(declared: "com.apple.bundle", registry: .shared) }
    /// `public.symlink`
    public static var symbolicLink: UTType { UTType(declared: "public.symlink", registry: .shared) }
    /// `public.archive`
    public static var archive: UTType { UTType(declared: "public.archive", registry: .shared) }
    /// `public.disk-image`
    public static var diskImage: UTType { UTType(declared: "public.disk-image", registry: .shared) }
    /// `public.executable`
    public static var executable: UTType { UTType(declared: "public.executable", registry: .shared) }
    /// `public.unix-executable`
    public static var unixExecutable: UTType { UTType(declared: "public.unix-executable", registry: .shared) }
    /// `com.microsoft.windows-executable`
    public static var windowsExecutable: UTType { UTType(declared: "com.microsoft.windows-executable", registry: .shared) }
    /// `public.object-code`
    public static var objectCode: UTType { UTType(declared: "public.object-code", registry: .shared) }
    /// `public.database`
    public static var database: UTType { UTType(declared: "public.database", registry: .shared) }
    /// `public.message`
    public static var message: UTType { UTType(declared: "public.message", registry: .shared) }
    /// `public.contact`
    public static var contact: UTType { UTType(declared: "public.contact", registry: .shared) }
    /// `public.presentation`
    public static var presentation: UTType { UTType(declared: "public.presentation", registry: .shared) }
    /// `public.spreadsheet`
    public static var spreadsheet: UTType { UTType(declared: "public.spreadsheet", registry: .shared) }
    /// `public.log`
    public static var log: UTType { UTType(declared: "public.log", registry: .shared) }
    /// `public.text`
    public static var text: UTType { UTType(declared: "public.text", registry: .shared) }
    /// `public.plain-text`
    public static var plainText: UTType { UTType(declared: "public.plain-text", registry: .shared) }
    /// `public.utf8-plain-text`
    public static var utf8PlainText: UTType { UTType(declared: "public.utf8-plain-text", registry: .shared) }
    /// `public.utf16-external-plain-text`
    public static var utf16ExternalPlainText: UTType { UTType(declared: "public.utf16-external-plain-text", registry: .shared) }
    /// `public.utf16-plain-text`
    public static var utf16PlainText: UTType { UTType(declared: "public.utf16-plain-text", registry: .shared) }
    /// `public.delimited-values-text`
    public static var delimitedText: UTType { UTType(declared: "public.delimited-values-text", registry: .shared) }
    /// `public.comma-separated-values-text`
    public static var commaSeparatedText: UTType { UTType(declared: "public.comma-separated-values-text", registry: .shared) }
    /// `public.tab-separated-values-text`
    public static var tabSeparatedText: UTType { UTType(declared: "public.tab-separated-values-text", registry: .shared) }
    /// `public.utf8-tab-separated-values-text`
    public static var utf8TabSeparatedText: UTType { UTType(declared: "public.utf8-tab-separated-values-text", registry: .shared) }
    /// `public.rtf`
    public static var rtf: UTType { UTType(declared: "public.rtf", registry: .shared) }
    /// `public.html`
    public static var html: UTType { UTType(declared: "public.html", registry: .shared) }
    /// `public.xml`
    public static var xml: UTType { UTType(declared: "public.xml", registry: .shared) }
    /// `public.json`
    public static var json: UTType { UTType(declared: "public.json", registry: .shared) }
    /// `public.yaml`
    public static var yaml: UTType { UTType(declared: "public.yaml", registry: .shared) }
    /// `net.daringfireball.markdown`
    public static var markdown: UTType { UTType(declared: "net.daringfireball.markdown", registry: .shared) }
    /// `public.vcard`
    public static var vCard: UTType { UTType(declared: "public.vcard", registry: .shared) }
    /// `com.apple.property-list`
    public static var propertyList: UTType { UTType(declared: "com.apple.property-list", registry: .shared) }
    /// `com.apple.xml-property-list`
    public static var xmlPropertyList: UTType { UTType(declared: "com.apple.xml-property-list", registry: .shared) }
    /// `com.apple.binary-property-list`
    public static var binaryPropertyList: UTType { UTType(declared: "com.apple.binary-property-list", registry: .shared) }
    /// `public.source-code`
    public static var sourceCode: UTType { UTType(declared: "public.source-code", registry: .shared) }
    /// `public.assembly-source`
    public static var assemblyLanguageSource: UTType { UTType(declared: "public.assembly-source", registry: .shared) }
    /// `public.c-source`
    public static var cSource: UTType { UTType(declared: "public.c-source", registry: .shared) }
    /// `public.c-header`
    public static var cHeader: UTType { UTType(declared: "public.c-header", registry: .shared) }
    /// `public.c-plus-plus-source`
    public static var cPlusPlusSource: UTType { UTType(declared: "public.c-plus-plus-source", registry: .shared) }
    /// `public.c-plus-plus-header`
    public static var cPlusPlusHeader: UTType { UTType(declared: "public.c-plus-plus-header", registry: .shared) }
    /// `public.objective-c-source`
    public static var objectiveCSource: UTType { UTType(declared: "public.objective-c-source", registry: .shared) }
    /// `public.objective-c-plus-plus-source`
    public static var objectiveCPlusPlusSource: UTType { UTType(declared: "public.objective-c-plus-plus-source", registry: .shared) }
    /// `public.swift-source`
    public static var swiftSource: UTType { UTType(declared: "public.swift-source", registry: .shared) }
    /// `public.script`
    public static var script: UTType { UTType(declared: "public.script", registry: .shared) }
    /// `public.shell-script`
    public static var shellScript: UTType { UTType(declared: "public.shell-script", registry: .shared) }
    /// `public.perl-script`
    public static var perlScript: UTType { UTType(declared: "public.perl-script", registry: .shared) }
    /// `public.python-script`
    public static var pythonScript: UTType { UTType(declared: "public.python-script", registry: .shared) }
    /// `public.ruby-script`
    public static var rubyScript: UTType { UTType(declared: "public.ruby-script", registry: .shared) }
    /// `public.php-script`
    public static var phpScript: UTType { UTType(declared: "public.php-script", registry: .shared) }
    /// `com.netscape.javascript-source`
    public static var javaScript: UTType { UTType(declared: "com.netscape.javascript-source", registry: .shared) }
    /// `public.make-source`
    public static var makefile: UTType { UTType(declared: "public.make-source", registry: .shared) }
    /// `com.apple.applescript.text`
    public static var appleScript: UTType { UTType(declared: "com.apple.applescript.text", registry: .shared) }
    /// `public.image`
    public static var image: UTType { UTType(declared: "public.image", registry: .shared) }
    /// `public.jpeg`
    public static var jpeg: UTType { UTType(declared: "public.jpeg", registry: .shared) }
    /// `public.png`
    public static var png: UTType { UTType(declared: "public.png", registry: .shared) }
    /// `com.compuserve.gif`
    public static var gif: UTType { UTType(declared: "com.compuserve.gif", registry: .shared) }
    /// `public.tiff`
    public static var tiff: UTType { UTType(declared: "public.tiff", registry: .shared) }
    /// `com.microsoft.bmp`
    public static var bmp: UTType { UTType(declared: "com.microsoft.bmp", registry: .shared) }
    /// `com.microsoft.ico`
    public static var ico: UTType { UTType(declared: "com.microsoft.ico", registry: .shared) }
    /// `com.apple.icns`
    public static var icns: UTType { UTType(declared: "com.apple.icns", registry: .shared) }
    /// `public.svg-image`
    public static var svg: UTType { UTType(declared: "public.svg-image", registry: .shared) }
    /// `org.webmproject.webp`
    public static var webP: UTType { UTType(declared: "org.webmproject.webp", registry: .shared) }
    /// `public.heic`
    public static var heic: UTType { UTType(declared: "public.heic", registry: .shared) }
    /// `public.heif`
    public static var heif: UTType { UTType(declared: "public.heif", registry: .shared) }
    /// `public.camera-raw-image`
    public static var rawImage: UTType { UTType(declared: "public.camera-raw-image", registry: .shared) }
    /// `public.audiovisual-content`
    public static var audiovisualContent: UTType { UTType(declared: "public.audiovisual-content", registry: .shared) }
    /// `public.movie`
    public static var movie: UTType { UTType(declared: "public.movie", registry: .shared) }
    /// `public.video`
    public static var video: UTType { UTType(declared: "public.video", registry: .shared) }
    /// `public.audio`
    public static var audio: UTType { UTType(declared: "public.audio", registry: .shared) }
    /// `com.apple.quicktime-movie`
    public static var quickTimeMovie: UTType { UTType(declared: "com.apple.quicktime-movie", registry: .shared) }
    /// `public.mpeg`
    public static var mpeg: UTType { UTType(declared: "public.mpeg", registry: .shared) }
    /// `public.mpeg-2-video`
    public static var mpeg2Video: UTType { UTType(declared: "public.mpeg-2-video", registry: .shared) }
    /// `public.mpeg-2-transport-stream`
    public static var mpeg2TransportStream: UTType { UTType(declared: "public.mpeg-2-transport-stream", registry: .shared) }
    /// `public.mpeg-4`
    public static var mpeg4Movie: UTType { UTType(declared: "public.mpeg-4", registry: .shared) }
    /// `public.mpeg-4-audio`
    public static var mpeg4Audio: UTType { UTType(declared: "public.mpeg-4-audio", registry: .shared) }
    /// `public.avi`
    public static var avi: UTType { UTType(declared: "public.avi", registry: .shared) }
    /// `public.mp3`
    public static var mp3: UTType { UTType(declared: "public.mp3", registry: .shared) }
    /// `public.aiff-audio`
    public static var aiff: UTType { UTType(declared: "public.aiff-audio", registry: .shared) }
    /// `com.microsoft.waveform-audio`
    public static var wav: UTType { UTType(declared: "com.microsoft.waveform-audio", registry: .shared) }
    /// `public.midi-audio`
    public static var midi: UTType { UTType(declared: "public.midi-audio", registry: .shared) }
    /// `public.playlist`
    public static var playlist: UTType { UTType(declared: "public.playlist", registry: .shared) }
    /// `public.m3u-playlist`
    public static var m3uPlaylist: UTType { UTType(declared: "public.m3u-playlist", registry: .shared) }
    /// `com.adobe.pdf`
    public static var pdf: UTType { UTType(declared: "com.adobe.pdf", registry: .shared) }
    /// `org.idpf.epub-container`
    public static var epub: UTType { UTType(declared: "org.idpf.epub-container", registry: .shared) }
    /// `com.apple.rtfd`
    public static var rtfd: UTType { UTType(declared: "com.apple.rtfd", registry: .shared) }
    /// `public.zip-archive`
    public static var zip: UTType { UTType(declared: "public.zip-archive", registry: .shared) }
    /// `org.gnu.gnu-zip-archive`
    public static var gzip: UTType { UTType(declared: "org.gnu.gnu-zip-archive", registry: .shared) }
    /// `public.bzip2-archive`
    public static var bz2: UTType { UTType(declared: "public.bzip2-archive", registry: .shared) }
    /// `public.font`
    public static var font: UTType { UTType(declared: "public.font", registry: .shared) }
    /// `public.email-message`
    public static var emailMessage: UTType { UTType(declared: "public.email-message", registry: .shared) }
    /// `public.calendar-event`
    public static var calendarEvent: UTType { UTType(declared: "public.calendar-event", registry: .shared) }
}
