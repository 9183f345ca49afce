/// Bounds that keep broken or hostile input from exhausting the stack, memory or time.
/// Exceeding one is reported as a located problem, never a crash.
package struct JSONParseLimits: Sendable, Hashable {
    /// Deepest allowed nesting of arrays and objects.
    package var maximumDepth: Int
    /// Largest accepted input, in bytes.
    package var maximumBytes: Int

    package init(maximumDepth: Int = 512, maximumBytes: Int = 64 * 1024 * 1024) {
        self.maximumDepth = maximumDepth
        self.maximumBytes = maximumBytes
    }

    package static let `default` = JSONParseLimits()
}

/// Byte values the parser switches on.
enum ASCII {
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let quote = UInt8(ascii: "\"")
    static let apostrophe = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let asterisk = UInt8(ascii: "*")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let lowerE = UInt8(ascii: "e")
    static let upperE = UInt8(ascii: "E")

    static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }

    /// Letters, digits and the characters that glue a mistyped literal or number together
    /// (`True`, `NaN`, `-Infinity`, `0x1F`, `1.2.3`), so messages can quote the whole token.
    static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), zero...nine,
             UInt8(ascii: "_"), dot, plus, minus:
            return true
        default:
            return byte >= 0x80
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case zero...nine: return UInt32(byte - zero)
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
