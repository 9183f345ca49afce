import FoundationGaps
import LocatedJSON

extension Catalogue {
    /// A silent refresh refused with an error that asks for interaction: the app must go interactive
    /// (an /authorize follows) and end with a token.
    static func goesInteractive(id: String, title: String, code: String, suberror: String?, service: String, extraRules: [String] = [], citations: [Citation],
                                externalID: Bool = false) -> ConformanceCase {
        let refusal: [(String, JSONValue)] = [("code", .string(code))] + (suberror.map { [("suberror", .string($0))] } ?? [])
        var refused = ExchangeMatch.refresh.answered(400...400).with(answer: .error, "invalid_grant", label: "the refused refresh (\(code))")
        if let suberror { refused = refused.with(answer: .suberror, suberror, label: "the refused refresh (\(code), \(suberror))") }
        return ConformanceCase(
            id: id, title: title, level: .required, service: service,
            correctClient: "A correct app sees that interaction is required, starts an interactive sign-in, and ends with a token.",
            verdictRule: "FAILED when no /authorize follows the refusal or the app ends without a token; NOT_TESTABLE when no refresh was refused.",
            citations: citations,
            rules: [Rules.shortLivedTokens,
                    Rules.rule(match: [("endpoint", .string("token")), ("grantType", .string("refresh_token"))], action: [("oauthError", .object(refusal))])]
                + extraRules,
            journey: [.signIn(1), .getToken(2)],
            checks: [
                Check("goes-interactive", .follows(trigger: refused, then: .authorize), citation: citations[0]),
                Check("ends-with-token", .reply(step: 2, .succeeds), citation: citations[0]),
            ],
            externalID: externalID
        )
    }

