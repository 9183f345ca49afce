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
    /// The error this answer states, as its renderer knew it; nil for an answer that states none.
    package var statedError: StatedError?

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

    /// This answer, stating `error`.
    package func stating(_ error: StatedError?) -> HTTPResponse {
        var copy = self
        copy.statedError = error
        return copy
    }
}

/// What an error answer says, handed up with it by the code that rendered it (a JSON error, an error
/// redirect, a page showing an error): the layer that completes the exchange's receipt copies it there,
/// so no renderer writes the receipt and nothing reads the body back.
package struct StatedError: Sendable, Equatable {
    /// The service's code: `AADSTS50126`, `AADB2C90118`, a Graph or Resource Manager `code`. Nil when the
    /// answer names none (a scripted error without a code).
    package var code: String?
    /// What the body states: the OAuth `error` (or Graph's `code`), `suberror` and `error_codes`. Nil for
    /// a redirect or a page, whose body states no JSON error.
    package var body: Body?

    package struct Body: Sendable, Equatable {
        package var error: String
        package var suberror: String?
        package var errorCodes: [Int]

        package init(error: String, suberror: String? = nil, errorCodes: [Int] = []) {
            self.error = error
            self.suberror = suberror
            self.errorCodes = errorCodes
        }
    }

    package init(code: String?, body: Body? = nil) {
        self.code = code
        self.body = body
    }
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
package struct ConnectionFacts: Sendable, Equatable {
    package var remoteAddress: String
    package var isSecure: Bool
    package var localPort: Int
    /// Handed to the responder by this process (FakeEntraTesting's `.router`), not read from a socket: no
    /// browser page can have sent it.
    package var isInProcess: Bool

    package init(remoteAddress: String = "127.0.0.1", isSecure: Bool = true, localPort: Int = 443, isInProcess: Bool = false) {
        self.remoteAddress = remoteAddress
        self.isSecure = isSecure
        self.localPort = localPort
        self.isInProcess = isInProcess
    }

    package var isLoopback: Bool {
        remoteAddress.hasPrefix("127.") || remoteAddress == "::1" || remoteAddress.hasPrefix("::ffff:127.")
    }
}

/// What the server calls: always an answer. Answers are synchronous; delays and connection drops are
/// expressed as `TransportDirectives` on the response.
///
/// The responder works out what it needs to answer a request (its `Route`) once, on the event loop as
/// soon as the request is read; the same value decides whether the loop answers it itself and is handed
/// to whichever thread answers, so no request is routed twice.
package protocol HTTPResponder: Sendable {
    associatedtype Route: Sendable = Void
    func route(_ request: HTTPRequest) -> Route
    /// True for a request whose answer takes bounded time, no more than a TLS handshake the loop does
    /// itself, writes nothing to disk and waits for no lock a handler holds for long (a health probe, an
    /// app-only token with no scenario rule in play): the event loop answers it itself instead of handing
    /// it to a worker and waiting to be woken with the answer. Everything else goes to the workers.
    func answersOnLoop(_ request: HTTPRequest, route: Route) -> Bool
    func respond(to request: HTTPRequest, route: Route, context: ConnectionFacts) -> HTTPResponse
}

extension HTTPResponder where Route == Void {
    package func route(_ request: HTTPRequest) {}
}

extension HTTPResponder {
    package func answersOnLoop(_ request: HTTPRequest, route: Route) -> Bool { false }

    /// Routes `request` and answers it: for a caller holding a request of its own, not read by the server
    /// (the test library's in-process transport).
    package func respond(to request: HTTPRequest, context: ConnectionFacts) -> HTTPResponse {
        respond(to: request, route: route(request), context: context)
    }

    /// Whether the loop would answer `request` itself.
    package func answersOnLoop(_ request: HTTPRequest) -> Bool {
        answersOnLoop(request, route: route(request))
    }
}
