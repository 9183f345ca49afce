/// Where e-mail addresses and `*.onmicrosoft.com` names are in captured text, found in one pass.
///
/// The regular expressions these replace (`[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}` and
/// `\b[A-Za-z0-9-]+\.onmicrosoft\.com\b`) backtrack over every start inside a long run of token
/// characters (a JWT or refresh token in an error body): quadratic, minutes for a few hundred KB. Each
/// scanner here anchors on the one byte or literal a match must contain (`@`, `.onmicrosoft.com`) and
/// reads outwards from it, so every byte is visited a bounded number of times. The spans are the
/// expressions' leftmost-longest matches, in order and without overlap.
enum PersonalDataSpans {
    static func isLocalPart(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "%")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "-")
    }

    static func isDomain(_ byte: UInt8) -> Bool { isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") }
    static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isAlphanumeric(_ byte: UInt8) -> Bool { isLetter(byte) || (0x30...0x39).contains(byte) }
    /// `\w` as ICU reads ASCII: letters, digits and underscore.
    static func isWord(_ byte: UInt8) -> Bool { isAlphanumeric(byte) || byte == UInt8(ascii: "_") }

    /// `local@domain.tld`: a local part, `@`, then the longest domain that ends in a dot and two or more letters.
    static func emails(_ bytes: [UInt8]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var floor = 0
        var at = 0
        while at < bytes.count {
            guard bytes[at] == UInt8(ascii: "@") else { at += 1; continue }
            var start = at
            while start > floor, isLocalPart(bytes[start - 1]) { start -= 1 }
            var domainEnd = at + 1
            while domainEnd < bytes.count, isDomain(bytes[domainEnd]) { domainEnd += 1 }
            // The last dot with two letters after it and at least one domain byte before it.
            var dot = domainEnd - 3
            while dot > at + 1, !(bytes[dot] == UInt8(ascii: ".") && isLetter(bytes[dot + 1]) && isLetter(bytes[dot + 2])) { dot -= 1 }
            guard start < at, dot > at + 1 else { at = max(at + 1, domainEnd); continue }
            var end = dot + 1
            while end < domainEnd, isLetter(bytes[end]) { end += 1 }
            spans.append(start..<end)
            floor = end
            at = end
        }
        return spans
    }

    /// `name.onmicrosoft.com` between word boundaries.
    static func tenantDomains(_ bytes: [UInt8]) -> [Range<Int>] {
        let suffix = Array(".onmicrosoft.com".utf8)
        var spans: [Range<Int>] = []
        var floor = 0
        var index = 0
        while index + suffix.count <= bytes.count {
            guard bytes[index] == suffix[0], bytes[index..<(index + suffix.count)].elementsEqual(suffix) else { index += 1; continue }
            let end = index + suffix.count
            var start = index
            while start > floor, isAlphanumeric(bytes[start - 1]) || bytes[start - 1] == UInt8(ascii: "-") { start -= 1 }
            // The leftmost start with a word boundary before it (a `-` or `_` neighbour can move it right).
            func boundary(_ position: Int) -> Bool { (position > 0 && isWord(bytes[position - 1])) != isWord(bytes[position]) }
            while start < index, !boundary(start) { start += 1 }
            let closes = end == bytes.count || !isWord(bytes[end])
            if start < index, closes {
                spans.append(start..<end)
                floor = end
                index = end
            } else {
                index += 1
            }
        }
        return spans
    }
}
