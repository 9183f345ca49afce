/// Hexadecimal text of bytes (digests, thumbprints, GUIDs) without Foundation's `String(format:)`, which
/// costs a formatter per byte on paths that run for every token.
package enum Hex {
    package static func lowercase(_ bytes: [UInt8]) -> String { text(bytes, digits: lower) }
    package static func uppercase(_ bytes: [UInt8]) -> String { text(bytes, digits: upper) }

    /// The first 16 bytes in GUID form: `8-4-4-4-12` lowercase hex digits.
    package static func guid(_ bytes: [UInt8]) -> String {
        precondition(bytes.count >= 16, "a GUID needs 16 bytes")
        // Written straight into the string's storage (a token carries two or three GUIDs).
        return String(unsafeUninitializedCapacity: 36) { text in
            var out = 0
            for index in 0..<16 {
                let byte = bytes[index]
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[out] = UInt8(ascii: "-")
                    out += 1
                }
                text[out] = lower[Int(byte >> 4)]
                text[out + 1] = lower[Int(byte & 0x0F)]
                out += 2
            }
            return out
        }
    }

    private static let lower = Array("0123456789abcdef".utf8)
    private static let upper = Array("0123456789ABCDEF".utf8)

    private static func text(_ bytes: [UInt8], digits: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
