import FoundationGaps
import LocatedJSON

extension Catalogue {
    private static let graphCall = [JourneyStep.signIn(1), .callGraph(2)]

    /// A Graph error the app must not loop on: it reports the error after at most one more call.
    private static func graphRefusal(id: String, title: String, status: Int, code: String, message: String, service: String, correctClient: String, citations: [Citation]) -> ConformanceCase {
        ConformanceCase(
            id: id, title: title, level: .required, service: service, correctClient: correctClient,
            verdictRule: "FAILED when the app reports success, or calls Graph more than once more after the \(status); NOT_TESTABLE when the \(status) was never served.",
            citations: citations,
            rules: [Rules.rule(match: [("endpoint", .string("graph"))],
                               action: [("graphError", .object([("status", .int(status)), ("code", .string(code)), ("message", .string(message))]))],
                               times: .string("always"))],
            journey: graphCall,
            checks: [
                Check("reports-error", .reply(step: 2, ReplyExpectation(ok: false, statuses: [status], label: "reports the \(status)")), citation: citations[0]),
                Check("no-retry-loop", .atMost(count: 1, match: .graph, after: ExchangeMatch.graph.answered(status...status, "the Graph \(status)")), citation: citations[0]),
            ]
        )
    }

    /// Graph throttles or fails once with Retry-After: the next call waits, then the app gets its data.
    private static func graphRetryAfter(id: String, title: String, status: Int, retryAfter: Int, service: String, citations: [Citation]) -> ConformanceCase {
        ConformanceCase(
            id: id, title: title, level: .required, service: service,
            correctClient: "A correct app (or its Graph SDK's retry handler) waits Retry-After seconds, calls again and ends with the data.",
            verdictRule: "FAILED when the next Graph call comes sooner than Retry-After or the app ends without the data; NOT_TESTABLE when the \(status) was never served.",
            citations: citations,
            rules: [Rules.rule(match: [("endpoint", .string("graph")), ("nth", .int(1))],
                               action: [("serviceError", .object([("status", .int(status)), ("retryAfter", .int(retryAfter))]))])],
            journey: graphCall,
            checks: [
                Check("waits-retry-after", .waits(trigger: ExchangeMatch.graph.answered(status...status, "the Graph \(status)"), next: .graph, seconds: Double(retryAfter), reachedBy: nil), citation: citations[0]),
                Check("ends-with-data", .reply(step: 2, ReplyExpectation(ok: true, statuses: [200], label: "reads /me")), citation: citations[0]),
            ]
        )
    }

    private static let challenged = ExchangeMatch.graph.answered(401...401).with(answer: .wwwAuthenticate, label: "the CAE challenge (401 insufficient_claims)")
    /// The challenge asks for `nbf` (`GraphError.claimsChallenge`): a client that merges it with its cp1
    /// declaration sends both; one that sends cp1 alone has dropped the challenge (MSAL's claims merge:
    /// MSAL for Python `_merge_claims_challenge_and_capabilities`, MSAL.NET `ClaimsHelper.GetMergedClaimsAndClientCapabilities`).
    private static let tokenWithClaims = ExchangeMatch.tokenRequest.with(parameter: "claims", containing: "nbf", label: "a token request carrying the challenge's claims (nbf)")
    private static let declaresCP1 = ExchangeMatch("a request declaring the cp1 client capability", pathContains: "/").with(parameter: "claims", containing: "cp1", label: "a request declaring the cp1 client capability")

