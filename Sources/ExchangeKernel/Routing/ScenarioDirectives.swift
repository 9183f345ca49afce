package import FoundationGaps
package import LocatedJSON

/// What an active scenario asks the platform to do differently for one request, beyond answers the
/// scenario engine gives by itself (errors, throttling, delays). Grants and pages consult it; the
/// engine fills it. Empty means "behave as the real service".
package struct ScenarioDirectives: Sendable, Equatable {
    /// Granted scopes omit these (declined scopes): the response `scope` lacks them.
    package var declinedScopes: [String] = []
    /// Treat these scopes as not consented (65001 on silent grants, consent page on /authorize).
    package var consentRequiredScopes: [String] = []
    /// Demand multi-factor authentication (50076 on non-interactive grants, MFA page on /authorize).
    package var requireMFA: Bool = false
    package var accessTokenLifetime: TimeInterval?
    package var refreshTokenLifetime: TimeInterval?
    package var idTokenLifetime: TimeInterval?
    /// The `state` the sign-in's success redirect carries instead of the client's.
    package var redirectState: String?
    /// `refresh_in` of token responses: when the client should refresh although the token is still valid.
    package var refreshIn: TimeInterval?
    /// Claims added to (or replacing those of) issued access tokens, by claim name.
    package var accessTokenClaims: [String: JSONValue] = [:]
    /// Claims added to (or replacing those of) issued id tokens, by claim name.
    package var idTokenClaims: [String: JSONValue] = [:]

    /// The tenant alias a binding serves (`/{alias}/…`): discovery documents name it in their endpoint
    /// URLs where they would name the tenant, so a client stays on it; `issuer` keeps the tenant's id, as
    /// the real service's does for an authority written with a domain, so it matches the tokens' `iss`.
    package var authorityAlias: String?
    /// The `interval` a device authorization answer asks the client to poll at (and the token endpoint
    /// enforces with `slow_down`), instead of the service's 5 seconds.
    package var deviceCodeInterval: Int?
    /// The `issuer` the OpenID configuration document names instead of the authority's own (a document
    /// that is not the authority's: a client should refuse it). Tokens keep their real `iss`.
    package var discoveryIssuer: String?
    /// Issued access and id tokens forged this way (a bad signature, `alg: none`, a claim that is wrong).
    package var accessTokenForgery: TokenForgery?
    package var idTokenForgery: TokenForgery?
    /// The answer a rule gives instead of the service's own: the service renders it in its format, where it
    /// would give such an answer. Never remembered for a sign-in's later pages (an answer ends the request).
    package var answer: ScriptedAnswer?

    package init() {}

    package var isEmpty: Bool { self == ScenarioDirectives() }
}
