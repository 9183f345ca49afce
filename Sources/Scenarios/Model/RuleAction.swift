import EntraHTTP
package import Foundation
package import ExchangeKernel
package import IdentityPlatform
import B2C
import LocatedJSON

/// What a rule does when it fires. Three families:
/// - answers (terminal): the engine replies by itself and the platform never sees the request;
/// - directives: the platform answers, told to behave differently (ScenarioDirectives, delays);
/// - world changes: the binding's world changes (clock, keys), then the platform answers.
package enum RuleAction: Sendable, Equatable {
    // Answers.
    case oauthError(OAuthErrorSpec)
    case serviceError(ServiceErrorSpec)
    case dropConnection
    case graphError(GraphErrorSpec)
    case claimsChallenge(ClaimsChallengeSpec)
    case response(CannedResponse)
    // Directives.
    case declineScopes([String])
    case requireConsent([String])
    case requireMFA
    case tokenLifetimes(TokenLifetimes)
    case tokenClaims(TokenClaims)
    case delay(milliseconds: Int)
    /// The sign-in's success redirect carries this `state` instead of the client's (a forged or mixed-up response).
    case redirectState(String)
    /// Device authorization answers ask the client to poll every this many seconds.
    case deviceCodeInterval(Int)
    /// The OpenID configuration document names this `issuer` instead of the authority's.
    case discoveryIssuer(String)
    /// The answer's access and id tokens are forged this way (a bad signature, `alg: none`, a wrong claim).
    case forgeTokens(accessToken: TokenForgery?, idToken: TokenForgery?)
    /// Lets the platform answer as usual; consumes a firing (HAR replay steps that succeeded).
    case passThrough
    // World changes.
    /// A new key signs; the old one leaves the JWKS at once, or after `keepPreviousFor` seconds.
    case rollSigningKey(keepPreviousFor: TimeInterval?)
    case advanceClock(seconds: TimeInterval)

    package var isTerminal: Bool {
        switch self {
        case .oauthError, .serviceError, .dropConnection, .graphError, .claimsChallenge, .response: true
        default: false
        }
    }

    /// The name used in scenario files.
    package var fileName: String {
        switch self {
        case .oauthError: "oauthError"
        case .serviceError: "serviceError"
        case .dropConnection: "dropConnection"
        case .graphError: "graphError"
        case .claimsChallenge: "claimsChallenge"
        case .response: "response"
        case .declineScopes: "declineScopes"
        case .requireConsent: "requireConsent"
        case .requireMFA: "requireMFA"
        case .tokenLifetimes: "tokenLifetimes"
        case .tokenClaims: "tokenClaims"
        case .delay: "delay"
        case .redirectState: "redirectState"
        case .deviceCodeInterval: "deviceCodeInterval"
        case .discoveryIssuer: "discoveryIssuer"
        case .forgeTokens: "forgeTokens"
        case .passThrough: "passThrough"
        case .rollSigningKey: "rollSigningKey"
        case .advanceClock: "advanceClock"
        }
    }
}

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

/// AADSTS or AADB2C: the identity platform's own families.
package typealias ErrorFamily = IdentityError.Family

extension IdentityError.Family {
    /// The service's wording of `code` in this family's catalogue (Entra's or B2C's), nil when FakeEntra
    /// has none: what a scenario naming only a code answers.
    package func catalogueEntry(code: Int) -> IdentityError? {
        switch self {
        case .aadsts: ErrorCatalogue.entry(code: code)
        case .aadb2c: B2CErrorCatalogue.entry(code: code)
        }
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
    package var message: String
    package var retryAfter: Int?

    package init(status: Int, code: String, message: String, retryAfter: Int? = nil) {
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

package struct TokenLifetimes: Sendable, Equatable {
    package var accessToken: TimeInterval?
    package var refreshToken: TimeInterval?
    package var idToken: TimeInterval?
    /// Seconds after which the token response asks the client to refresh (`refresh_in`).
    package var refreshIn: TimeInterval?

    package init(accessToken: TimeInterval? = nil, refreshToken: TimeInterval? = nil, idToken: TimeInterval? = nil, refreshIn: TimeInterval? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.refreshIn = refreshIn
    }
}

/// Claims added to issued tokens, as JSON text per claim name.
package struct TokenClaims: Sendable, Equatable {
    package var accessToken: [String: String]
    package var idToken: [String: String]

    package init(accessToken: [String: String] = [:], idToken: [String: String] = [:]) {
        self.accessToken = accessToken
        self.idToken = idToken
    }
}
