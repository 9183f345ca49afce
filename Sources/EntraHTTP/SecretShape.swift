/// Values that are secrets by their shape alone, wherever they turn up (a header FakeEntra does not
/// know, a path segment, a text body): JWTs (tokens, client assertions, B2C grant tokens) and the
/// opaque refresh tokens and device codes FakeEntra issues. The journal and the access log use it.
package enum SecretShape {
    /// `eyJ…` base64url JSON header, then at least two more dot-separated base64url parts.
    package static func isJWT<S: StringProtocol>(_ text: S) -> Bool {
        guard text.utf8.count >= 20, text.hasPrefix("eyJ") else { return false }
        var dots = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") { dots += 1 } else if !isBase64URL(byte) { return false }
        }
        return dots >= 2
    }

    /// FakeEntra's refresh tokens (`1.A…`, as Entra's) and device codes (`DAQABAAEAAA…`).
    package static func isIssuedOpaqueSecret<S: StringProtocol>(_ text: S) -> Bool {
        guard text.utf8.count >= 60, text.hasPrefix("1.A") || text.hasPrefix("0.A") || text.hasPrefix("DAQABAAEAAA") else { return false }
        return text.utf8.allSatisfy { isBase64URL($0) || $0 == UInt8(ascii: ".") }
    }

    package static func isSecret<S: StringProtocol>(_ text: S) -> Bool { isJWT(text) || isIssuedOpaqueSecret(text) }

    /// A random-looking opaque value (authorization codes, session ids, client secrets): 16 or more
    /// base64(url) characters mixing at least three of lower case, upper case, digits and symbols.
    /// GUIDs are identifiers, not secrets.
    package static func looksRandom<S: StringProtocol>(_ text: S) -> Bool {
        guard text.utf8.count >= 16, !isGUID(text) else { return false }
        var lower = false, upper = false, digit = false, symbol = false
        for b in text.utf8 {
            switch b {
            case 0x61...0x7A: lower = true
            case 0x41...0x5A: upper = true
            case 0x30...0x39: digit = true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "%"):
                symbol = true
            default: return false
            }
        }
        return [lower, upper, digit, symbol].filter { $0 }.count >= 3
    }

    static func isGUID<S: StringProtocol>(_ text: S) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.enumerated().allSatisfy { index, b in
            [8, 13, 18, 23].contains(index) ? b == UInt8(ascii: "-") : ((b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x66))
        }
    }

    @inline(__always) static func isBase64URL(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
    }
}
