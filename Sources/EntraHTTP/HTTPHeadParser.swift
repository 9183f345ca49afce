/// Parses a complete request head (request line + header fields, blank line excluded) from bytes.
/// Strict where leniency enables smuggling (RFC 9112 §2.2, §5): no whitespace before `:`, no
/// obs-fold, no control characters; a bare LF ends a line, as the RFC allows recipients to accept.
enum HTTPHeadParser {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    static func parseHead(_ bytes: Bytes) throws(HTTPDecodingError) -> HTTPRequest {
        var lines = LineIterator(bytes: bytes)
        guard let requestLine = lines.next() else { throw HTTPDecodingError(.malformedRequestLine, "empty request line") }
        var request = try parseRequestLine(requestLine)
        // Each field is a line: the head's line breaks bound their number, so the array is made once.
        request.headers = try parseFields(&lines, expectedCount: bytes.count { $0 == UInt8(ascii: "\n") })
        return request
    }

    /// Header or trailer fields up to the blank line that ends the section.
    static func parseFields(_ lines: inout LineIterator, expectedCount: Int = 0) throws(HTTPDecodingError) -> HTTPHeaders {
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(expectedCount)
        while let line = lines.next(), !line.isEmpty {
            fields.append(try parseField(line))
        }
        return HTTPHeaders(fields)
    }

    static func parseRequestLine(_ line: Bytes.SubSequence) throws(HTTPDecodingError) -> HTTPRequest {
        guard let firstSpace = line.firstIndex(of: space) else {
            throw HTTPDecodingError(.malformedRequestLine, "request line must be: method SP target SP HTTP-version")
        }
        let method = line[line.startIndex..<firstSpace]
        let rest = line[(firstSpace + 1)...]
        guard let secondSpace = rest.firstIndex(of: space) else {
            throw HTTPDecodingError(.malformedRequestLine, "request line must be: method SP target SP HTTP-version")
        }
        let target = rest[rest.startIndex..<secondSpace]
        let version = rest[(secondSpace + 1)...]
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else {
            throw HTTPDecodingError(.malformedRequestLine, "invalid method")
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 != 0x7F }),
              let targetText = validUTF8String(UnsafeBufferPointer(rebasing: target)) else {
            throw HTTPDecodingError(.malformedRequestLine, "invalid request target")
        }
        let parsedVersion = try parseVersion(version)
        let methodText = String(decoding: method, as: UTF8.self)
        let requestTarget = try RequestTarget(targetText, method: methodText)
        return HTTPRequest(method: methodText, target: requestTarget.originForm, authority: requestTarget.authority, version: parsedVersion)
    }

    private static func parseVersion(_ v: Bytes.SubSequence) throws(HTTPDecodingError) -> HTTPVersion {
        guard v.count == 8, v.starts(with: "HTTP/".utf8) else {
            throw HTTPDecodingError(.malformedRequestLine, "invalid HTTP version")
        }
        let major = v[v.startIndex + 5], dot = v[v.startIndex + 6], minor = v[v.startIndex + 7]
        guard isDigit(major), dot == UInt8(ascii: "."), isDigit(minor) else {
            throw HTTPDecodingError(.malformedRequestLine, "invalid HTTP version")
        }
        guard major == UInt8(ascii: "1") else {
            throw HTTPDecodingError(.unsupportedVersion, "only HTTP/1.x is spoken here")
        }
        return HTTPVersion(major: 1, minor: Int(minor - UInt8(ascii: "0")))
    }

    static func parseField(_ line: Bytes.SubSequence) throws(HTTPDecodingError) -> HTTPHeaders.Field {
        guard let first = line.first else { throw HTTPDecodingError(.malformedHeader, "empty header line") }
        if first == space || first == tab {
            throw HTTPDecodingError(.obsoleteLineFolding, "obsolete line folding is not accepted")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw HTTPDecodingError(.malformedHeader, "header field without ':'")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            throw HTTPDecodingError(.malformedHeader, "invalid header field name")
        }
        var valueStart = colon + 1, valueEnd = line.endIndex
        while valueStart < valueEnd, line[valueStart] == space || line[valueStart] == tab { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == space || line[valueEnd - 1] == tab { valueEnd -= 1 }
        let value = line[valueStart..<valueEnd]
        guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == tab }) else {
            throw HTTPDecodingError(.malformedHeader, "control character in header field value")
        }
        return HTTPHeaders.Field(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    /// Lines of a head, each without its CRLF/LF; a CR anywhere else in a line is rejected by the callers'
    /// character checks.
    struct LineIterator {
        let bytes: Bytes
        var position = 0

        mutating func next() -> Bytes.SubSequence? {
            guard position < bytes.count else { return nil }
            var end = position
            while end < bytes.count, bytes[end] != lf { end += 1 }
            let next = end + 1
            if end > position, bytes[end - 1] == cr { end -= 1 }
            defer { position = next }
            return bytes[position..<end]
        }
    }

    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// RFC 9110 §5.6.2 tchar.
    @inline(__always) static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
