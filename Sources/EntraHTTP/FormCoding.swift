/// Ordered name/value pairs from a query string or an `application/x-www-form-urlencoded` body.
package struct FormParameters: Sendable, Equatable {
    package private(set) var pairs: [(name: String, value: String)]

    package init() { pairs = [] }
    package init(_ pairs: [(String, String)]) { self.pairs = pairs.map { (name: $0.0, value: $0.1) } }

    /// Decodes `a=1&b=x+y`; `+` is a space; a malformed escape keeps the raw text.
    package init(decoding encoded: String) {
        // Most requests have no query, and their absent query is asked for several times.
        guard !encoded.isEmpty else {
            pairs = []
            return
        }
        pairs = encoded.withUTF8Bytes { bytes in
            var pairs: [(name: String, value: String)] = []
            pairs.reserveCapacity(bytes.count { $0 == UInt8(ascii: "&") } + 1)
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if end > start {
                    let part = bytes[start..<end]
                    if let eq = part.firstIndex(of: UInt8(ascii: "=")) {
                        pairs.append((name: FormCoding.decodeComponent(UnsafeBufferPointer(rebasing: part[..<eq])),
                                      value: FormCoding.decodeComponent(UnsafeBufferPointer(rebasing: part[(eq + 1)...]))))
                    } else {
                        pairs.append((name: FormCoding.decodeComponent(UnsafeBufferPointer(rebasing: part)), value: ""))
                    }
                }
                start = end + 1
            }
            return pairs
        }
    }

    /// The first value of `name`.
    package subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    package func values(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }

    package var names: [String] { pairs.map(\.name) }

    package mutating func append(_ name: String, _ value: String) { pairs.append((name: name, value: value)) }

    package var encoded: String {
        pairs.map { FormCoding.encodeComponent($0.name) + "=" + FormCoding.encodeComponent($0.value) }.joined(separator: "&")
    }

    package static func == (lhs: FormParameters, rhs: FormParameters) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

package enum FormCoding {
    /// Decodes `%XX` escapes; nil when an escape is malformed or the bytes are not UTF-8.
    package static func percentDecode(_ text: String) -> String? {
        guard text.containsByte(UInt8(ascii: "%")) else { return text }   // the usual case: nothing to decode
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return bytes.withUnsafeBufferPointer(validUTF8String)
    }

    static func decodeComponent(_ raw: String) -> String {
        raw.withUTF8Bytes(decodeComponent)
    }

    static func decodeComponent(_ raw: Substring.UTF8View) -> String {
        if let decoded = raw.withContiguousStorageIfAvailable(decodeComponent) { return decoded }
        return decodeComponent(String(Substring(raw)))
    }

    /// `+` as a space, then `%XX` escapes; the text with only `+` replaced when an escape is malformed or
    /// the result is not UTF-8. Works on contiguous bytes: a form body is decoded several times per request.
    static func decodeComponent(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        // The usual parameter has nothing to decode: one pass to find out, one copy.
        if !raw.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) {
            return String(decoding: raw, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = 0
        var malformed = false
        while index < raw.count {
            let byte = raw[index]
            index += 1
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), !malformed {
                guard index < raw.count, let high = hexValue(raw[index]) else { malformed = true; continue }
                guard index + 1 < raw.count, let low = hexValue(raw[index + 1]) else { malformed = true; continue }
                bytes.append(high << 4 | low)
                index += 2
            } else {
                bytes.append(byte)
            }
        }
        if !malformed, let text = bytes.withUnsafeBufferPointer(validUTF8String) { return text }
        return String(decoding: raw.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    /// Encodes everything but RFC 3986 unreserved characters.
    package static func encodeComponent(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0F)]
            }
        }
        return out
    }

    private static let hexDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]

    private static func isUnreserved(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }
}

package enum CookieCoding {
    /// Parses `Cookie: a=1; b=2` headers (RFC 6265 §5.4); the first value of a name wins. Split on
    /// bytes, not Characters: a `;` or `=` next to a combining or prepend mark is still a separator
    /// (found by fuzzing: a name ending in U+0600 swallowed the `=` after it).
    package static func parse(_ headerValues: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        for header in headerValues {
            for part in header.utf8.split(separator: UInt8(ascii: ";")) {
                let trimmed = part.trimmingASCIISpaces()
                guard let eq = trimmed.firstIndex(of: UInt8(ascii: "=")) else { continue }
                let name = String(decoding: trimmed[..<eq], as: UTF8.self)
                var value = trimmed[trimmed.index(after: eq)...]
                if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") { value = value.dropFirst().dropLast() }
                if !name.isEmpty, cookies[name] == nil { cookies[name] = String(decoding: value, as: UTF8.self) }
            }
        }
        return cookies
    }

    /// A `Set-Cookie` value. Session cookies unless `maxAge` is given; `maxAge: 0` deletes.
    package static func setCookie(name: String, value: String, path: String = "/", maxAge: Int? = nil, secure: Bool = true, httpOnly: Bool = true, sameSite: String = "None") -> String {
        var parts = ["\(name)=\(value)", "Path=\(path)"]
        if let maxAge { parts.append("Max-Age=\(maxAge)") }
        if secure { parts.append("Secure") }
        if httpOnly { parts.append("HttpOnly") }
        parts.append("SameSite=\(sameSite)")
        return parts.joined(separator: "; ")
    }
}

extension Substring.UTF8View.SubSequence {
    func trimmingASCIISpaces() -> Self {
        var s = self
        while let f = s.first, f == UInt8(ascii: " ") || f == UInt8(ascii: "\t") { s = s.dropFirst() }
        while let l = s.last, l == UInt8(ascii: " ") || l == UInt8(ascii: "\t") { s = s.dropLast() }
        return s
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    package func trimmingASCIISpaces() -> Substring {
        Substring(utf8.trimmingASCIISpaces())
    }
}
