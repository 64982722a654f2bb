/// libmagic's MIME spellings that shared-mime-info writes differently (or not at all),
/// mapped to shared-mime-info's names. Aliases shared-mime-info already knows (such as
/// `application/x-gzip`) need no entry here.
enum LibmagicSpellings {
    static let map: [String: String] = [
        "text/x-script.python": "text/x-python3",
        "text/x-shellscript": "application/x-shellscript",
        "text/x-perl": "application/x-perl",
        "text/x-ruby": "application/x-ruby",
        "text/x-php": "application/x-php",
        "text/x-c": "text/x-csrc",
        "text/x-c++": "text/x-c++src",
        "text/x-awk": "application/x-awk",
        "text/x-lisp": "text/x-common-lisp",
        "text/x-m4": "application/x-m4",
        "text/x-nawk": "application/x-awk",
        "text/x-gawk": "application/x-awk",
        "text/x-bytecode.python": "application/x-python-bytecode",
        "application/x-bytecode.python": "application/x-python-bytecode",
        "application/x-dosexec": "application/x-ms-dos-executable",
        "application/vnd.microsoft.portable-executable": "application/x-ms-dos-executable",
        "image/x-ms-bmp": "image/bmp",
        "image/x-award-bioslogo": "application/octet-stream",
        "application/vnd.ms-office": "application/x-ole-storage",
        "application/cdfv2": "application/x-ole-storage",
        "application/x-empty": "application/x-zerosize",
        "inode/x-empty": "application/x-zerosize",
        "application/x-wine-extension-ini": "text/plain",
        "audio/x-m4a": "audio/mp4",
        "video/x-m4v": "video/mp4",
        "application/x-bzip2": "application/x-bzip",
        "application/x-mach-binary": "application/x-mach-o",
        "text/x-objective-c": "text/x-objcsrc",
        "application/x-matlab-data": "application/octet-stream",
        "application/x-ms-ne-executable": "application/x-ms-dos-executable",
        "image/vnd.djvu+multipage": "image/vnd.djvu",
        "font/sfnt": "font/ttf",
        "image/x-portable-greymap": "image/x-portable-graymap",
        "application/x-java-applet": "application/x-java",
        "audio/x-unknown": "application/octet-stream",
        "audio/x-hx-aac-adts": "audio/aac",
        "audio/vnd.dolby.dd-raw": "audio/ac3",
    ]

    /// The shared-mime-info spelling of libmagic's `mime` (lower-cased, without parameters).
    static func normalize(_ mime: String) -> String {
        let lower = mime.lowercased()
        return map[lower] ?? lower
    }
}
