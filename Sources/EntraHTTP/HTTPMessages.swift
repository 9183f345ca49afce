/// A decoded HTTP/1.1 request. Built by `HTTPRequestDecoder` or directly in tests.
package struct HTTPRequest: Sendable, Equatable {
    package var method: String
    /// The request-target in origin form (path plus optional query). An absolute-form target
    /// (`https://host/path?q`, RFC 9112 §3.2.2) is reduced to its path and query, its authority kept in
    /// `authority`; `*` (OPTIONS) stays `*`.
    package var target: String {
        didSet {
            rawPath = Self.path(of: target)
            pathSegments = Self.segments(of: rawPath)
            rawQuery = Self.query(of: target)
        }
    }
    /// The authority (`host[:port]`) of an absolute-form target, nil for the other forms. The decoder
    /// also puts it in `Host`, which RFC 9112 §3.2.2 says it replaces.
    package var authority: String?
    package var version: HTTPVersion
    package var headers: HTTPHeaders {
        didSet { form = Self.form(headers: headers, body: body) }
    }
    package var body: [UInt8] {
        didSet { form = Self.form(headers: headers, body: body) }
    }
    /// Trailer fields of a chunked body (kept apart so they can never override framing headers).
    package var trailers: HTTPHeaders = [:]

    package init(method: String, target: String, authority: String? = nil, version: HTTPVersion = .http11,
                headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.rawPath = Self.path(of: target)
        self.pathSegments = Self.segments(of: rawPath)
        self.rawQuery = Self.query(of: target)
        self.authority = authority
        self.version = version
        self.headers = headers
        self.body = body
        self.form = Self.form(headers: headers, body: body)
    }

    /// The path part of the target, still percent-encoded. Kept with the target: routing, the
    /// journal and the handlers ask for it a few dozen times per request.
    package private(set) var rawPath: String

    private static func path(of target: String) -> String {
        let isCut: (UInt8) -> Bool = { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        // Searched on the string's storage when it has one (every request's target is).
        if let offset = target.utf8.withContiguousStorageIfAvailable({ $0.firstIndex(where: isCut) }) {
            guard let offset else { return target }
            return String(target[..<target.utf8.index(target.utf8.startIndex, offsetBy: offset)])
        }
        if let q = target.utf8.firstIndex(where: isCut) { return String(target[..<q]) }
        return target
    }

    /// The path split on `/`, each segment percent-decoded; empty segments dropped. Kept with the
    /// target: each router (Graph, B2C, Entra) reads them.
    package private(set) var pathSegments: [String]

    private static func segments(of path: String) -> [String] {
        var path = path   // withUTF8 needs a mutable copy; no bytes are copied
        return path.withUTF8 { bytes in
            var segments: [String] = []
            segments.reserveCapacity(bytes.count { $0 == UInt8(ascii: "/") } + 1)
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
                if end > start {
                    // Cut at an ASCII byte, so each piece is whole UTF-8.
                    let segment = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                    segments.append(FormCoding.percentDecode(segment) ?? segment)
                }
                start = end + 1
            }
            return segments
        }
    }

    /// The query after `?` and before any `#`, still percent-encoded; nil without a `?`. Kept with the
    /// target like `rawPath`: the journal, the scenario engine and the endpoints each ask for it.
    package private(set) var rawQuery: String?

    private static func query(of target: String) -> String? {
        guard target.containsByte(UInt8(ascii: "?")), let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        var query = target[target.utf8.index(after: q)...]
        if let hash = query.utf8.firstIndex(of: UInt8(ascii: "#")) { query = query[..<hash] }
        return String(query)
    }

    package var query: FormParameters { FormParameters(decoding: rawQuery ?? "") }

    /// Body parameters when the body is `application/x-www-form-urlencoded`, else empty. Decoded with
    /// the body: the token endpoint, the scenario engine and the journal each read it.
    package private(set) var form: FormParameters

    private static func form(headers: HTTPHeaders, body: [UInt8]) -> FormParameters {
        guard !body.isEmpty, let type = headers["Content-Type"], type.fastLowercased.hasPrefix("application/x-www-form-urlencoded") else {
            return FormParameters()
        }
        return FormParameters(decoding: String(decoding: body, as: UTF8.self))
    }

    /// Cookies from every `Cookie` header, first occurrence of a name wins.
    package var cookies: [String: String] { CookieCoding.parse(headers.values(for: "Cookie")) }

    /// The host name from the `Host` header without its port, lowercased.
    package var hostName: String? {
        guard let host = headers["Host"] else { return nil }
        // The usual value, an ASCII name and perhaps a port, is cut at its colon without lower-casing and
        // splitting all of it (routing asks on every request); anything else as it always was.
        let bytes = host.utf8
        if let first = bytes.first, first != UInt8(ascii: "["), first != UInt8(ascii: ":"), host.isPlainASCII {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            let name = end == bytes.endIndex ? host : String(Substring(bytes[..<end]))
            return name.fastLowercased
        }
        let lowered = host.fastLowercased
        if lowered.hasPrefix("[") { return lowered.split(separator: "]").first.map { String($0) + "]" } }
        return lowered.split(separator: ":").first.map(String.init)
    }
}

