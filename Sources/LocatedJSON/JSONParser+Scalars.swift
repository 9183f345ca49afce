/// Strings, numbers and literals, and how the parser quotes offending input in messages.
extension JSONParser {
    // MARK: Strings

    /// Reads a string starting at the opening quote; escapes are decoded and the result must be
    /// valid UTF-8.
    mutating func readString() throws(JSONProblem) -> String {
        let openingQuote = location(at: position)
        position += 1
        let contentStart = position
        // Fast path: most strings have no escapes and are plain ASCII, which needs no validation.
        var isASCII = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == ASCII.quote {
                position += 1
                let content = bytes[contentStart..<(position - 1)]
                return isASCII ? String(decoding: content, as: UTF8.self) : try validUTF8(content, stringAt: openingQuote)
            }
            if byte == ASCII.backslash || byte < 0x20 { break }
            isASCII = isASCII && byte < 0x80
            position += 1
        }
        var decoded = Array(bytes[contentStart..<position])
        while true {
            guard position < bytes.count else {
                throw problem("unterminated string (no closing '\"' before the end of the file)", at: openingQuote)
            }
            let byte = bytes[position]
            switch byte {
            case ASCII.quote:
                position += 1
                return try validUTF8(decoded[...], stringAt: openingQuote)
            case ASCII.backslash:
                try readEscape(into: &decoded, stringAt: openingQuote)
            case ASCII.lineFeed, ASCII.carriageReturn:
                throw problem("unterminated string (no closing '\"' before the end of the line)", at: openingQuote)
            case 0..<0x20:
                throw problem("control character \(scalarName(UInt32(byte))) must be escaped in a string",
                              at: location(at: position))
            default:
                decoded.append(byte)
                position += 1
            }
        }
    }

    private func validUTF8(_ content: ArraySlice<UInt8>, stringAt start: SourceLocation) throws(JSONProblem) -> String {
        guard let string = String(validating: content, as: UTF8.self) else {
            throw problem("string is not valid UTF-8", at: start)
        }
        return string
    }

    /// Decodes one escape sequence (the position is on the backslash).
    private mutating func readEscape(into decoded: inout [UInt8], stringAt start: SourceLocation) throws(JSONProblem) {
        let escapeLocation = location(at: position)
        guard position + 1 < bytes.count else {
            throw problem("unterminated string (no closing '\"' before the end of the file)", at: start)
        }
        let simple: UInt8?
        switch bytes[position + 1] {
        case ASCII.quote, ASCII.backslash, ASCII.slash: simple = bytes[position + 1]
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = ASCII.lineFeed
        case UInt8(ascii: "r"): simple = ASCII.carriageReturn
        case UInt8(ascii: "t"): simple = ASCII.tab
        case UInt8(ascii: "u"): simple = nil
        default:
            throw problem("invalid escape '\\\(describeCharacter(at: position + 1, quoted: false))' in string "
                + "(allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", at: escapeLocation)
        }
        if let simple {
            decoded.append(simple)
            position += 2
            return
        }
        let first = try readUnicodeEscape(at: escapeLocation)
        var scalar = first
        if (0xD800...0xDBFF).contains(first) {
            // A high surrogate must be followed by an escaped low surrogate; together they are one scalar.
            guard position + 1 < bytes.count, bytes[position] == ASCII.backslash, bytes[position + 1] == UInt8(ascii: "u")
            else { throw unpairedSurrogate(first, at: escapeLocation) }
            let second = try readUnicodeEscape(at: location(at: position))
            guard (0xDC00...0xDFFF).contains(second) else { throw unpairedSurrogate(first, at: escapeLocation) }
            scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw unpairedSurrogate(first, at: escapeLocation)
        }
        // Every value here is a valid scalar: surrogates were paired or rejected above.
        decoded.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
    }

    /// Reads `\uXXXX` at the position and returns the code unit.
    private mutating func readUnicodeEscape(at escapeLocation: SourceLocation) throws(JSONProblem) -> UInt32 {
        var value: UInt32 = 0
        for index in (position + 2)..<(position + 6) {
            guard index < bytes.count, let digit = ASCII.hexValue(bytes[index]) else {
                let end = min(position + 6, bytes.count)
                let written = String(decoding: bytes[position..<end].prefix { $0 >= 0x20 && $0 != ASCII.quote }, as: UTF8.self)
                throw problem("invalid unicode escape '\(written)', expected 4 hex digits after \\u", at: escapeLocation)
            }
            value = value << 4 | digit
        }
        position += 6
        return value
    }

    private func unpairedSurrogate(_ unit: UInt32, at location: SourceLocation) -> JSONProblem {
        problem("unpaired surrogate \\u\(hex4(unit)) in string (a surrogate must be written as a \\uD8xx\\uDCxx pair)",
                at: location)
    }

    // MARK: Numbers and literals

    /// Reads `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func readNumber(start: SourceLocation) throws(JSONProblem) -> JSONNumber {
        let first = position
        func digits(_ position: inout Int, _ bytes: [UInt8]) -> Int {
            let begin = position
            while position < bytes.count, ASCII.isDigit(bytes[position]) { position += 1 }
            return position - begin
        }
        func invalid(_ reason: String) -> JSONProblem {
            problem("invalid number \(describeToken(at: first)): \(reason)", at: start)
        }
        if bytes[position] == ASCII.minus { position += 1 }
        if position < bytes.count, bytes[position] == ASCII.zero {
            position += 1
            if position < bytes.count, ASCII.isDigit(bytes[position]) {
                throw invalid("leading zeros are not allowed")
            }
        } else if digits(&position, bytes) == 0 {
            throw invalid("expected a digit after '-'")
        }
        if position < bytes.count, bytes[position] == ASCII.dot {
            position += 1
            if digits(&position, bytes) == 0 { throw invalid("expected a digit after '.'") }
        }
        if position < bytes.count, bytes[position] == ASCII.lowerE || bytes[position] == ASCII.upperE {
            position += 1
            if position < bytes.count, bytes[position] == ASCII.plus || bytes[position] == ASCII.minus { position += 1 }
            if digits(&position, bytes) == 0 { throw invalid("expected a digit in the exponent") }
        }
        let literal = String(decoding: bytes[first..<position], as: UTF8.self)
        guard let double = Double(literal), double.isFinite else {
            throw problem("number \(literal) is out of range", at: start)
        }
        return JSONNumber(literal: literal, double: double)
    }

    /// Reads `true`, `false` or `null` when the whole word at the position is one of them.
    private static let literals: [(word: [UInt8], kind: JSONValue.Kind)] = [
        (Array("true".utf8), .bool(true)), (Array("false".utf8), .bool(false)), (Array("null".utf8), .null),
    ]

    mutating func readLiteral() -> JSONValue.Kind? {
        for (word, kind) in Self.literals where bytes[position...].starts(with: word) {
            let end = position + word.count
            if end < bytes.count, ASCII.isWordByte(bytes[end]) { return nil }
            position = end
            return kind
        }
        return nil
    }

    // MARK: Describing input in messages

    /// The run of word characters at `offset`, quoted: `'True'`, `'NaN'`, `'01'`.
    func describeToken(at offset: Int) -> String {
        var end = offset
        while end < bytes.count, end - offset < 40, ASCII.isWordByte(bytes[end]) { end += 1 }
        if end == offset { return describeCharacter(at: offset) }
        return "'" + String(decoding: bytes[offset..<end], as: UTF8.self) + "'"
    }

    /// The character at `offset`: `'x'`, `'é'`, or `U+0009` for invisible ones.
    func describeCharacter(at offset: Int, quoted: Bool = true) -> String {
        let length = max(1, min(4, bytes.count - offset))
        let scalar = String(decoding: bytes[offset..<(offset + length)], as: UTF8.self).unicodeScalars.first
        guard let scalar, bytes[offset] >= 0x20, bytes[offset] != 0x7F, scalar != "\u{FFFD}" else {
            return bytes[offset] < 0x80 ? scalarName(UInt32(bytes[offset])) : "byte 0x\(hex2(bytes[offset]))"
        }
        return quoted ? "'\(Character(scalar))'" : String(Character(scalar))
    }

    func scalarName(_ value: UInt32) -> String { "U+" + hex4(value) }

    private func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private func hex2(_ value: UInt8) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
