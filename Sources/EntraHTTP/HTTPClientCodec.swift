/// The client half of HTTP/1.1, for tools that drive a server (the `fakeentra-load` benchmark driver,
/// `fakeentra browse`):
/// requests are written like any client's, response heads are read with the server decoder's field rules.
package enum HTTPClientCodec {
    /// Appends a request with `Host`, the caller's fields and, when there is a body, `Content-Length`.
    package static func encodeRequest(method: String, target: String, host: String, headers: [(String, String)] = [], body: [UInt8] = [], into buffer: inout [UInt8]) {
        buffer.append(contentsOf: "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n".utf8)
        for (name, value) in headers { buffer.append(contentsOf: "\(name): \(value)\r\n".utf8) }
        if !body.isEmpty || method == "POST" { buffer.append(contentsOf: "Content-Length: \(body.count)\r\n".utf8) }
        buffer.append(contentsOf: "\r\n".utf8)
        buffer.append(contentsOf: body)
    }

    /// A response head: the status line and its fields (the blank line excluded).
    package struct ResponseHead: Sendable {
        package var version: HTTPVersion
        package var status: Int
        package var headers: HTTPHeaders

        /// The body length the head declares; nil when the body runs to the end of the connection.
        package var contentLength: Int? {
            guard let value = headers["Content-Length"] else { return status == 204 || status == 304 ? 0 : nil }
            return Int(Substring(value).trimmingASCIISpaces())
        }

        /// Whether the server keeps the connection open after this response (RFC 9112 §9.3).
        package var keepsAlive: Bool {
            let connection = headers["Connection"]?.lowercased() ?? ""
            if connection.contains("close") { return false }
            return version.minor >= 1 || connection.contains("keep-alive")
        }
    }

    /// The index just past the blank line that ends a response head in `bytes`, searching from `start`;
    /// nil while the head is incomplete.
    package static func headEnd(in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = start
        while index + 3 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index + 4 }
            index += 1
        }
        return nil
    }

    package static func parseResponseHead(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPDecodingError) -> ResponseHead {
        var lines = HTTPHeadParser.LineIterator(bytes: bytes)
        guard let statusLine = lines.next(), statusLine.count >= 12, statusLine.starts(with: "HTTP/1.".utf8) else {
            throw HTTPDecodingError(.malformedRequestLine, "status line must be: HTTP/1.x SP status SP reason")
        }
        let start = statusLine.startIndex
        let minor = statusLine[start + 7], digits = statusLine[(start + 9)..<(start + 12)]
        guard HTTPHeadParser.isDigit(minor), statusLine[start + 8] == HTTPHeadParser.space,
              digits.allSatisfy(HTTPHeadParser.isDigit) else {
            throw HTTPDecodingError(.malformedRequestLine, "status line must be: HTTP/1.x SP status SP reason")
        }
        let status = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        let headers = try HTTPHeadParser.parseFields(&lines)
        return ResponseHead(version: HTTPVersion(major: 1, minor: Int(minor - 0x30)), status: status, headers: headers)
    }
}
