import FoundationGaps
import IdentityPlatform
import LocatedJSON

extension Catalogue {
    /// A throttled or failing refresh: the client must not send another token request before the
    /// service's wait is over, and must get a token once it is.
    private static func throttledRefresh(id: String, title: String, level: CaseLevel = .required, status: Int, retryAfter: Int?, format: String = "seconds",
                                         minimumWait: Double, resumesLevel: CaseLevel? = nil, service: String, correctClient: String, citations: [Citation]) -> ConformanceCase {
        var serviceError: [(String, JSONValue)] = [("status", .int(status))]
        if let retryAfter { serviceError.append(("retryAfter", .int(retryAfter))) }
        if format != "seconds" { serviceError.append(("retryAfterFormat", .string(format))) }
        let trigger = ExchangeMatch.refresh.answered(status...status, "the \(status) refresh")
        var journey: [JourneyStep] = [.signIn(1), .getToken(2), .getToken(3)]
        var checks = [Check("no-early-retry", .waits(trigger: trigger, next: .tokenRequest, seconds: minimumWait, reachedBy: 3), citation: citations[0])]
        if let retryAfter {
            // An HTTP-date has whole seconds and the service rounds it up, so it lies up to a second
            // further than `retryAfter`: the app idles until the date has certainly passed.
            let idle = Double(retryAfter) + (format == "httpDate" ? 1 : 0)
            journey += [.wait(4, idle), .getToken(5)]
            checks.append(Check("resumes-after-wait", level: resumesLevel, .reply(step: 5, .succeeds), citation: citations[0]))
        }
        return ConformanceCase(
            id: id, title: title, level: level, service: service, correctClient: correctClient,
            verdictRule: "FAILED when a token request follows the \(status) sooner than \(Judge.seconds(minimumWait))" + (retryAfter == nil ? "" : ", or the app has no token once the wait is over") + "; NOT_TESTABLE when the \(status) was never served or the app stopped before asking again.",
            citations: citations,
            rules: [Rules.shortLivedTokens, Rules.rule(match: [("endpoint", .string("token")), ("grantType", .string("refresh_token")), ("nth", .int(1))],
                                                       action: [("serviceError", .object(serviceError))])],
            journey: journey, checks: checks
        )
    }