    static let errorHandling: [ConformanceCase] = [
        ConformanceCase(
            id: "errors.consent-required", title: "Incremental consent required", level: .required,
            service: "The user consented to User.Read only; a silent request for Calendars.Read is refused with invalid_grant, suberror consent_required (AADSTS65001), and /authorize then shows the consent page.",
            correctClient: "A correct app goes interactive for the new scope, the user consents, and the app ends with a Calendars.Read token.",
            verdictRule: "FAILED when no /authorize follows the refusal or the app ends without the token; NOT_TESTABLE when the silent request was never refused.",
            citations: [Source.consent, Source.errorHandling],
            rules: [
                #"{"match": {"endpoint": "token", "grantType": "refresh_token", "scopes": ["Calendars.Read"]}, "action": {"oauthError": {"code": "AADSTS65001"}}}"#,
                #"{"match": {"endpoint": "authorize", "scopes": ["Calendars.Read"]}, "action": {"requireConsent": ["Calendars.Read"]}}"#
            ],
            journey: [.signIn(1), .getToken(2, ["Calendars.Read"])],
            checks: [
                Check("goes-interactive", .follows(trigger: ExchangeMatch.tokenRequest.answered(400...400).with(answer: .suberror, "consent_required", label: "the consent_required refusal"), then: .authorize), citation: Source.consent),
                Check("ends-with-token", .reply(step: 2, .succeeds), citation: Source.consent),
            ],
            consentedScopes: ["User.Read"]
        ),
        goesInteractive(
            id: "errors.mfa-basic-action", title: "MFA required (basic_action)", code: "AADSTS50076", suberror: "basic_action",
            service: "Conditional Access starts demanding multi-factor authentication: the silent refresh fails with invalid_grant, suberror basic_action (AADSTS50076), and the interactive sign-in shows the verification-code page.",
            extraRules: [#"{"match": {"endpoint": "authorize"}, "action": {"requireMFA": true}, "times": "always"}"#],
            citations: [Source.errorHandling, Source.errorCodes]
        ),
        ConformanceCase(
            id: "errors.claims-on-code-redemption", title: "Conditional Access claims at the token endpoint", level: .required,
            service: "The first code redemption is refused with invalid_grant, AADSTS50076 (multi-factor authentication required), and a claims challenge naming the Conditional Access policy (capolids), as recorded from login.microsoftonline.com for code grants; the sign-in that follows with those claims succeeds.",
            correctClient: "A correct client goes interactive again and passes the service's claims on the new /authorize (merged with its client capabilities), so that the user satisfies the policy; it does not report the refusal as the end, nor retry without the claims.",
            verdictRule: "FAILED when no /authorize carrying the challenge's claims follows the refusal, or the sign-in does not end with a token; NOT_TESTABLE when the redemption was never refused.",
            citations: [Source.claimsChallenge, Source.errorHandling],
            rules: [#"{"match": {"endpoint": "token", "grantType": "authorization_code", "nth": 1}, "action": {"oauthError": {"code": "AADSTS50076"}}}"#],
            journey: [.signIn(1)],
            checks: [
                Check("asks-with-claims", .follows(trigger: ExchangeMatch.codeRedemption.answered(400...400).with(answer: .errorCode, "AADSTS50076", label: "the code redemption refused with AADSTS50076 and a claims challenge"),
                                                   then: ExchangeMatch.authorize.with(parameter: "claims", containing: "capolids", label: "an /authorize carrying the challenge's claims (capolids)")),
                      citation: Source.claimsChallenge),
                Check("ends-with-token", .reply(step: 1, .succeeds), citation: Source.errorHandling),
            ]
        ),
        goesInteractive(
            id: "errors.bad-token", title: "Unusable refresh token (bad_token)", code: "AADSTS50034", suberror: "bad_token",
            service: "The silent refresh is refused with invalid_grant, suberror bad_token, as Entra ID answers a refresh token it cannot use at all.",
            citations: [Source.errorHandling, Source.errorCodes]
        ),
        ConformanceCase(
            id: "errors.invalid-client", title: "invalid_client is not retried", level: .required,
            service: "Every refresh is refused with HTTP 401 invalid_client (AADSTS7000218): the app registration does not accept the request as sent; retrying cannot help.",
            correctClient: "A correct app reports the error and does not keep resending the same request.",
            verdictRule: "FAILED when the app reports success or sends more than one further refresh after the refusal; NOT_TESTABLE when no refresh was refused.",
            citations: [Source.rfc6749TokenError, Source.resilience],
            rules: [Rules.shortLivedTokens, #"{"match": {"endpoint": "token", "grantType": "refresh_token"}, "action": {"oauthError": {"code": "AADSTS7000218", "status": 401}}, "times": "always"}"#],
            journey: [.signIn(1), .getToken(2), .getToken(3)],
            checks: [
                Check("reports-error", .reply(step: 2, .fails()), citation: Source.rfc6749TokenError),
                Check("no-retry-loop", .atMost(count: 1, match: .refresh, after: ExchangeMatch.refresh.answered(401...401, "the invalid_client refusal")), citation: Source.resilience),
            ],
            // AADSTS7000218 asks for a credential a confidential client always sends.
            clients: [.publicClient, .singlePageApp]
        ),
        ConformanceCase(
            id: "errors.declined-scopes", title: "Declined scopes", level: .required,
            service: "The user unticks Calendars.Read on the consent page: the token response is a success (HTTP 200) whose scope lacks Calendars.Read.",
            correctClient: "A correct client tells the app which scopes it got (or reports declined scopes); it never claims a scope that was not granted.",
            verdictRule: "FAILED when the app reports Calendars.Read among its scopes; NOT_TESTABLE when the sign-in never finished.",
            citations: [Source.consent, Source.rfc6749TokenError],
            rules: [#"{"match": {"endpoint": "token", "scopes": ["Calendars.Read"]}, "action": {"declineScopes": ["Calendars.Read"]}, "times": "always"}"#],
            journey: [.signIn(1, ["User.Read", "Calendars.Read"])],
            checks: [
                Check("narrow-scopes-reported", .reply(step: 1, ReplyExpectation(ok: nil, errors: [.declinedScopes], scopesLack: ["Calendars.Read"], label: "reports only the granted scopes")), citation: Source.consent),
            ],
            scopes: ["User.Read", "Calendars.Read"], consentedScopes: ["User.Read"]
        ),
        ConformanceCase(
            id: "errors.dead-grant-loop", title: "No retry loop on a revoked grant", level: .required,
            service: "Every refresh is refused with invalid_grant (AADSTS50173, the grant was revoked); interactive sign-ins still work.",
            correctClient: "A correct client never presents a refresh token again once it was refused with invalid_grant: it goes interactive instead.",
            verdictRule: "FAILED when a refused refresh token is presented again; NOT_TESTABLE when no refresh was refused or the app stopped before the last step.",
            citations: [Source.refreshTokens, Source.resilience],
            rules: [Rules.shortLivedTokens, #"{"match": {"endpoint": "token", "grantType": "refresh_token"}, "action": {"oauthError": {"code": "AADSTS50173"}}, "times": "always"}"#],
            journey: [.signIn(1), .getToken(2), .getToken(3)],
            checks: [
                Check("dead-token-not-reused", .neverRepresentsRefusedRefreshToken(reachedBy: 3), citation: Source.refreshTokens),
            ]
        ),
        ConformanceCase(
            id: "errors.consent-declined", title: "User declines consent", level: .required,
            service: "The user clicks Cancel on the consent page: /authorize redirects back with error=access_denied, AADSTS65004 'User declined to consent to access the app.'.",
            correctClient: "A correct app reports the refusal and does not call the token endpoint.",
            verdictRule: "FAILED when a code redemption follows the error redirect or the app reports success; NOT_TESTABLE when the refusal was never served.",
            citations: [Source.rfc6749Error, Source.consent],
            rules: [#"{"match": {"endpoint": "authorize"}, "action": {"oauthError": {"code": "AADSTS65004"}}, "times": "always"}"#],
            journey: [.signIn(1, ["User.Read", "Calendars.Read"])],
            checks: [
                Check("reports-error", .reply(step: 1, .fails()), citation: Source.rfc6749Error),
                Check("no-redemption", .noneAfter(trigger: ExchangeMatch.authorize.with(answer: .errorCode, "AADSTS65004", label: "the /authorize answered with AADSTS65004"),
                                                  forbidden: .codeRedemption, reachedBy: 1), citation: Source.rfc6749Error),
            ],
            scopes: ["User.Read", "Calendars.Read"], consentedScopes: ["User.Read"]
        ),
    ]

    static let lifecycle: [ConformanceCase] = [
        ConformanceCase(
            id: "lifecycle.cached-token-reuse", title: "Cached token reuse", level: .required,
            service: "The service issues an access token valid for an hour.",
            correctClient: "A correct client serves later requests for the same scopes from its cache, without a network call.",
            verdictRule: "FAILED when a token request is sent while the cached token is valid.",
            citations: [Source.accessTokens, Source.msalApplication],
            rules: [],
            journey: [.signIn(1), .getToken(2), .getToken(3)],
            checks: [
                Check("no-request-step-2", .noneDuring(step: 2, .tokenRequest), citation: Source.msalApplication),
                Check("no-request-step-3", .noneDuring(step: 3, .tokenRequest), citation: Source.msalApplication),
                Check("ends-with-token", .reply(step: 3, .succeeds), citation: Source.accessTokens),
            ]
        ),
        ConformanceCase(
            id: "lifecycle.short-expires-in", title: "Short expires_in", level: .required,
            service: "Access tokens live 2 minutes (expires_in=120).",
            correctClient: "A correct client does not hand out a token that expires within minutes: it refreshes before use (MSAL's 5-minute margin).",
            verdictRule: "FAILED when the second request is served from the cache without a refresh.",
            citations: [Source.accessTokens, Source.msalApplication],
            rules: [Rules.shortLivedTokens],
            journey: [.signIn(1), .getToken(2)],
            checks: [
                Check("refreshes-before-use", .someDuring(step: 2, .refresh), citation: Source.msalApplication),
                Check("ends-with-token", .reply(step: 2, .succeeds), citation: Source.accessTokens),
            ]
        ),
        ConformanceCase(
            id: "lifecycle.refresh-in", title: "refresh_in honoured", level: .required,
            service: "Token responses say refresh_in=2: the token stays valid for an hour, but the service wants it refreshed after 2 seconds (as for long-lived tokens during an outage).",
            correctClient: "A correct client keeps serving the cached token and refreshes once refresh_in has passed: at the next silent call (MSAL for Python) or in the background while serving the cached token (MSAL.NET, which spreads its refreshes over refresh_on ± 5 minutes, so that in a case this short it may refresh early or after the case; hence the recommended level of the timing checks).",
            verdictRule: "FAILED when a token step fails; WARNING when the client refreshes before refresh_in, or not from the wait on.",
            citations: [Source.accessTokens, Source.msalApplication, Source.msalNetProactiveRefresh],
            rules: [#"{"match": {"endpoint": "token"}, "action": {"tokenLifetimes": {"refreshIn": 2}}, "times": "always"}"#],
            journey: [.signIn(1), .getToken(2), .wait(3, 3), .getToken(4)],
            checks: [
                Check("serves-token", .reply(step: 2, .succeeds), citation: Source.accessTokens),
                Check("no-refresh-before", level: .recommended, .noneDuring(step: 2, .tokenRequest), citation: Source.msalNetProactiveRefresh),
                Check("refresh-after", level: .recommended, .someFrom(step: 3, .refresh), citation: Source.msalApplication),
                Check("ends-with-token", .reply(step: 4, .succeeds), citation: Source.accessTokens),
            ]
        ),
        ConformanceCase(
            id: "lifecycle.rotation", title: "Refresh token rotation", level: .required,
            service: "Every refresh returns a new refresh token.",
            correctClient: "A correct client replaces its refresh token with the newest one and presents that one next time.",
            verdictRule: "FAILED when a refresh presents an older refresh token than the last one issued; NOT_TESTABLE with fewer than two refreshes.",
            citations: [Source.rfc9700Rotation, Source.refreshTokens, Source.msalCache],
            rules: [Rules.shortLivedTokens],
            journey: [.signIn(1), .getToken(2), .getToken(3)],
            checks: [
                Check("presents-newest", .presentsNewestRefreshToken, citation: Source.rfc9700Rotation),
                Check("ends-with-token", .reply(step: 3, .succeeds), citation: Source.refreshTokens),
            ]
        ),
        goesInteractive(
            id: "lifecycle.revoked-grant", title: "Revoked grant (password changed)", code: "AADSTS50173", suberror: nil,
            service: "The silent refresh fails as after a password change: invalid_grant, AADSTS50173 'The provided grant has expired due to it being revoked'.",
            citations: [Source.refreshTokens, Source.errorCodes]
        ),
        goesInteractive(
            id: "lifecycle.refresh-token-expired", title: "Refresh token expired", code: "AADSTS700082", suberror: nil,
            service: "The silent refresh fails as for a refresh token unused for 90 days: invalid_grant, AADSTS700082.",
            citations: [Source.refreshTokens, Source.errorCodes]
        ),
        ConformanceCase(
            id: "lifecycle.clock-skew", title: "Service clock 15 minutes ahead", level: .required,
            service: "The service's clock runs 15 minutes ahead of the device: every token's iat and nbf lie in the device's future (the case's own virtual clock; other cases keep theirs).",
            correctClient: "A correct client relies on expires_in, not on comparing the token's times with its own clock: it signs in, reuses the token and calls Graph.",
            verdictRule: "FAILED when sign-in or the Graph call fails or the client refreshes a fresh token.",
            citations: [Source.accessTokens, Source.oidcIDToken],
            rules: [], clockOffset: 900,
            journey: [.signIn(1), .getToken(2), .callGraph(3)],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.oidcIDToken),
                Check("reuses-token", .noneDuring(step: 2, .tokenRequest), citation: Source.accessTokens),
                Check("calls-graph", .reply(step: 3, ReplyExpectation(ok: true, statuses: [200], label: "reads /me")), citation: Source.accessTokens),
            ],
            // A certificate client's assertion (10 minutes in MSAL) is outside its valid time range on a
            // service 15 minutes ahead: AADSTS700024 is the service's answer, whatever the client does.
            clients: [.publicClient, .singlePageApp, .secret]
        ),
        ConformanceCase(
            id: "lifecycle.sign-out", title: "Sign-out forgets the account", level: .required,
            service: "The service behaves normally.",
            correctClient: "After sign-out, a correct app holds no usable account: the next token request is interactive, never a silent refresh with the removed account's refresh token.",
            verdictRule: "FAILED when a refresh follows sign-out or no /authorize does.",
            citations: [Source.msalApplication, Source.refreshTokens],
            rules: [],
            journey: [.signIn(1), .signOut(2), .getToken(3)],
            checks: [
                Check("no-silent-refresh", .noneDuring(step: 3, .refresh), citation: Source.msalApplication),
                Check("goes-interactive", .someDuring(step: 3, .authorize), citation: Source.msalApplication),
                Check("ends-with-token", .reply(step: 3, .succeeds), citation: Source.msalApplication),
            ]
        ),
        ConformanceCase(
            id: "lifecycle.account-isolation", title: "Another user after sign-out", level: .required,
            service: "The service behaves normally: the tenant's first user signs in and reads /me, signs out, and the tenant's second user signs in on the same app (a shared device, or an account switch).",
            correctClient: "A correct app serves the second user with the second user's tokens only: its silent calls return their account, Graph answers about them, and no refresh token of the signed-out user is presented again.",
            verdictRule: "FAILED when a token or Graph step after the second sign-in answers for the first user, a refresh token issued before the sign-out is presented after it, or the two sign-ins share a state, nonce or code challenge; NOT_TESTABLE when the replies name no account, or the second sign-in signed in the first user again (an adapter that does not sign in a step's user).",
            citations: [Source.msalApplication, Source.signOut, Source.refreshTokens],
            rules: [Rules.shortLivedTokens],
            journey: [.signIn(1), .callGraph(2), .signOut(3), .signInAsSecondUser(4), .getToken(5), .callGraph(6)],
            checks: [
                Check("second-user-signs-in", .reply(step: 4, .succeeds), citation: Source.authCodeFlow),
                Check("token-for-second-user", .account(step: 5, sameAs: 4, notAs: 1), citation: Source.msalApplication),
                Check("graph-for-second-user", .account(step: 6, sameAs: 4, notAs: 1), citation: Source.signOut),
                Check("first-user-grant-unused", .noRefreshTokenFromBefore(step: 3, reachedBy: 5), citation: Source.refreshTokens),
                Check("fresh-per-sign-in", .freshPerSignIn, citation: Source.freshPerRequest),
            ]
        ),
    ]
}
