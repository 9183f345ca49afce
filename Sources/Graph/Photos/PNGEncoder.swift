/// Writes truecolour PNG files with no compression library: the image data goes in zlib "stored" deflate
/// blocks, with the CRC-32 of every chunk and the Adler-32 of the zlib stream computed here.
package enum PNGEncoder {
    package static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// `rgb` holds `width × height` pixels, 3 bytes each, row by row.
    package static func encode(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
        precondition(width > 0 && height > 0 && rgb.count == width * height * 3, "pixel buffer does not match the size")
        var header: [UInt8] = []
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0] // 8 bits per sample, RGB, deflate, adaptive filtering, no interlace
        var scanlines: [UInt8] = []
        scanlines.reserveCapacity(height * (1 + width * 3))
        for row in 0..<height {
            scanlines.append(0) // filter type None
            scanlines += rgb[(row * width * 3)..<((row + 1) * width * 3)]
        }
        return signature + chunk("IHDR", header) + chunk("IDAT", zlibStored(scanlines)) + chunk("IEND", [])
    }

    /// A zlib stream (RFC 1950) of uncompressed deflate blocks (RFC 1951 §3.2.4), at most 65 535 bytes each.
    package static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01] // 32 KiB window, fastest level; 0x7801 is a multiple of 31
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let isFinal = offset + length == data.count
            out.append(isFinal ? 1 : 0) // BFINAL, BTYPE = 00
            out += [UInt8(length & 0xFF), UInt8(length >> 8)]
            out += [UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        out += bigEndian(adler32(data))
        return out
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
    }

    /// CRC-32 as PNG (and zip, and Ethernet) define it: reflected polynomial 0xEDB88320.
    package static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// Adler-32 (RFC 1950 §8.2).
    package static func adler32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
