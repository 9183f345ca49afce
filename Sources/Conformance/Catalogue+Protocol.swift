import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import LocatedJSON

extension Catalogue {
    /// Another host than the authority's: even MSAL's host-only check for OIDC authorities refuses it.
    package static let discoveryIssuer = "https://issuer.invalid/\(Directory.contosoTenantID)/v2.0"

    private static let afterRejectedSignIn = [JourneyStep.signIn(1), .callGraph(2)]

    /// An id_token claim the client must check, served wrong on the code redemption: after it, the
    /// app must report an error and never call Graph with what it got.
    ///
    /// Not going on is recommended only: MSAL for Python 1.39 raises on a wrong nonce, but caches the
    /// response's tokens before it checks, so an app written like the sample apps (silent first) then
    /// calls Graph with them.
    /// `claims`: the id_token's claims made wrong (JSON), or `forgery`: the token itself forged. A forged
    /// case's authority is a path of its own, so that a client's JWKS fetch reaches the case's world (its
    /// keys) and its journal.
    private static func badIDToken(id: String, title: String, level: CaseLevel, claims: String? = nil, forgery: TokenForgery? = nil,
                                   service: String, citations: [Citation]) -> ConformanceCase {
        // `claims` is written as a scenario file writes it; text that is not JSON stays text, which the scenario loader refuses.
        let action: (String, JSONValue) = forgery.map { ("forgeTokens", .object([("idToken", .string($0.rawValue))])) }
            ?? ("tokenClaims", .object([("idToken", LocatedJSON.parse(body: Array((claims ?? "{}").utf8), source: "the case's claims") ?? .string(claims ?? ""))]))
        let redeemed = ExchangeMatch.codeRedemption.answered(200...200, "the code redemption answered with the bad id_token")
        return ConformanceCase(
            id: id, title: title, level: level, service: service,
            correctClient: "A correct client validates the id_token, refuses this one and reports the error to the app; it should also never use the tokens of that response (recommended: MSAL for Python caches them before its check, so a silent call finds them).",
            verdictRule: "FAILED (WARNING for a recommended case) when the sign-in is reported as a success; WARNING when a Graph call follows the bad response; NOT_TESTABLE when the code was never redeemed.",
            citations: citations,
            rules: [Rules.rule(match: [("endpoint", .string("token")), ("grantType", .string("authorization_code"))], action: [action], times: .string("always"))],
            journey: afterRejectedSignIn,
            checks: [
                Check("reports-error", .reply(step: 1, .fails()), citation: citations[0]),
                Check("no-use-of-tokens", level: .recommended, .noneAfter(trigger: redeemed, forbidden: .graph, reachedBy: 2), citation: citations[0]),
            ],
            ownAuthority: forgery != nil
        )
    }

    /// PKCE, and no credential in a request the browser carries, judged on the case's sign-in. Required of
    /// public clients, recommended to confidential ones (RFC 9700 §2.1.1): one case for each.
    private static func pkce(level: CaseLevel, clients: Set<ClientKind>, correctClient: String) -> ConformanceCase {
        ConformanceCase(
            id: level == .required ? "protocol.pkce-s256" : "confidential.pkce-s256", title: "PKCE with S256", level: level,
            service: "Entra ID accepts an authorization request with or without PKCE (except for single-page apps), and checks code_verifier against the code_challenge when one was sent.",
            correctClient: correctClient + " No client secret, assertion or password travels in the /authorize or logout request.",
            verdictRule: "FAILED (WARNING for a confidential client) when an /authorize lacks an S256 challenge or a redemption lacks the verifier; FAILED when a request the browser carries holds a client secret, assertion or password; NOT_TESTABLE when no sign-in happened.",
            citations: [Source.rfc7636, Source.rfc9700PKCE, Source.rfc6749ClientCredentialsInBody, Source.authCodeFlow],
            rules: [],
            journey: [.signIn(1)],
            checks: [
                Check("s256-challenge-and-verifier", .pkceS256, citation: level == .required ? Source.rfc7636 : Source.rfc9700PKCE),
                Check("no-secret-in-browser", level: .required, .noSecretInBrowserRequests, citation: Source.rfc6749ClientCredentialsInBody),
                Check("signs-in", level: .required, .reply(step: 1, .succeeds), citation: Source.authCodeFlow),
            ],
            clients: clients
        )
    }