package struct HTTPVersion: Sendable, Equatable, CustomStringConvertible {
    package var major: Int
    package var minor: Int
    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    package static let http11 = HTTPVersion(major: 1, minor: 1)
    package static let http10 = HTTPVersion(major: 1, minor: 0)
    package var description: String { "HTTP/\(major).\(minor)" }
}

/// What the transport should do besides writing the response.
package struct TransportDirectives: Sendable, Equatable {
    /// Wait this long (real time) before the response is written.
    package var delay: Duration?
    /// Close the connection after this response even if keep-alive was negotiated.
    package var closeAfterResponse: Bool
    /// Close the connection without writing any response (a network failure, as a client sees it).
    package var dropConnection: Bool

    package init(delay: Duration? = nil, closeAfterResponse: Bool = false, dropConnection: Bool = false) {
        self.delay = delay
        self.closeAfterResponse = closeAfterResponse
        self.dropConnection = dropConnection
    }
}

package struct HTTPResponse: Sendable, Equatable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: [UInt8]
    package var directives: TransportDirectives

    package init(status: HTTPStatus, headers: HTTPHeaders = [:], body: [UInt8] = [], directives: TransportDirectives = .init()) {
        self.status = status
        self.headers = headers
        self.body = body
        self.directives = directives
    }

    package init(status: HTTPStatus, headers: HTTPHeaders = [:], text: String, contentType: String) {
        var headers = headers
        headers.set("Content-Type", contentType)
        self.init(status: status, headers: headers, body: Array(text.utf8))
    }

    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}

package struct HTTPStatus: Sendable, Equatable, Hashable {
    package var code: Int
    package var reason: String
    package init(_ code: Int, _ reason: String? = nil) {
        self.code = code
        self.reason = reason ?? HTTPStatus.standardReason(code)
    }

    package static let ok = HTTPStatus(200)
    package static let found = HTTPStatus(302)
    package static let badRequest = HTTPStatus(400)
    package static let unauthorized = HTTPStatus(401)
    package static let forbidden = HTTPStatus(403)
    package static let notFound = HTTPStatus(404)
    package static let methodNotAllowed = HTTPStatus(405)
    package static let tooManyRequests = HTTPStatus(429)
    package static let internalServerError = HTTPStatus(500)
    package static let serviceUnavailable = HTTPStatus(503)

    package static func standardReason(_ code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(code)"
        }
    }
}

/// Facts about the connection a request came on, for handlers that build absolute URLs or check loopback.
package struct RequestContext: Sendable, Equatable {
    package var remoteAddress: String
    package var isSecure: Bool
    package var localPort: Int

    package init(remoteAddress: String = "127.0.0.1", isSecure: Bool = true, localPort: Int = 443) {
        self.remoteAddress = remoteAddress
        self.isSecure = isSecure
        self.localPort = localPort
    }

    package var isLoopback: Bool {
        remoteAddress.hasPrefix("127.") || remoteAddress == "::1" || remoteAddress.hasPrefix("::ffff:127.")
    }
}

/// One part of the application: answers the requests that are its own and returns nil for the rest.
/// Handlers are synchronous and pure; delays and connection drops are expressed as `TransportDirectives`.
package protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, context: RequestContext) -> HTTPResponse?
}

/// What the server calls: always an answer.
package protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse
    /// True for a request whose answer takes bounded time, no more than a TLS handshake the loop does
    /// itself, writes nothing to disk and waits for no lock a handler holds for long (a health probe, an
    /// app-only token with no scenario rule in play): the event loop answers it itself instead of handing
    /// it to a worker and waiting to be woken with the answer. Everything else goes to the workers.
    func answersOnLoop(_ request: HTTPRequest) -> Bool
}

extension HTTPResponder {
    package func answersOnLoop(_ request: HTTPRequest) -> Bool { false }
}

/// Tries handlers in order; the first non-nil answer wins, else `fallback`.
package struct HandlerChain: HTTPResponder {
    package let handlers: [any HTTPHandler]
    package let fallback: @Sendable (HTTPRequest, RequestContext) -> HTTPResponse

    package init(_ handlers: [any HTTPHandler], fallback: @escaping @Sendable (HTTPRequest, RequestContext) -> HTTPResponse) {
        self.handlers = handlers
        self.fallback = fallback
    }

    package func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        for handler in handlers {
            if let response = handler.handle(request, context: context) { return response }
        }
        return fallback(request, context)
    }
}
