public import ContentTypes
public import DocumentModel
import Foundation

/// Plain text in UTF-8, UTF-16 (with a byte-order mark) or Latin-1.
public struct PlainTextDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.plainText, .text] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The text.
    public let text: String
    /// The encoding it was read in.
    public let encoding: String
    /// Whether it is a LaTeX source, titled and sectioned by its commands.
    let isLaTeX: Bool

    public init(configuration: ReadConfiguration) throws {
        let decoded = try configuration.text()
        text = decoded.string
        encoding = decoded.encoding
        isLaTeX = UTType("org.tug.tex").map { configuration.contentType.conforms(to: $0) } ?? false
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata(title: TextTitle.of(text), fields: [
            MetadataField(key: "Encoding", value: .text(encoding)),
            MetadataField(key: "Lines", value: .integer(text.lineCount)),
        ])
        if isLaTeX { (metadata.title, metadata.headings) = LaTeXOutline.of(text) }
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// Plain text's viewing group: its metadata and its first lines.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: PlainTextDocument.self) { configuration in
            let document = configuration.document
            Metadata(document.metadata.fields)
            if document.text.isEmpty {
                Note("The file is empty.")
            } else {
                textHead(document.text)
            }
        }
        .revision(3)  // 2: titled where the text sets out a title (an underlined or centred first line); 3: a LaTeX source titled and sectioned by its commands
    }

    /// A text's head as a code block, and a note when the rest is left out (plain text, source
    /// code, a compressed text, a file named as a man page that is not one).
    @PreviewBuilder
    static func textHead(_ text: String, language: String? = nil) -> [PreviewElement] {
        let head = text.head()
        CodeBlock(head.text, language: language)
        if head.isCut { Note("Showing the first lines of \(text.lineCount).") }
    }
}

/// Source code: plain text in a programming language, shown as a code block.
public struct SourceCodeDocument: FileDocument, DocumentMetadataProviding {
    public static var readableContentTypes: [UTType] { [.sourceCode] }
    public static var writableContentTypes: [UTType] { [.plainText] }

    /// The code.
    public let text: String
    /// The encoding it was read in.
    public let encoding: String
    /// The language's name, from the content type (`swift`, `python`).
    public let language: String?

    public init(configuration: ReadConfiguration) throws {
        let decoded = try configuration.text()
        text = decoded.string
        encoding = decoded.encoding
        language = Self.language(of: configuration.contentType)
    }

    public var metadata: DocumentMetadata {
        var metadata = DocumentMetadata()
        metadata.append("Language", language.map(MetadataValue.text))
        metadata.append("Encoding", .text(encoding))
        metadata.append("Lines", .integer(text.lineCount))
        return metadata
    }

    public func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper { .text(text) }

    /// The language a source type is written in, as code-fence names go.
    static func language(of type: UTType) -> String? {
        for candidate in [type] + type.orderedSupertypes {
            if let name = languages[candidate.identifier] { return name }
            if candidate.identifier == "public.source-code" || candidate.identifier == "public.script" { break }
            if candidate.isDeclared, let ext = candidate.preferredFilenameExtension { return ext }
        }
        return nil
    }

    static let languages: [String: String] = [
        "public.swift-source": "swift", "public.c-source": "c", "public.c-header": "c",
        "public.c-plus-plus-source": "cpp", "public.c-plus-plus-header": "cpp",
        "public.objective-c-source": "objectivec", "public.python-script": "python",
        "public.shell-script": "sh", "public.bash-script": "bash", "public.zsh-script": "zsh",
        "public.perl-script": "perl", "public.ruby-script": "ruby", "public.php-script": "php",
        "com.netscape.javascript-source": "javascript", "com.microsoft.typescript": "typescript",
        "com.sun.java-source": "java", "org.golang.go-source": "go", "org.rust-lang.rust-source": "rust",
        "public.make-source": "make", "public.assembly-source": "asm", "org.lua.lua-script": "lua",
        "org.kotlinlang.kotlin-source": "kotlin", "org.haskell.haskell-source": "haskell",
        "com.microsoft.csharp-source": "csharp", "org.cmake.cmake-source": "cmake",
    ]

    /// Source code's viewing group: language, line count, and the head as a code block.
    public static var group: DocumentGroup {
        DocumentGroup(viewing: SourceCodeDocument.self) { configuration in
            let document = configuration.document
            Metadata(document.metadata.fields)
            PlainTextDocument.textHead(document.text, language: document.language)
        }
    }
}