    static let protocolSafety: [ConformanceCase] = [
        pkce(level: .required, clients: [.publicClient, .singlePageApp],
             correctClient: "A correct public client sends code_challenge with code_challenge_method=S256 on every /authorize and the matching code_verifier when it redeems the code (RFC 9700: MUST; every MSAL does)."),
        // RFC 9700 recommends PKCE to confidential clients; MSAL for Python's initiate_auth_code_flow and
        // ASP.NET Core's OpenID Connect handler (UsePkce) send it by default, msal-node and MSAL.NET only when
        // the app asks: recommended, a WARNING when missing.
        pkce(level: .recommended, clients: ClientKind.confidential,
             correctClient: "A correct web app sends code_challenge with code_challenge_method=S256 on every /authorize and the matching code_verifier with its credential when it redeems the code: RFC 9700 recommends it to confidential clients, MSAL for Python and ASP.NET Core's OpenID Connect handler do it by default."),
        badIDToken(
            id: "protocol.nonce-mismatch", title: "id_token with a wrong nonce", level: .required,
            claims: #"{"nonce": "conformance-not-your-nonce"}"#,
            service: "The code redemption returns an id_token whose nonce is not the one the client sent on /authorize (a replayed or injected token).",
            citations: [Source.oidcNonce, Source.msalOIDC]
        ),
        badIDToken(
            id: "protocol.id-token-audience", title: "id_token for another audience", level: .recommended,
            claims: #"{"aud": "00000000-0000-0000-0000-00000000dead"}"#,
            service: "The code redemption returns an id_token whose aud is another application (MSAL for Python accepts it on purpose since 1.38).",
            citations: [Source.oidcIDToken]
        ),
        badIDToken(
            id: "protocol.id-token-issuer", title: "id_token from another issuer", level: .recommended,
            claims: #"{"iss": "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0"}"#,
            service: "The code redemption returns an id_token whose iss is another tenant's issuer, not the authority's.",
            citations: [Source.oidcIDToken]
        ),
        badIDToken(
            id: "protocol.id-token-tenant", title: "id_token from another tenant", level: .recommended, forgery: .wrongTenant,
            service: "The code redemption returns an id_token signed by the service's own key and right in every other way, but whose tid (and the tenant in its iss) is another tenant than the one the app's authority names.",
            citations: [Source.issuerValidation, Source.oidcIDToken]
        ),
        badIDToken(
            id: "protocol.id-token-expired", title: "Expired id_token", level: .recommended,
            claims: #"{"exp": 1000000000, "iat": 999996400, "nbf": 999996400}"#,
            service: "The code redemption returns an id_token that expired in 2001.",
            citations: [Source.oidcIDToken]
        ),
        badIDToken(
            id: "protocol.id-token-signature", title: "id_token with a bad signature", level: .recommended,
            forgery: .badSignature,
            service: "The code redemption returns an id_token signed by the published key with one bit of the signature flipped: what a tampered token looks like.",
            citations: [Source.oidcSignature, Source.msalOIDC]
        ),
        badIDToken(
            id: "protocol.id-token-alg-none", title: "Unsigned id_token (alg none)", level: .recommended,
            forgery: .algNone,
            service: "The code redemption returns an unsigned id_token: header alg none, no signature.",
            citations: [Source.jwtAlgorithmVerification, Source.oidcSignature]
        ),
        badIDToken(
            id: "protocol.id-token-unknown-kid", title: "id_token signed by an unknown key", level: .recommended,
            forgery: .unknownKeyId,
            service: "The code redemption returns an id_token signed by a key the tenant's JWKS does not publish, named by its own kid. A client validating signatures refetches the JWKS once for an unfamiliar kid, and then refuses.",
            citations: [Source.oidcKeyRotation, Source.oidcSignature]
        ),
        ConformanceCase(
            id: "protocol.signing-key-rollover", title: "Signing-key rollover between two tokens", level: .required,
            service: "The token signing key rolls over at the silent refresh: the refreshed tokens carry a new kid, and the old key leaves the JWKS, as after an emergency rollover.",
            correctClient: "A correct client keeps working: it never pins a signing key, and when it validates signatures it refetches the JWKS for the new kid.",
            verdictRule: "FAILED when step 2 makes no refresh (the rolled key signs the refreshed tokens) or fails: the app refused the new key's tokens.",
            citations: [Source.oidcKeyRotation, Source.signingKeyRollover],
            rules: [Rules.shortLivedTokens, #"{"match": {"endpoint": "token", "grantType": "refresh_token"}, "action": {"rollSigningKey": true}}"#],
            journey: [.signIn(1), .getToken(2)],
            checks: [
                Check("refresh-seen", .someDuring(step: 2, .refresh), citation: Source.signingKeyRollover),
                Check("keeps-working", .reply(step: 2, .succeeds), citation: Source.oidcKeyRotation),
            ],
            ownAuthority: true
        ),
        ConformanceCase(
            id: "protocol.refresh-other-user", title: "Refresh answered with another user's id_token", level: .recommended,
            service: "A silent refresh returns an id_token naming a different user (another oid, sub and preferred_username) than the account the app signed in.",
            correctClient: "A correct client checks that a refreshed id_token names the same subject and refuses the answer rather than silently switching users.",
            verdictRule: "WARNING when the silent call is reported as a success (MSAL for Python accepts it), or when step 2 makes no refresh although the tokens it holds are short-lived (it served an expired token instead); NOT_TESTABLE when the app never got to step 2.",
            citations: [Source.oidcRefresh],
            rules: [
                Rules.shortLivedTokens,
                #"{"match": {"endpoint": "token", "grantType": "refresh_token"}, "action": {"tokenClaims": {"idToken": {"oid": "b8c5e1d2-7f3a-4b6c-8d9e-0a1b2c3d4e5f", "sub": "conformance-other-subject", "preferred_username": "alex.wilber@contoso.onmicrosoft.com", "name": "Alex Wilber"}}}, "times": "always"}"#
            ],
            journey: [.signIn(1), .getToken(2)],
            checks: [
                Check("refresh-seen", .someDuring(step: 2, .refresh), citation: Source.oidcRefresh),
                Check("refuses-other-user", .reply(step: 2, .fails()), citation: Source.oidcRefresh),
            ]
        ),
        ConformanceCase(
            id: "protocol.discovery-issuer", title: "Discovery names another issuer", level: .recommended,
            service: "The authority's OpenID configuration names the issuer \(discoveryIssuer) instead of the authority's own: a document that is not the authority's (a DNS or proxy mix-up, or an attacker's). Discovery requests carry no client id, so this case's authority is a path of its own (a tenant alias bound to the case) and every request under it reaches the case.",
            correctClient: "A correct client compares the document's issuer with the authority it asked (OIDC Discovery §4.3) and stops with an error before using any endpoint the document names. MSAL for Python does so with oidc_authority=, not with authority= (a tenant's Entra authority legitimately differs from its issuer's path, so it only checks the host for OIDC authorities).",
            verdictRule: "WARNING when an /authorize, token or Graph request follows the mismatching document, or the sign-in is reported as a success; PASSED when the client stopped with an error; NOT_TESTABLE when discovery was never fetched.",
            citations: [Source.oidcDiscoveryIssuer, Source.msalAuthority],
            rules: [Rules.rule(match: [("endpoint", .string("metadata"))], action: [("discoveryIssuer", .string(discoveryIssuer))], times: .string("always"))],
            journey: [.signIn(1, deadline: 20)],
            checks: [
                Check("stops-after-discovery", .noneAfter(trigger: ExchangeMatch.openIDConfiguration.with(answer: .issuer, discoveryIssuer, label: "the OpenID configuration naming another issuer"),
                                                          forbidden: .usesDiscoveredEndpoints, reachedBy: 1), citation: Source.oidcDiscoveryIssuer),
                Check("reports-error", .reply(step: 1, .fails()), citation: Source.oidcDiscoveryIssuer),
            ],
            ownAuthority: true
        ),
        ConformanceCase(
            id: "protocol.state-mismatch", title: "Redirect with another state", level: .required,
            service: "The sign-in's redirect carries a code and a state the client did not send (a forged or mixed-up response: cross-site request forgery).",
            correctClient: "A correct client compares state with the one it sent, refuses the response and never redeems that code: it reports the error, or keeps waiting for a valid redirect (MSAL's loopback listener ignores the forged one).",
            verdictRule: "FAILED when the code is redeemed or the sign-in is reported as a success; NOT_TESTABLE when no /authorize was seen.",
            citations: [Source.rfc6749State, Source.msalOIDC],
            rules: [#"{"match": {"endpoint": "authorize"}, "action": {"redirectState": "conformance-forged-state"}, "times": "always"}"#],
            // Long enough for a browser-hosted client to start, sign in and reach the redirect on a loaded
            // machine; a client that keeps waiting (MSAL's loopback listener) waits this long.
            journey: [.signIn(1, deadline: 15)],
            checks: [
                Check("refuses-response", .reply(step: 1, ReplyExpectation(ok: false, waitingIsFine: true, label: "reports an error or keeps waiting")), citation: Source.rfc6749State),
                // The /authorize answered proves the browser reached the redirect; the step ended either way.
                Check("no-redemption", .noneAfter(trigger: ExchangeMatch.authorize.answered(200...399, "the /authorize whose redirect carries the forged state"),
                                                  forbidden: .codeRedemption, reachedBy: nil), citation: Source.rfc6749State),
            ]
        ),
        ConformanceCase(
            id: "protocol.error-redirect", title: "Error on the redirect (user cancels)", level: .required,
            service: "The user backs out of the sign-in page: /authorize redirects to the app with error=access_denied and error_subcode=cancel, and no code.",
            correctClient: "A correct client reports the cancellation to the app and does not call the token endpoint.",
            verdictRule: "FAILED when a code redemption follows the error redirect or the sign-in is reported as a success; NOT_TESTABLE when the error redirect was never served.",
            citations: [Source.rfc6749Error, Source.authCodeFlow],
            rules: [#"{"match": {"endpoint": "authorize"}, "action": {"oauthError": {"error": "access_denied", "errorSubcode": "cancel", "message": "The user has cancelled the sign-in."}}, "times": "always"}"#],
            journey: [.signIn(1)],
            checks: [
                Check("reports-error", .reply(step: 1, .fails()), citation: Source.rfc6749Error),
                // The receipt names the rule that answered: this scenario's only rule, the access_denied redirect.
                Check("no-redemption", .noneAfter(trigger: ExchangeMatch.authorize.with(answer: .rules, "0", label: "the /authorize answered with the access_denied redirect"),
                                                  forbidden: .codeRedemption, reachedBy: 1), citation: Source.rfc6749Error),
            ]
        ),
        ConformanceCase(
            id: "protocol.prompt-none-login-required", title: "Silent sign-in without a session (prompt=none)", level: .required,
            service: "The app's silent browser sign-in (prompt=none) finds no session at the service: /authorize redirects to the app with error=login_required (AADSTS50058) and no code, without showing a page.",
            correctClient: "A correct app takes login_required (as interaction_required and consent_required) as the service asking for the user: it then shows the sign-in, an /authorize without prompt=none, and signs the user in.",
            verdictRule: "FAILED when the app never tries prompt=none, does not follow login_required with an interactive /authorize, or does not end signed in; SKIPPED for an adapter older than protocol 1.2, which answers signInSilently unsupported.",
            citations: [Source.promptNone, Source.errorHandling, Source.oidcAuthenticationError],
            rules: [],
            journey: [.signInSilently(1)],
            checks: [
                Check("tries-silently", .seen(Self.silentAuthorize, once: .authorize), citation: Source.promptNone),
                Check("goes-interactive", .follows(trigger: Self.silentAuthorize.with(answer: .errorCode, "AADSTS50058", label: "the prompt=none /authorize answered login_required (AADSTS50058)"),
                                                   then: ExchangeMatch.authorize.without(parameter: "prompt", "none", label: "an /authorize without prompt=none")),
                      citation: Source.errorHandling),
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.authCodeFlow),
            ]
        ),
    ]

    private static let silentAuthorize = ExchangeMatch.authorize.with(parameter: "prompt", "none", label: "an /authorize with prompt=none")
}
