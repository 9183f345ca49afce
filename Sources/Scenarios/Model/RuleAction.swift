import EntraHTTP
package import FoundationGaps
package import ExchangeKernel
import IdentityPlatform
package import LocatedJSON

/// What a rule does when it fires. Three families:
/// - answers (terminal): the service the request is for gives this answer instead of its own, in its
///   own format (`ScriptedAnswer`), and does none of its work;
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
    /// Native authentication sends the journey to the browser (`ScriptedAnswer.browserRequired`).
    case browserRequired(reason: String?)
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
        case .oauthError, .serviceError, .dropConnection, .graphError, .claimsChallenge, .response, .browserRequired: true
        default: false
        }
    }

    /// The answer a service renders for this action; nil for the other families and for a dropped
    /// connection, which no service answers.
    package var scriptedAnswer: ScriptedAnswer? {
        switch self {
        case .oauthError(let spec): .oauthError(spec)
        case .serviceError(let spec): .serviceError(spec)
        case .graphError(let spec): .graphError(spec)
        case .claimsChallenge(let spec): .claimsChallenge(spec)
        case .response(let canned): .response(canned)
        case .browserRequired(let reason): .browserRequired(reason: reason)
        default: nil
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
        case .browserRequired: "browserRequired"
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

/// Claims added to issued tokens, by claim name.
package struct TokenClaims: Sendable, Equatable {
    package var accessToken: [String: JSONValue]
    package var idToken: [String: JSONValue]

    package init(accessToken: [String: JSONValue] = [:], idToken: [String: JSONValue] = [:]) {
        self.accessToken = accessToken
        self.idToken = idToken
    }
}
