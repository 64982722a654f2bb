import CExif
package import Foundation

/// What a photograph's EXIF data says, read with libexif: camera, lens, when it was
/// taken, orientation, exposure, and where (GPS).
package struct EXIFTags: Sendable, Equatable {
    package var make: String?, model: String?, lens: String?, software: String?
    package var artist: String?, copyright: String?, description: String?, userComment: String?
    /// `DateTimeOriginal` as written (`2024:06:01 14:03:22`), and as a date (local time of
    /// the camera, read as UTC: EXIF has no time zone before `OffsetTimeOriginal`).
    package var taken: String?
    package var orientation: String?
    package var exposure: String?, aperture: String?, iso: String?, focalLength: String?, flash: String?
    package var width: Int?, height: Int?
    /// Degrees, north and east positive.
    package var latitude: Double?, longitude: Double?, altitude: Double?

    package var isEmpty: Bool { self == EXIFTags() }

    init() {}

    /// Reads `bytes`: a JPEG (libexif finds its APP1 segment), or TIFF data (`isTIFF`),
    /// whose structure EXIF borrows. Nil when there is no EXIF data.
    package init?(_ bytes: Data, isTIFF: Bool) {
        guard let data = exif_data_new() else { return nil }
        defer { exif_data_unref(data) }
        // Read what is there; do not add the tags the specification calls mandatory.
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        let input = isTIFF ? Data("Exif\0\0".utf8) + bytes : bytes
        input.withUnsafeBytes { raw in
            exif_data_load_data(data, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(clamping: raw.count))
        }
        let order = exif_data_get_byte_order(data)
        func entry(_ tag: ExifTag, in ifd: ExifIfd? = nil) -> UnsafeMutablePointer<ExifEntry>? {
            if let ifd { return exif_content_get_entry(content(data, ifd), tag) }
            for index in 0..<Int(EXIF_IFD_COUNT.rawValue) {
                if let found = exif_content_get_entry(content(data, ExifIfd(UInt32(index))), tag) { return found }
            }
            return nil
        }
        func string(_ tag: ExifTag, in ifd: ExifIfd? = nil) -> String? {
            guard let entry = entry(tag, in: ifd) else { return nil }
            var buffer = [CChar](repeating: 0, count: 1024)
            guard let value = exif_entry_get_value(entry, &buffer, UInt32(buffer.count)) else { return nil }
            let text = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters))
            return text.isEmpty ? nil : text
        }
        func integer(_ tag: ExifTag) -> Int? {
            guard let entry = entry(tag), entry.pointee.components >= 1, let bytes = entry.pointee.data else { return nil }
            switch entry.pointee.format {
            case EXIF_FORMAT_SHORT: return Int(exif_get_short(bytes, order))
            case EXIF_FORMAT_LONG: return Int(exif_get_long(bytes, order))
            default: return nil
            }
        }
        /// Degrees from three rationals (degrees, minutes, seconds), signed by a reference.
        func coordinate(_ tag: ExifTag, _ referenceTag: ExifTag, negative: String) -> Double? {
            guard let entry = entry(tag, in: EXIF_IFD_GPS), entry.pointee.format == EXIF_FORMAT_RATIONAL,
                  entry.pointee.components == 3, let bytes = entry.pointee.data, entry.pointee.size >= 24 else { return nil }
            var degrees = 0.0
            for (index, scale) in [1.0, 60.0, 3600.0].enumerated() {
                let value = exif_get_rational(bytes + index * 8, order)
                guard value.denominator != 0 else { return nil }
                degrees += Double(value.numerator) / Double(value.denominator) / scale
            }
            guard degrees <= 180 else { return nil }
            return string(referenceTag, in: EXIF_IFD_GPS)?.uppercased().hasPrefix(negative) == true ? -degrees : degrees
        }

        make = string(EXIF_TAG_MAKE)
        model = string(EXIF_TAG_MODEL)
        lens = string(EXIF_TAG_LENS_MODEL)
        software = string(EXIF_TAG_SOFTWARE)
        artist = string(EXIF_TAG_ARTIST)
        copyright = string(EXIF_TAG_COPYRIGHT).flatMap { $0 == "[None]" || $0 == "(Photographer) - [None] (Editor)" ? nil : $0 }
        description = string(EXIF_TAG_IMAGE_DESCRIPTION)
        userComment = string(EXIF_TAG_USER_COMMENT)
        taken = string(EXIF_TAG_DATE_TIME_ORIGINAL) ?? string(EXIF_TAG_DATE_TIME_DIGITIZED) ?? string(EXIF_TAG_DATE_TIME)
        orientation = string(EXIF_TAG_ORIENTATION)
        exposure = string(EXIF_TAG_EXPOSURE_TIME)
        aperture = string(EXIF_TAG_FNUMBER)
        iso = string(EXIF_TAG_ISO_SPEED_RATINGS)
        focalLength = string(EXIF_TAG_FOCAL_LENGTH)
        flash = string(EXIF_TAG_FLASH)
        width = integer(EXIF_TAG_PIXEL_X_DIMENSION) ?? integer(EXIF_TAG_IMAGE_WIDTH)
        height = integer(EXIF_TAG_PIXEL_Y_DIMENSION) ?? integer(EXIF_TAG_IMAGE_LENGTH)
        latitude = coordinate(ExifTag(EXIF_TAG_GPS_LATITUDE), ExifTag(EXIF_TAG_GPS_LATITUDE_REF), negative: "S")
        longitude = coordinate(ExifTag(EXIF_TAG_GPS_LONGITUDE), ExifTag(EXIF_TAG_GPS_LONGITUDE_REF), negative: "W")
        if let found = entry(ExifTag(EXIF_TAG_GPS_ALTITUDE), in: EXIF_IFD_GPS), found.pointee.format == EXIF_FORMAT_RATIONAL, let bytes = found.pointee.data {
            let value = exif_get_rational(bytes, order)
            if value.denominator != 0 {
                let below = entry(ExifTag(EXIF_TAG_GPS_ALTITUDE_REF), in: EXIF_IFD_GPS)?.pointee.data?.pointee == 1
                altitude = Double(value.numerator) / Double(value.denominator) * (below ? -1 : 1)
            }
        }
        if isEmpty { return nil }
    }

    /// The camera: make and model, without the make repeated (`Canon EOS 5D`).
    package var camera: String? {
        guard let model else { return make }
        guard let make, !model.lowercased().hasPrefix(make.lowercased().split(separator: " ").first.map(String.init) ?? make.lowercased()) else { return model }
        return "\(make) \(model)"
    }

    /// `48.858370, 2.294481`.
    package var position: String? {
        guard let latitude, let longitude else { return nil }
        return String(format: "%.6f, %.6f", latitude, longitude)
    }

    /// The fields a preview shows, in order.
    package var fields: [(String, String?)] {
        [("Camera", camera), ("Lens", lens), ("Taken", taken), ("Orientation", orientation), ("Exposure", exposure),
         ("Aperture", aperture), ("ISO", iso), ("Focal length", focalLength), ("Flash", flash), ("GPS", position),
         ("Altitude", altitude.map { String(format: "%.1f m", $0) }), ("Description", description), ("Comment", userComment),
         ("Artist", artist), ("Copyright", copyright), ("Software", software)]
    }

    /// The words the index stores.
    package var text: String {
        [camera, lens, taken, description, userComment, artist, copyright, software, position].compactMap { $0 }.joined(separator: "\n")
    }
}

private extension ExifTag {
    /// The GPS tags are macros, imported as integers.
    init(_ value: Int32) { self.init(rawValue: UInt32(value)) }
}

/// `data->ifd[ifd]` (a C array, imported as a tuple).
private func content(_ data: UnsafeMutablePointer<ExifData>, _ ifd: ExifIfd) -> UnsafeMutablePointer<ExifContent>? {
    guard ifd.rawValue < EXIF_IFD_COUNT.rawValue else { return nil }
    return withUnsafeBytes(of: data.pointee.ifd) { raw in
        raw.load(fromByteOffset: Int(ifd.rawValue) * MemoryLayout<UnsafeMutablePointer<ExifContent>?>.stride,
                 as: UnsafeMutablePointer<ExifContent>?.self)
    }
}
