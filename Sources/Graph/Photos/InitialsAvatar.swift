/// A square profile picture: the person's initials in white on a coloured background, as Microsoft 365
/// shows people without a photo. Letters come from a 5×7 bitmap font scaled to the picture.
package enum InitialsAvatar {
    /// PNG bytes of a `size`×`size` avatar. `background` is `#RRGGBB` (invalid → Microsoft blue).
    package static func png(initials: String, background: String, size: Int = 96) -> [UInt8] {
        let colour = rgb(hex: background) ?? (0x00, 0x78, 0xD4)
        var pixels = [UInt8](repeating: 0, count: size * size * 3)
        for i in 0..<(size * size) {
            pixels[i * 3] = colour.0
            pixels[i * 3 + 1] = colour.1
            pixels[i * 3 + 2] = colour.2
        }
        let letters = Array(initials.uppercased().unicodeScalars.prefix(2))
        guard !letters.isEmpty else { return PNGEncoder.encode(width: size, height: size, rgb: pixels) }
        let columns = letters.count * 6 - 1
        let scale = max(1, min(size * 3 / 5 / columns, size / 2 / 7))
        let left = (size - columns * scale) / 2, top = (size - 7 * scale) / 2
        for (index, letter) in letters.enumerated() {
            guard let rows = glyphs[Character(letter)] else { continue }
            for (row, bits) in rows.enumerated() {
                for column in 0..<5 where bits & (0x10 >> column) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            let x = left + (index * 6 + column) * scale + dx, y = top + row * scale + dy
                            // Tiny avatars cannot fit two letters: clip rather than write outside the image.
                            guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                            let p = (y * size + x) * 3
                            pixels[p] = 0xFF
                            pixels[p + 1] = 0xFF
                            pixels[p + 2] = 0xFF
                        }
                    }
                }
            }
        }
        return PNGEncoder.encode(width: size, height: size, rgb: pixels)
    }

    static func rgb(hex: String) -> (UInt8, UInt8, UInt8)? {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
        return (UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }

    /// Rows top to bottom, the five low bits left to right.
    static let glyphs: [Character: [UInt8]] = [
        "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11], "B": [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        "C": [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E], "D": [0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F], "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        "G": [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F], "H": [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E], "J": [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        "K": [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11], "L": [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11], "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "P": [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        "Q": [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D], "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E], "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "V": [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        "W": [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A], "X": [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        "Y": [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04], "Z": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
    ]
}
