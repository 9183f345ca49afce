/// The media type and pixel size of a photo's bytes (PNG, JPEG or GIF), read from their headers.
package struct ImageInfo: Sendable, Equatable {
    package var contentType: String
    package var width: Int
    package var height: Int

    package init(contentType: String, width: Int, height: Int) {
        self.contentType = contentType
        self.width = width
        self.height = height
    }

    package init?(_ bytes: [UInt8]) {
        if bytes.starts(with: PNGEncoder.signature), bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) {
            self.init(contentType: "image/png", width: Self.uint32(bytes, 16), height: Self.uint32(bytes, 20))
        } else if bytes.starts(with: Array("GIF8".utf8)), bytes.count >= 10 {
            self.init(contentType: "image/gif", width: Int(bytes[6]) | Int(bytes[7]) << 8, height: Int(bytes[8]) | Int(bytes[9]) << 8)
        } else if bytes.starts(with: [0xFF, 0xD8]), let size = Self.jpegSize(bytes) {
            self.init(contentType: "image/jpeg", width: size.width, height: size.height)
        } else {
            return nil
        }
    }

    private static func uint32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
    }

    /// Walks the JPEG markers to the first start-of-frame (SOF0…SOF15 but DHT, JPG and DAC).
    private static func jpegSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]))
            }
            i += 2 + length
        }
        return nil
    }
}
