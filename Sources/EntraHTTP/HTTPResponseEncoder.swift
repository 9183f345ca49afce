import FoundationGaps
/// Serialises responses: status line, the handler's headers, then the framing headers the
/// transport owns (`Content-Length`, `Connection`), which handlers cannot override. `Date` is the
/// transport's unless the handler set one: Graph dates its answers by the virtual clock, so a client
/// under a scenario that moved time sees the same instant in `Date` as in the tokens.
package enum HTTPResponseEncoder {
    /// The interim response written when the decoder reports `.continueExpected`.
    package static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Appends `response` to `buffer`. `isHead`: keep Content-Length, omit the body.
    /// `keepAlive` false writes `Connection: close`. `date` is an IMF-fixdate (see `HTTPDate`).
    package static func encode(_ response: HTTPResponse, isHead: Bool, keepAlive: Bool, date: String, into buffer: inout [UInt8]) {
        let code = response.status.code
        buffer.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(code, to: &buffer)
        buffer.append(space)
        appendSanitised(response.status.reason, to: &buffer)
        buffer.append(contentsOf: crlf)
        for field in response.headers.fields where !isTransportOwned(field.name) {
            appendSanitised(field.name, to: &buffer)
            buffer.append(contentsOf: ": ".utf8)
            appendSanitised(field.value, to: &buffer)
            buffer.append(contentsOf: crlf)
        }
        // RFC 9110 §8.6: no Content-Length in 1xx and 204 responses.
        let mayHaveBody = code >= 200 && code != 204 && code != 304
        if mayHaveBody {
            buffer.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(response.body.count, to: &buffer)
            buffer.append(contentsOf: crlf)
        }
        buffer.append(contentsOf: "Date: ".utf8)
        appendSanitised(response.headers["Date"] ?? date, to: &buffer)
        buffer.append(contentsOf: crlf)
        buffer.append(contentsOf: keepAlive ? "Connection: keep-alive\r\n\r\n".utf8 : "Connection: close\r\n\r\n".utf8)
        if mayHaveBody, !isHead { buffer.append(contentsOf: response.body) }
    }

    /// Convenience for tests and one-off answers.
    package static func encode(_ response: HTTPResponse, isHead: Bool = false, keepAlive: Bool, date: String) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(256 + response.body.count)
        encode(response, isHead: isHead, keepAlive: keepAlive, date: date, into: &buffer)
        return buffer
    }

    private static let space = UInt8(ascii: " ")
    private static let crlf: [UInt8] = [13, 10]

    private static func isTransportOwned(_ name: String) -> Bool {
        name.equalsIgnoringASCIICase("Content-Length") || name.equalsIgnoringASCIICase("Transfer-Encoding")
            || name.equalsIgnoringASCIICase("Connection") || name.equalsIgnoringASCIICase("Date")
            || name.equalsIgnoringASCIICase("Keep-Alive")
    }

    /// CR, LF and NUL would split the response; a handler bug must not become header injection.
    private static func appendSanitised(_ text: String, to buffer: inout [UInt8]) {
        // Checked and copied on the string's bytes: the usual clean text in one go.
        text.withUTF8Bytes { bytes in
            let splits: (UInt8) -> Bool = { $0 == 13 || $0 == 10 || $0 == 0 }
            guard bytes.contains(where: splits) else { return buffer.append(contentsOf: bytes) }
            for byte in bytes { buffer.append(splits(byte) ? space : byte) }
        }
    }

    static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        if value < 10 {
            buffer.append(UInt8(truncatingIfNeeded: 0x30 + value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            while rest > 0 {
                raw[count] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { buffer.append(raw[index]) }
        }
    }
}

/// IMF-fixdate (RFC 9110 §5.6.7) without Foundation: `Sun, 06 Nov 1994 08:49:37 GMT`.
package enum HTTPDate {
    package static func format(secondsSince1970 seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (index 4).
        let (year, month, day) = CivilDate.date(daysSinceEpoch: days)
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(names[weekday]), \(twoDigits(day)) \(months[month - 1]) \(year) "
            + "\(twoDigits(secondOfDay / 3600)):\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) GMT"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// The instants every date formatter here can spell: years 0001–9999. Instants outside (a token claiming
/// `exp` 1e300, `Date.distantFuture`, NaN…) are shown at the nearest end of that range: a timestamp in a
/// response must never trap.
package enum CalendarRange {
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in seconds since 1970.
    package static let earliest: Double = -62_135_596_800
    package static let latest: Double = 253_402_300_799

    package static func clamp(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return seconds > 0 ? latest : earliest }
        return min(max(seconds, earliest), latest)
    }

    /// Whole seconds (rounded down) of the clamped instant: an `Int` conversion that cannot trap.
    package static func wholeSeconds(_ seconds: Double) -> Int { Int(clamp(seconds).rounded(.down)) }
}

/// RFC 3339 timestamps in UTC without Foundation's formatters, which page in ICU's time-zone data:
/// `2025-01-06T09:00:00.000Z`, and Entra's error timestamp `2025-01-06 09:00:00Z`.
package enum InternetDate {
    package static func format(secondsSince1970 seconds: Double, fractionalDigits: Int = 3) -> String {
        let seconds = representable(seconds)
        let whole = Int(seconds.rounded(.down))
        let (date, time) = parts(whole)
        guard fractionalDigits > 0 else { return "\(date)T\(time)Z" }
        let scale = (0..<fractionalDigits).reduce(1) { acc, _ in acc * 10 }
        let fraction = min(scale - 1, Int(((seconds - Double(whole)) * Double(scale)).rounded()))
        let digits = String(fraction)
        return "\(date)T\(time).\(String(repeating: "0", count: fractionalDigits - digits.count))\(digits)Z"
    }

    /// The `timestamp` of Entra's error bodies.
    package static func entraTimestamp(secondsSince1970 seconds: Double) -> String {
        let (date, time) = parts(Int(representable(seconds).rounded(.down)))
        return "\(date) \(time)Z"
    }

    private static func representable(_ seconds: Double) -> Double { CalendarRange.clamp(seconds) }

    private static func parts(_ seconds: Int) -> (date: String, time: String) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(daysSinceEpoch: days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return ("\(yearText)-\(two(month))-\(two(day))", "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))")
    }
}
