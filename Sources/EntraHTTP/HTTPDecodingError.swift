/// Why a request could not be decoded. It renders the response the server sends before closing.
package struct HTTPDecodingError: HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable, Hashable {
        /// Request line plus header section (or the trailer section) exceeds the head limit.
        case headersTooLarge
        /// The declared `Content-Length` or the sum of chunk sizes exceeds the body limit.
        case bodyTooLarge
        case malformedRequestLine
        case unsupportedVersion
        case malformedHeader
        /// A header line starting with whitespace (RFC 9112 §5.2 forbids it in requests).
        case obsoleteLineFolding
        /// HTTP/1.1 without `Host`, or several `Host` fields (RFC 9112 §3.2).
        case invalidHost
        /// Both `Content-Length` and `Transfer-Encoding` (a request smuggling vector).
        case conflictingFraming
        case invalidContentLength
        case unsupportedTransferEncoding
        case malformedChunk
        /// An `Expect` value other than `100-continue`.
        case unsupportedExpectation
        /// The head or body did not arrive within its deadline.
        case requestTimedOut
    }

    package let kind: Kind
    /// A short human explanation, sent as the body.
    package let detail: String
    /// The request that was refused, when its request line could be read (for the access log).
    package internal(set) var requestLine: HTTPRequestLine?

    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    package var status: HTTPStatus {
        switch kind {
        case .headersTooLarge: HTTPStatus(431)
        case .bodyTooLarge: HTTPStatus(413)
        case .unsupportedTransferEncoding: HTTPStatus(501)
        case .unsupportedExpectation: HTTPStatus(417)
        case .requestTimedOut: HTTPStatus(408)
        case .malformedRequestLine, .unsupportedVersion, .malformedHeader, .obsoleteLineFolding, .invalidHost,
             .conflictingFraming, .invalidContentLength, .malformedChunk:
            HTTPStatus(400)
        }
    }

    /// The plain-text answer; the connection is always closed after it.
    package func response(in _: Void) -> HTTPResponse {
        var response = HTTPResponse(status: status, text: "\(status.code) \(status.reason): \(detail)\n", contentType: "text/plain; charset=utf-8")
        response.directives.closeAfterResponse = true
        return response
    }

    package var description: String { "\(status.code) \(detail)" }

    package static func == (lhs: HTTPDecodingError, rhs: HTTPDecodingError) -> Bool { lhs.kind == rhs.kind }
}

/// The method and origin-form target of a request, known before the whole request has arrived.
package struct HTTPRequestLine: Sendable, Equatable {
    package var method: String
    package var target: String

    package init(method: String, target: String) {
        self.method = method
        self.target = target
    }
}