    static let resilience: [ConformanceCase] = [
        throttledRefresh(
            id: "resilience.retry-after-seconds", title: "429 with Retry-After in seconds", status: 429, retryAfter: 3, minimumWait: 3,
            service: "The token endpoint throttles the client: HTTP 429 with Retry-After: 3 and a temporarily_unavailable body.",
            correctClient: "A correct client sends no token request for 3 seconds (MSAL answers from its throttling cache), then succeeds.",
            citations: [Source.resilience, Source.msalThrottling, Source.rfc6585]
        ),
        throttledRefresh(
            id: "resilience.retry-after-http-date", title: "429 with Retry-After as an HTTP-date", status: 429, retryAfter: 3, format: "httpDate", minimumWait: 3,
            resumesLevel: .recommended,
            service: "The token endpoint throttles the client: HTTP 429 with Retry-After given as an HTTP-date 3 seconds ahead, rounded up to the next whole second (RFC 9110 allows both forms).",
            correctClient: "A correct client waits until that date; resuming right after it is recommended (MSAL for Python does not read dates and waits its 60-second default).",
            citations: [Source.rfc9110RetryAfter, Source.msalThrottling, Source.resilience]
        ),
        throttledRefresh(
            id: "resilience.503-retry-after", title: "503 with Retry-After", status: 503, retryAfter: 2, minimumWait: 2,
            service: "The token endpoint has an outage: HTTP 503 temporarily_unavailable with Retry-After: 2.",
            correctClient: "A correct client waits the 2 seconds before the next token request, then succeeds.",
            citations: [Source.resilience, Source.msalThrottling]
        ),
        throttledRefresh(
            id: "resilience.503-no-retry-after", title: "503 without Retry-After", status: 503, retryAfter: nil, minimumWait: 1,
            service: "The token endpoint has an outage: HTTP 503 temporarily_unavailable without Retry-After.",
            correctClient: "A correct client backs off: no retry sooner than a second after the 503 (MSAL.NET retries after 1 second; MSAL for Python answers from its throttling cache for 60 seconds for public clients).",
            citations: [Source.msalNetRetry, Source.resilience, Source.msalThrottling]
        ),
        ConformanceCase(
            id: "resilience.dropped-connection", title: "Dropped connection", level: .required,
            service: "The connection is closed without an answer on the first refresh; the next request succeeds.",
            correctClient: "A correct client reports a network error for that call (or retries once) and succeeds on the next call.",
            verdictRule: "FAILED when the app hangs or crashes on the dropped connection, or the next call fails.",
            citations: [Source.resilience],
            rules: [Rules.shortLivedTokens, #"{"match": {"endpoint": "token", "grantType": "refresh_token", "nth": 1}, "action": {"dropConnection": true}}"#],
            journey: [.signIn(1), .getToken(2, deadline: 15), .getToken(3)],
            checks: [
                Check("survives-drop", .reply(step: 2, ReplyExpectation(ok: nil, label: "answers")), citation: Source.resilience),
                Check("recovers", .reply(step: 3, .succeeds), citation: Source.resilience),
            ]
        ),
        ConformanceCase(
            id: "resilience.hung-token-endpoint", title: "Hung token endpoint", level: .required,
            service: "The first refresh is not answered for 8 seconds, as from an overloaded service behind a load balancer.",
            correctClient: "A correct client gives up on the request after its HTTP timeout (FAKEENTRA_STEP_TIMEOUT=2 here) and either reports the failure (timeout, or network, server_error, other) or retries it once and serves the token (MSAL.NET retries a timed-out token request after a second); the next step succeeds.",
            verdictRule: "FAILED when the app is still waiting at the step's 6-second deadline, or the next call fails.",
            citations: [Source.resilience, Source.msalNetRetry],
            rules: [Rules.shortLivedTokens, #"{"match": {"endpoint": "token", "grantType": "refresh_token", "nth": 1}, "action": {"delay": 8000}}"#],
            journey: [.signIn(1), .getToken(2, deadline: 6), .getToken(3)],
            checks: [
                Check("gives-up-in-time", .reply(step: 2, ReplyExpectation(ok: nil, errors: [.timeout, .network, .serverError, .other],
                                                                         label: "answers before the deadline: the failure, or a token after a retry")),
                      citation: Source.msalNetRetry),
                Check("recovers", .reply(step: 3, .succeeds), citation: Source.resilience),
            ],
            httpTimeout: 2
        ),
        ConformanceCase(
            id: "resilience.device-slow-down", title: "slow_down in the device flow", level: .required,
            service: "The device authorization answers interval=1 and the first token poll is answered slow_down, while the user enters the code on /devicelogin and signs in.",
            correctClient: "A correct client adds 5 seconds to its polling interval for that poll and every later one (MSAL for Python: 1 s becomes 6 s), keeps polling and gets the token once the user approved.",
            verdictRule: "FAILED when a poll after the slow_down comes sooner than interval + 5 s after the one before, or the app ends without a token; NOT_TESTABLE when no poll was answered slow_down; SKIPPED when the adapter has no device flow.",
            citations: [Source.rfc8628SlowDown, Source.deviceCodeFlow, Source.msalDeviceFlow],
            rules: [
                #"{"note": "Polls every second, so the slow_down's extra 5 seconds dominate the case's time.", "match": {"endpoint": "devicecode"}, "action": {"deviceCodeInterval": 1}, "times": "always"}"#,
                #"{"match": {"endpoint": "token", "grantType": "device_code", "nth": 1}, "action": {"oauthError": {"error": "slow_down", "message": "OAuth 2.0 device flow error. Authorization is pending. Polling too frequently: wait for the interval before polling again."}}}"#
            ],
            journey: [.signInDevice(1, deadline: 25)],
            checks: [
                Check("backs-off", .backsOffAfterSlowDown(reachedBy: 1), citation: Source.rfc8628SlowDown),
                Check("ends-with-token", .reply(step: 1, .succeeds), citation: Source.deviceCodeFlow),
            ]
        ),
        ConformanceCase(
            id: "resilience.device-pending-interval", title: "authorization_pending polled at the interval", level: .required,
            service: "The device authorization answers interval=2, and the first three token polls are answered authorization_pending (AADSTS70016) while the user enters the code on /devicelogin and signs in.",
            correctClient: "A correct client waits the interval between two polls while the answer is authorization_pending (RFC 8628: 5 seconds when no interval is given), then gets the token once the user approved.",
            verdictRule: "FAILED when a poll comes sooner than the interval after an authorization_pending, or the app ends without a token; NOT_TESTABLE when no poll was answered authorization_pending; SKIPPED when the adapter has no device flow.",
            citations: [Source.rfc8628Polling, Source.deviceCodeFlow, Source.msalDeviceFlow],
            rules: [
                #"{"match": {"endpoint": "devicecode"}, "action": {"deviceCodeInterval": 2}, "times": "always"}"#,
                Rules.devicePoll(answered: .authorizationPending(), times: .int(3))
            ],
            journey: [.signInDevice(1, deadline: 25)],
            checks: [
                Check("waits-interval", .waitsAfterEach(trigger: Self.pendingPoll, next: .devicePoll, seconds: 2, reachedBy: 1), citation: Source.rfc8628Polling),
                Check("ends-with-token", .reply(step: 1, .succeeds), citation: Source.deviceCodeFlow),
            ]
        ),
        deviceFlowEnds(
            id: "resilience.device-code-expired", title: "Device code expired", refusal: .deviceCodeExpired(),
            service: "Every device-code poll is answered expired_token (AADSTS70020): the user did not finish before the code expired.",
            correctClient: "A correct client stops polling at the first expired_token and reports that the sign-in did not complete (it may offer a new code).",
            reports: .fails()
        ),
        deviceFlowEnds(
            id: "resilience.device-code-declined", title: "Device sign-in declined", refusal: .deviceAuthorizationDeclined(),
            service: "Every device-code poll is answered authorization_declined (AADSTS70000): the user chose Cancel on the verification page.",
            correctClient: "A correct client stops polling and reports that the user cancelled (user_canceled), not a failure to retry.",
            reports: .fails(.userCanceled)
        ),
    ]

    private static let pendingPoll = ExchangeMatch.devicePoll.answered(400...400).with(answer: .error, "authorization_pending", label: "a poll answered authorization_pending")

    /// A device-code poll answered with an error that ends the flow (worded as the platform's own answer):
    /// the client must stop polling and say so.
    private static func deviceFlowEnds(id: String, title: String, refusal: IdentityError, service: String, correctClient: String,
                                       reports: ReplyExpectation) -> ConformanceCase {
        let error = refusal.error
        let ended = ExchangeMatch.devicePoll.answered(400...400).with(answer: .error, error, label: "the \(error) poll")
        return ConformanceCase(
            id: id, title: title, level: .required, service: service, correctClient: correctClient,
            verdictRule: "FAILED when the client polls again after the \(error), or reports a success\(reports.errors.isEmpty ? "" : " or another error than " + reports.errors.map(\.rawValue).joined(separator: ", ")); NOT_TESTABLE when no poll was answered \(error); SKIPPED when the adapter has no device flow.",
            citations: [Source.rfc8628Errors, Source.deviceCodeFlow],
            rules: [Rules.devicePoll(answered: refusal, times: .string("always"))],
            journey: [.signInDevice(1, deadline: 20)],
            checks: [
                Check("stops-polling", .noneAfter(trigger: ended, forbidden: .devicePoll, reachedBy: 1), citation: Source.rfc8628Errors),
                Check("reports-end", .reply(step: 1, reports), citation: Source.deviceCodeFlow),
            ]
        )
    }
}
