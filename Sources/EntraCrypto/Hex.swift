/// Hexadecimal text of bytes (digests, thumbprints, GUIDs) without Foundation's `String(format:)`, which
/// costs a formatter per byte on paths that run for every token.
package enum Hex {
    /// The bytes' hex digits after `prefix` (`sha256:` for a receipt's handle).
    package static func lowercase(_ bytes: some Collection<UInt8>, after prefix: String = "") -> String { text(bytes, digits: lower, after: prefix) }
    package static func uppercase(_ bytes: some Collection<UInt8>) -> String { text(bytes, digits: upper, after: "") }

    /// On contiguous bytes where they are (arrays and their slices): iterating a generic collection from
    /// another module goes through its witnesses byte by byte.
    private static func text(_ bytes: some Collection<UInt8>, digits: [UInt8], after prefix: String) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ text($0, digits: digits, after: prefix) }) { return text }
        return Array(bytes).withUnsafeBufferPointer { text($0, digits: digits, after: prefix) }
    }

    /// The first 16 bytes in GUID form: `8-4-4-4-12` lowercase hex digits.
    package static func guid(_ bytes: [UInt8]) -> String { bytes.withUnsafeBufferPointer { guid($0) } }

    /// `guid` of bytes where they are (the random pool's block, for request and correlation ids).
    package static func guid(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
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

    /// Written straight into the string's storage: a token's receipt names it by such a handle.
    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, digits: [UInt8], after prefix: String) -> String {
        let start = prefix.utf8.count
        return String(unsafeUninitializedCapacity: start + bytes.count * 2) { text in
            _ = text.initialize(from: prefix.utf8)
            var out = start
            for byte in bytes {
                text[out] = digits[Int(byte >> 4)]
                text[out + 1] = digits[Int(byte & 0x0F)]
                out += 2
            }
            return out
        }
    }
}
