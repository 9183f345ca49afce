/// Values that are secrets by their shape alone, wherever they turn up (a header FakeEntra does not
/// know, a path segment, a text body): JWTs (tokens, client assertions, B2C grant tokens) and the
/// opaque refresh tokens and device codes FakeEntra issues. The journal and the access log use it.
///
/// Every check runs over the UTF-8 bytes in one non-generic pass: the package entry points are generic
/// over `StringProtocol`, which callers in other modules get unspecialised (a witness-table call per
/// character, half a million instructions per token checked).
package enum SecretShape {
    /// `eyJ…` base64url JSON header, then at least two more dot-separated base64url parts.
    package static func isJWT<S: StringProtocol>(_ text: S) -> Bool { text.withUTF8Bytes(isJWT(bytes:)) }

    /// FakeEntra's refresh tokens (`1.A…`, as Entra's) and device codes (`DAQABAAEAAA…`).
    package static func isIssuedOpaqueSecret<S: StringProtocol>(_ text: S) -> Bool { text.withUTF8Bytes(isIssuedOpaqueSecret(bytes:)) }

    package static func isSecret<S: StringProtocol>(_ text: S) -> Bool {
        text.withUTF8Bytes { isJWT(bytes: $0) || isIssuedOpaqueSecret(bytes: $0) }
    }

    /// A random-looking opaque value (authorization codes, session ids, client secrets): 16 or more
    /// base64(url) characters mixing at least three of lower case, upper case, digits and symbols.
    /// GUIDs are identifiers, not secrets.
    package static func looksRandom<S: StringProtocol>(_ text: S) -> Bool { text.withUTF8Bytes(looksRandom(bytes:)) }

    static func isGUID<S: StringProtocol>(_ text: S) -> Bool { text.withUTF8Bytes(isGUID(bytes:)) }

    private static func isJWT(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 20, bytes[0] == UInt8(ascii: "e"), bytes[1] == UInt8(ascii: "y"), bytes[2] == UInt8(ascii: "J") else { return false }
        var dots = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") { dots += 1 } else if !isBase64URL(byte) { return false }
        }
        return dots >= 2
    }

    private static let opaquePrefixes: [[UInt8]] = [Array("1.A".utf8), Array("0.A".utf8), Array("DAQABAAEAAA".utf8)]

    private static func isIssuedOpaqueSecret(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 60, opaquePrefixes.contains(where: { bytes.starts(with: $0) }) else { return false }
        return bytes.allSatisfy { isBase64URL($0) || $0 == UInt8(ascii: ".") }
    }

    private static func looksRandom(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 16, !isGUID(bytes: bytes) else { return false }
        var lower = false, upper = false, digit = false, symbol = false
        for b in bytes {
            switch b {
            case 0x61...0x7A: lower = true
            case 0x41...0x5A: upper = true
            case 0x30...0x39: digit = true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "%"):
                symbol = true
            default: return false
            }
        }
        return (lower ? 1 : 0) + (upper ? 1 : 0) + (digit ? 1 : 0) + (symbol ? 1 : 0) >= 3
    }

    private static func isGUID(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, b) in bytes.enumerated() {
            let ok = index == 8 || index == 13 || index == 18 || index == 23
                ? b == UInt8(ascii: "-")
                : (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x66)
            if !ok { return false }
        }
        return true
    }

    @inline(__always) static func isBase64URL(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
    }
}
