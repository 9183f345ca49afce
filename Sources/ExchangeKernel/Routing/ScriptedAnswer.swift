package import EntraHTTP
package import FoundationGaps
import LocatedJSON

/// A scenario rule's answer to a request, handed down to the service the request is for, which renders
/// it in its own format (Entra's and B2C's OAuth errors, Graph's error JSON, Resource Manager's, IMDS's
/// statuses) at the point where that service would give such an answer.
package enum ScriptedAnswer: Sendable, Equatable {
    case oauthError(OAuthErrorSpec)
    case serviceError(ServiceErrorSpec)
    case graphError(GraphErrorSpec)
    case claimsChallenge(ClaimsChallengeSpec)
    case response(CannedResponse)
    /// Native authentication's hand-off: the app's own screens cannot go on, the journey continues in a
    /// browser (V1's `challenge_type: redirect`, V2's `state: webFallbackRequired`); nil `reason`: the
    /// service's words.
    case browserRequired(reason: String?)
}

/// AADSTS or AADB2C: the identity platform's own error families, each with its catalogue.
package enum ErrorFamily: String, Sendable { case aadsts = "AADSTS", aadb2c = "AADB2C" }

/// An OAuth error as the identity platform words it; `code` picks the catalogue's text when the
/// scenario gives none.
package struct OAuthErrorSpec: Sendable, Equatable {
    package var error: String
    package var code: Int
    package var family: ErrorFamily
    /// nil: the catalogue's wording for `code`, completed with the request's details when rendered.
    package var message: String?
    package var suberror: String?
    /// `error_subcode` on /authorize redirects (`cancel` when the user backs out of sign-in).
    package var errorSubcode: String?
    /// JSON text of a claims challenge.
    package var claims: String?
    package var status: Int?
    /// On /authorize: show an error page instead of redirecting to the app.
    package var asPage: Bool

    package init(error: String, code: Int, family: ErrorFamily = .aadsts, message: String? = nil, suberror: String? = nil, errorSubcode: String? = nil, claims: String? = nil, status: Int? = nil, asPage: Bool = false) {
        self.error = error
        self.code = code
        self.family = family
        self.message = message
        self.suberror = suberror
        self.errorSubcode = errorSubcode
        self.claims = claims
        self.status = status
        self.asPage = asPage
    }
}

/// HTTP 429 or 5xx with an optional `Retry-After`, the body in the endpoint's own error format.
package struct ServiceErrorSpec: Sendable, Equatable {
    package var status: Int
    package var retryAfter: Int?
    package var message: String?
    /// How `Retry-After` is written: delay-seconds, or an HTTP-date that many seconds ahead (RFC 9110 §10.2.3
    /// allows both; Entra sends seconds, proxies and gateways in front of a service may send dates).
    package var retryAfterFormat: RetryAfterFormat

    package enum RetryAfterFormat: String, Sendable, Equatable { case seconds, httpDate }

    package init(status: Int, retryAfter: Int? = nil, message: String? = nil, retryAfterFormat: RetryAfterFormat = .seconds) {
        self.status = status
        self.retryAfter = retryAfter
        self.message = message
        self.retryAfterFormat = retryAfterFormat
    }

    /// The header value at `now`: a date is rounded up to the next whole second, so a client that
    /// honours it never waits less than `retryAfter` seconds.
    package func retryAfterHeader(now: Date) -> String? {
        guard let retryAfter else { return nil }
        switch retryAfterFormat {
        case .seconds: return String(retryAfter)
        case .httpDate: return HTTPDate.format(secondsSince1970: Int(now.timeIntervalSince1970.rounded(.up)) + retryAfter)
        }
    }
}

/// A Microsoft Graph error (`{"error":{"code":…,"message":…,"innerError":{…}}}`).
package struct GraphErrorSpec: Sendable, Equatable {
    package var status: Int
    package var code: String
    /// nil: Graph's own wording of `code`.
    package var message: String?
    package var retryAfter: Int?

    package init(status: Int, code: String, message: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }
}

/// A continuous access evaluation challenge: 401 with `WWW-Authenticate … error="insufficient_claims"`.
package struct ClaimsChallengeSpec: Sendable, Equatable {
    /// JSON text of the claims the client must pass back; nil means `{"access_token":{"nbf":{"essential":true,"value":"<now>"}}}`.
    package var claims: String?

    package init(claims: String? = nil) { self.claims = claims }
}

/// A literal response (HAR replay of something FakeEntra has no model for).
package struct CannedResponse: Sendable, Equatable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: String { didSet { answer = Receipt.Answer(statedIn: body) } }
    /// What the body states, read once here: the engine sends the body as written and never reads it.
    package private(set) var answer: Receipt.Answer

    package init(status: Int, headers: [(name: String, value: String)] = [], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
        answer = Receipt.Answer(statedIn: body)
    }

    package static func == (lhs: CannedResponse, rhs: CannedResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.count == rhs.headers.count
            && zip(lhs.headers, rhs.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

extension Receipt.Answer {
    /// The facts a scripted or recorded JSON body states, as a rendered answer's are written; none for
    /// other text. A refresh token is named by its `Receipt.handleID`.
    init(statedIn body: String) {
        self.init()
        guard let object = LocatedJSON.object(body: Array(body.utf8)) else { return }
        // The v1 endpoint writes its numbers as strings.
        func number(_ name: String) -> Int? { object[name].flatMap { $0.int ?? $0.string.flatMap { Int($0) } } }
        let error = object["error"]
        self.error = error?.string ?? error?["code"]?.string
        suberror = object["suberror"]?.string
        errorCodes = object["error_codes"]?.array?.compactMap(\.int) ?? []
        scope = object["scope"]?.string
        expiresIn = number("expires_in")
        refreshIn = number("refresh_in")
        refreshToken = object["refresh_token"]?.string.map { Receipt.handleID($0) }
        interval = number("interval")
        issuer = object["issuer"]?.string
    }
}

extension CannedResponse {
    /// The literal answer, its content type guessed from the body when the recording named none.
    package func response(receipt: ReceiptRecorder?) -> HTTPResponse {
        receipt?.answered(answer)
        var headers = HTTPHeaders()
        for header in self.headers { headers.add(header.name, header.value) }
        if !headers.contains("Content-Type"), let first = body.first(where: { !$0.isWhitespace }) {
            headers.set("Content-Type", first == "{" || first == "[" ? "application/json; charset=utf-8" : "text/plain; charset=utf-8")
        }
        return HTTPResponse(status: HTTPStatus(status), headers: headers, body: Array(body.utf8))
    }
}
