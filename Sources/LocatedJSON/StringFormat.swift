/// The `format` values the validator checks. The checks are deliberately light: they catch
/// typos and wrong kinds of value, not every corner of the RFCs.
enum StringFormat: String, Sendable, CaseIterable {
    case uuid
    case uri
    case email
    case dateTime = "date-time"

    /// How a message names the expected kind of string.
    var expectation: String {
        switch self {
        case .uuid: return "a UUID (8-4-4-4-12 hexadecimal digits)"
        case .uri: return "an absolute URI (scheme:...)"
        case .email: return "an email address"
        case .dateTime: return "an RFC 3339 date-time (e.g. 2024-01-31T12:00:00Z)"
        }
    }

    func accepts(_ string: String) -> Bool {
        let scalars = Array(string.unicodeScalars)
        switch self {
        case .uuid: return Self.isUUID(scalars)
        case .uri: return Self.isAbsoluteURI(scalars)
        case .email: return EmailSyntax.isAddress(string, domainNeedsDot: false)
        case .dateTime: return Self.isDateTime(scalars)
        }
    }

    private static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && ASCII.hexValue(UInt8(scalar.value)) != nil
    }

    private static func isUUID(_ scalars: [Unicode.Scalar]) -> Bool {
        guard scalars.count == 36 else { return false }
        return scalars.enumerated().allSatisfy { index, scalar in
            [8, 13, 18, 23].contains(index) ? scalar == "-" : isHexDigit(scalar)
        }
    }

    /// `scheme ":" rest` with an RFC 3986 scheme and no whitespace or control characters.
    private static func isAbsoluteURI(_ scalars: [Unicode.Scalar]) -> Bool {
        guard let colon = scalars.firstIndex(of: ":"), colon > 0, colon < scalars.count - 1,
              ("a"..."z").contains(scalars[0]) || ("A"..."Z").contains(scalars[0])
        else { return false }
        let schemeIsValid = scalars[..<colon].allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar))
        }
        return schemeIsValid && !scalars.contains { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }
    }


    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)` with fields in range.
    private static func isDateTime(_ scalars: [Unicode.Scalar]) -> Bool {
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= scalars.count else { return nil }
            var value = 0
            for scalar in scalars[index..<(index + digits)] {
                guard ("0"..."9").contains(scalar) else { return nil }
                value = value * 10 + Int(scalar.value - 48)
            }
            index += digits
            return value
        }
        func expect(_ separators: Set<Unicode.Scalar>) -> Bool {
            guard index < scalars.count, separators.contains(scalars[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(["-"]), let month = number(2), expect(["-"]), let day = number(2),
              expect(["T", "t"]), let hour = number(2), expect([":"]), let minute = number(2), expect([":"]),
              let second = number(2) else { return false }
        let daysInMonth = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...daysInMonth[month - 1]).contains(day), hour < 24, minute < 60, second <= 60
        else { return false }
        if index < scalars.count, scalars[index] == "." {
            index += 1
            let fractionStart = index
            while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
            guard index > fractionStart else { return false }
        }
        if expect(["Z", "z"]) { return index == scalars.count }
        guard expect(["+", "-"]), let offsetHour = number(2), expect([":"]), let offsetMinute = number(2) else { return false }
        return offsetHour < 24 && offsetMinute < 60 && index == scalars.count
    }
}

/// An email address's syntax, light on purpose: one `@`, a local part, a domain without empty labels (no
/// leading, trailing or doubled dot), no whitespace or control character. A file's `format: email` takes
/// a one-label domain; the service's pages and APIs want a dot in it (`EmailAddress`).
package enum EmailSyntax {
    package static func isAddress(_ text: String, domainNeedsDot: Bool) -> Bool {
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= (domainNeedsDot ? 2 : 1) && labels.allSatisfy { !$0.isEmpty }
    }
}