    static let graph: [ConformanceCase] = [
        ConformanceCase(
            id: "graph.cae-claims-challenge", title: "CAE claims challenge", level: .required,
            service: "Continuous access evaluation: the first Graph call is answered 401 with WWW-Authenticate error=\"insufficient_claims\" and a base64 claims challenge, as after a revoked session. Graph sends it only to tokens whose client declared cp1.",
            correctClient: "A correct app declares cp1, decodes the challenge, gets a new token passing those claims (bypassing the cache), and retries the call once.",
            verdictRule: "FAILED when cp1 is never declared, no token request carries the challenge's claims (cp1 alone is not them), or the app ends without the data; NOT_TESTABLE when no challenge was served.",
            citations: [Source.claimsChallenge, Source.cae],
            rules: [#"{"match": {"endpoint": "graph", "nth": 1}, "action": {"claimsChallenge": {}}}"#],
            journey: graphCall,
            checks: [
                Check("declares-cp1", .seen(declaresCP1, once: .authorize), citation: Source.cae),
                Check("passes-claims", .follows(trigger: challenged, then: tokenWithClaims), citation: Source.claimsChallenge),
                Check("retries-once", .follows(trigger: challenged, then: ExchangeMatch.graph.answered(200...200, "a successful Graph call")), citation: Source.claimsChallenge),
                Check("ends-with-data", .reply(step: 2, ReplyExpectation(ok: true, statuses: [200], label: "reads /me")), citation: Source.claimsChallenge),
            ]
        ),
        ConformanceCase(
            id: "graph.second-challenge", title: "Claims challenge twice", level: .required,
            service: "Graph answers the call and its retry with the CAE challenge (the new token still does not satisfy it).",
            correctClient: "A correct app retries once only, then reports the error: it never loops between the token endpoint and Graph.",
            verdictRule: "FAILED when the app calls Graph more than once after the first challenge, never passes the challenge's claims, or reports success; NOT_TESTABLE when no challenge was served.",
            citations: [Source.claimsChallenge, Source.cae],
            rules: [#"{"match": {"endpoint": "graph"}, "action": {"claimsChallenge": {}}, "times": 2}"#, #"{"match": {"endpoint": "graph", "after": 2}, "action": {"graphError": {"status": 401, "code": "InvalidAuthenticationToken", "message": "Continuous access evaluation resulted in challenge with result: InteractionRequired and code: TokenIssuedBeforeRevocationTimestamp"}}, "times": "always"}"#],
            journey: graphCall,
            checks: [
                Check("reports-error", .reply(step: 2, ReplyExpectation(ok: false, label: "reports the error")), citation: Source.claimsChallenge),
                Check("retries-once", .atMost(count: 1, match: .graph, after: challenged), citation: Source.claimsChallenge),
                Check("passes-claims", .follows(trigger: challenged, then: tokenWithClaims), citation: Source.claimsChallenge),
            ]
        ),
        graphRefusal(
            id: "graph.invalid-token-401", title: "Graph 401 invalid token", status: 401, code: "InvalidAuthenticationToken", message: "Access token validation failure. Invalid audience.",
            service: "Graph refuses every call with 401 InvalidAuthenticationToken (no claims challenge): the token is unusable for Graph.",
            correctClient: "A correct app reports the error; at most one retry with a fresh token, never a loop.",
            citations: [Source.rfc6750, Source.graphErrors]
        ),
        graphRefusal(
            id: "graph.forbidden-403", title: "Graph 403 access denied", status: 403, code: "Authorization_RequestDenied", message: "Insufficient privileges to complete the operation.",
            service: "Graph refuses every call with 403 Authorization_RequestDenied: the token is valid but lacks a permission.",
            correctClient: "A correct app reports the error (403 is not retriable) and does not hammer Graph.",
            citations: [Source.graphErrors, Source.rfc6750]
        ),
        graphRetryAfter(
            id: "graph.throttled-429", title: "Graph 429 with Retry-After", status: 429, retryAfter: 2,
            service: "Graph throttles the app: the first call gets 429 TooManyRequests with Retry-After: 2.",
            citations: [Source.graphThrottling, Source.rfc6585]
        ),
        graphRetryAfter(
            id: "graph.service-unavailable-503", title: "Graph 503 with Retry-After", status: 503, retryAfter: 2,
            service: "Graph is briefly unavailable: the first call gets 503 serviceNotAvailable with Retry-After: 2.",
            citations: [Source.graphErrors, Source.graphThrottling]
        ),
        ConformanceCase(
            id: "graph.503-no-retry-after", title: "Graph 503 without Retry-After", level: .required,
            service: "Graph has an outage: every call gets 503 serviceNotAvailable, without Retry-After.",
            correctClient: "A correct app (or its Graph SDK's retry handler) retries a few times with a back-off of a second or more (Graph's guidance: exponential back-off when no Retry-After is given), then reports the error: it never retries at once, and never without end.",
            verdictRule: "FAILED when a retry comes within a second of the 503 before it, more than three retries follow the first 503, or the app reports success; NOT_TESTABLE when no 503 was served.",
            citations: [Source.graphThrottling, Source.resilience],
            rules: [#"{"match": {"endpoint": "graph"}, "action": {"serviceError": {"status": 503}}, "times": "always"}"#],
            journey: [.signIn(1), .callGraph(2, deadline: 30)],
            checks: [
                Check("backs-off", .waitsAfterEach(trigger: ExchangeMatch.graph.answered(503...503, "a Graph 503"), next: .graph, seconds: 1, reachedBy: 2), citation: Source.graphThrottling),
                Check("bounded-retries", .atMost(count: 3, match: .graph, after: ExchangeMatch.graph.answered(503...503, "the first Graph 503")), citation: Source.resilience),
                Check("reports-error", .reply(step: 2, ReplyExpectation(ok: false, statuses: [503], label: "reports the 503")), citation: Source.graphThrottling),
            ]
        ),
        ConformanceCase(
            id: "graph.dropped-connection", title: "Dropped Graph connection", level: .required,
            service: "The connection to Graph is closed without an answer on the first call; the next call succeeds.",
            correctClient: "A correct app reports a network error for that call (or retries it once) and reads /me on the next call.",
            verdictRule: "FAILED when step 2 makes no Graph call, the app hangs or crashes on the dropped connection, or the next call fails.",
            citations: [Source.resilience, Source.graphErrors],
            rules: [#"{"match": {"endpoint": "graph", "nth": 1}, "action": {"dropConnection": true}}"#],
            journey: [.signIn(1), .callGraph(2, deadline: 15), .callGraph(3)],
            checks: [
                Check("calls-graph", .someDuring(step: 2, .graph), citation: Source.resilience),
                Check("survives-drop", .reply(step: 2, ReplyExpectation(ok: nil, label: "answers")), citation: Source.resilience),
                Check("recovers", .reply(step: 3, ReplyExpectation(ok: true, statuses: [200], label: "reads /me")), citation: Source.resilience),
            ]
        ),
        ConformanceCase(
            id: "graph.paging", title: "Paged collection (@odata.nextLink)", level: .required,
            service: "Graph answers a collection in pages: the user's calendar asked with $top=5 comes as pages of five events, each with an @odata.nextLink (an absolute URL carrying $skip) to the next, until the last page, which has none.",
            correctClient: "A correct app follows each @odata.nextLink as given, without building URLs of its own, until a page has none; it asks for each page once, stops there, and has every item of the collection.",
            verdictRule: "FAILED when the app stops before the last page, requests a page again or anything after the last page, or reports another number of items than the pages held; NOT_TESTABLE when the collection came in one page; SKIPPED for an adapter older than protocol 1.2, which answers listGraph unsupported.",
            citations: [Source.graphPaging, Source.graphThrottling],
            rules: [],
            journey: [.signIn(1, Self.calendarScopes), .listGraph(2, "/v1.0/me/events?$top=5&$select=subject,start", scopes: Self.calendarScopes)],
            checks: [
                Check("follows-every-page", .pages(step: 2, .followsEveryLink), citation: Source.graphPaging),
                Check("stops-at-last-page", .pages(step: 2, .stopsAtLastPage), citation: Source.graphPaging),
                Check("reports-every-item", .pages(step: 2, .reportsEveryItem), citation: Source.graphPaging),
            ],
            scopes: Self.calendarScopes
        ),
    ]

    private static let calendarScopes = ["User.Read", "Calendars.Read"]

    static let b2c: [ConformanceCase] = [
        ConformanceCase(
            id: "b2c.password-reset", title: "Forgot password (AADB2C90118)", level: .required,
            service: "Azure AD B2C: the user clicks 'Forgot your password?' on the sign-up-or-sign-in page; B2C redirects back with error=access_denied and AADB2C90118.",
            correctClient: "A correct app starts the password-reset user flow (a new /authorize with the reset policy) instead of reporting a failure.",
            verdictRule: "FAILED when no /authorize for the reset policy follows (or the app hangs without one); NOT_TESTABLE when the 90118 redirect was never served.",
            citations: [Source.b2cReset, Source.b2cErrors],
            rules: [#"{"match": {"endpoint": "authorize", "policy": "B2C_1_susi", "nth": 1}, "action": {"oauthError": {"code": "AADB2C90118"}}}"#],
            journey: [.signIn(1, [], policy: "B2C_1_susi")],
            checks: [
                Check("starts-reset-flow", .follows(trigger: ExchangeMatch("the /authorize answered with AADB2C90118", pathContains: "/authorize", policy: "B2C_1_susi", answer: [.errorCode: "AADB2C90118"]),
                                                    then: Self.resetAuthorize), citation: Source.b2cReset),
                // Whether the reset flow then completes depends on the browser automation, not on the app.
                Check("answers", .reply(step: 1, ReplyExpectation(ok: nil, waitingIsFine: true, label: "answers (signed in after the reset, or an error)")), citation: Source.b2cReset),
            ],
            scopes: [], b2c: true
        ),
        ConformanceCase(
            id: "b2c.cancel", title: "User cancels (AADB2C90091)", level: .required,
            service: "Azure AD B2C: the user clicks Cancel on the sign-in page; B2C redirects back with error=access_denied and AADB2C90091.",
            correctClient: "A correct app reports the cancellation (user_canceled) and does not call the token endpoint.",
            verdictRule: "FAILED when a code redemption follows or the app reports anything but a cancellation; NOT_TESTABLE when the 90091 redirect was never served.",
            citations: [Source.b2cErrors],
            rules: [#"{"match": {"endpoint": "authorize", "policy": "B2C_1_susi"}, "action": {"oauthError": {"code": "AADB2C90091"}}, "times": "always"}"#],
            journey: [.signIn(1, [], policy: "B2C_1_susi")],
            checks: [
                Check("reports-cancel", .reply(step: 1, .fails(.userCanceled)), citation: Source.b2cErrors),
                Check("no-redemption", .noneAfter(trigger: ExchangeMatch("the /authorize answered with AADB2C90091", pathContains: "/authorize", policy: "B2C_1_susi", answer: [.errorCode: "AADB2C90091"]),
                                                  forbidden: .codeRedemption, reachedBy: 1), citation: Source.b2cErrors),
            ],
            scopes: [], b2c: true
        ),
        ConformanceCase(
            id: "b2c.edit-profile", title: "Profile editing user flow", level: .required,
            service: "Azure AD B2C: after signing in with the sign-up-or-sign-in flow, the user runs the profile-editing flow (B2C_1_edit_profile) from the app; its tokens name that policy (tfp) and the same user.",
            correctClient: "A correct app runs the profile-editing flow at its own policy authority, ends it with tokens, and keeps the user signed in (MSAL keys B2C accounts per policy).",
            verdictRule: "FAILED when the first sign-in fails, or the profile-editing flow never reaches B2C_1_edit_profile's /authorize and token endpoint or ends without tokens.",
            citations: [Source.b2cEditProfile, Source.b2cErrors],
            rules: [],
            journey: [.signIn(1, [], policy: "B2C_1_susi"), .signIn(2, [], policy: "B2C_1_edit_profile")],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.b2cEditProfile),
                Check("runs-edit-policy", .someDuring(step: 2, Self.editProfileAuthorize), citation: Source.b2cEditProfile),
                Check("redeems-edit-code", .someDuring(step: 2, Self.editProfileRedemption), citation: Source.b2cEditProfile),
                Check("ends-with-tokens", .reply(step: 2, .succeeds), citation: Source.b2cEditProfile),
            ],
            scopes: [], b2c: true
        ),
        ConformanceCase(
            id: "b2c.cancel-in-reset", title: "User cancels inside the password reset", level: .required,
            service: "Azure AD B2C: the user clicks 'Forgot your password?' (AADB2C90118), then Cancel on the password-reset user flow's page; B2C redirects back with error=access_denied and AADB2C90091.",
            correctClient: "A correct app starts the reset flow, then reports the cancellation (user_canceled): it neither starts the reset again nor redeems a code.",
            verdictRule: "FAILED when the app reports anything but a cancellation, starts the reset flow again or redeems a code after the cancel; NOT_TESTABLE when the reset flow was never started.",
            citations: [Source.b2cErrors, Source.b2cReset],
            rules: [
                #"{"match": {"endpoint": "authorize", "policy": "B2C_1_susi", "nth": 1}, "action": {"oauthError": {"code": "AADB2C90118"}}}"#,
                #"{"match": {"endpoint": "authorize", "policy": "B2C_1_reset"}, "action": {"oauthError": {"code": "AADB2C90091"}}, "times": "always"}"#
            ],
            journey: [.signIn(1, [], policy: "B2C_1_susi")],
            checks: [
                Check("reports-cancel", .reply(step: 1, .fails(.userCanceled)), citation: Source.b2cErrors),
                Check("no-second-reset", .atMost(count: 0, match: Self.resetAuthorize, after: Self.cancelledReset), citation: Source.b2cErrors),
                Check("no-redemption", .noneAfter(trigger: Self.cancelledReset, forbidden: .codeRedemption, reachedBy: 1), citation: Source.b2cErrors),
            ],
            scopes: [], b2c: true
        ),
    ]

    private static let editProfileAuthorize = ExchangeMatch("an /authorize for the B2C_1_edit_profile policy", pathContains: "/authorize", policy: "B2C_1_edit_profile")
    private static let editProfileRedemption = ExchangeMatch("a code redemption at the B2C_1_edit_profile policy", pathContains: "/token",
                                                             grantTypes: ["authorization_code"], policy: "B2C_1_edit_profile")
    private static let resetAuthorize = ExchangeMatch("an /authorize for the B2C_1_reset policy", pathContains: "/authorize", policy: "B2C_1_reset")
    private static let cancelledReset = ExchangeMatch("the reset flow's /authorize answered with AADB2C90091", pathContains: "/authorize", policy: "B2C_1_reset",
                                                      answer: [.errorCode: "AADB2C90091"])
}
