/// Apps that sign External ID customers in on their own screens through the native authentication API
/// (MSAL for iOS/macOS and Android's native authentication). The customer's inputs come from the
/// journey: a password, or the code read from the outbox as a person reads their mail.
extension Catalogue {
    static let nativeAuth: [ConformanceCase] = [
        ConformanceCase(
            id: "nativeauth.sign-in-refresh", title: "Native sign-in with a password, then a silent refresh", level: .required,
            service: "Microsoft Entra External ID's native authentication API: initiate, challenge (password), then the token endpoint with the password; access tokens live 2 minutes, so the next token request needs a refresh.",
            correctClient: "A correct app signs the customer in on its own screens, then gets the next token from the refresh token, silently, without a second sign-in.",
            verdictRule: "FAILED when the native sign-in fails, or the second token comes from another sign-in instead of a refresh.",
            citations: [Source.nativeAuthAPI, Source.msalIOSTokenValidator],
            rules: [Rules.shortLivedTokens],
            journey: [.signInNative(1, .password), .getToken(2)],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.nativeAuthAPI),
                Check("refreshes-silently", .someDuring(step: 2, .refresh), citation: Source.msalApplication),
                Check("no-second-sign-in", .noneDuring(step: 2, .nativeStart), citation: Source.msalApplication),
                Check("ends-with-token", .reply(step: 2, .succeeds), citation: Source.nativeAuthAPI),
            ],
            nativeCustomer: .password
        ),
        ConformanceCase(
            id: "nativeauth.code-expired", title: "The first one-time code expired", level: .required,
            service: "Microsoft Entra External ID: the customer's first code reaches the service after it expired: the token request with it (grant_type=oob) is answered 400 invalid_grant, suberror invalid_oob_value, AADSTS50181.",
            correctClient: "A correct app keeps its flow (MSAL keeps the code-required state and its continuation token), asks for a new code at the challenge endpoint, and completes with it; it does not start the sign-in over.",
            verdictRule: "FAILED when the sign-in does not complete, no new code is asked for, or the app starts a new sign-in after the refusal.",
            citations: [Source.nativeAuthAPI, Source.msalIOSSubmitCodeFailure, Source.msalIOSResendCode],
            rules: [#"{"match": {"endpoint": "token", "grantType": "oob", "nth": 1}, "action": {"oauthError": {"code": "AADSTS50181"}}}"#],
            journey: [.signInNative(1, .code)],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.nativeAuthAPI),
                Check("asks-new-code", .follows(trigger: .refusedCode, then: .codeRequest), citation: Source.msalIOSResendCode),
                Check("keeps-its-flow", .noneAfter(trigger: .refusedCode, forbidden: .nativeStart, reachedBy: 1), citation: Source.msalIOSSubmitCodeFailure),
            ],
            nativeCustomer: .emailCode
        ),
        ConformanceCase(
            id: "nativeauth.wrong-code", title: "A mistyped one-time code", level: .required,
            service: "Microsoft Entra External ID: the customer types a wrong code first: the token request is answered 400 invalid_grant, suberror invalid_oob_value, AADSTS50181, and the flow stays open.",
            correctClient: "A correct app tells the customer the code was wrong and lets them try again in the same flow, with the continuation token it holds; it does not start the sign-in over.",
            verdictRule: "FAILED when the sign-in does not complete, or the app starts a new sign-in after the wrong code instead of submitting again.",
            citations: [Source.nativeAuthAPI, Source.msalIOSSubmitCodeFailure],
            rules: [],
            journey: [.signInNative(1, .code, firstCode: .mistyped)],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.nativeAuthAPI),
                Check("submits-again", .follows(trigger: .refusedCode, then: .codeSubmission.answered(200...200, "a code accepted")), citation: Source.msalIOSSubmitCodeFailure),
                Check("keeps-its-flow", .noneAfter(trigger: .refusedCode, forbidden: .nativeStart, reachedBy: 1), citation: Source.msalIOSSubmitCodeFailure),
            ],
            nativeCustomer: .emailCode
        ),
        ConformanceCase(
            id: "nativeauth.resend-throttled", title: "Asking for a new code too often (429)", level: .required,
            service: "Microsoft Entra External ID: the customer taps \"resend code\" once the first code was sent; the service throttles code requests: the challenge is answered 429 with Retry-After: 60.",
            correctClient: "A correct app tells the customer to wait, keeps the code already sent and its flow (MSAL keeps the state it had when a resend fails), and completes with that code; it asks for no new code before the Retry-After.",
            verdictRule: "FAILED when the sign-in does not complete with the first code, or the app asks for a code again before 60 seconds passed.",
            citations: [Source.msalIOSResendCode, Source.rfc6585, Source.nativeAuthAPI],
            rules: [#"{"match": {"endpoint": "nativeauth", "path": "/*/*/*/challenge", "after": 1}, "action": {"serviceError": {"status": 429, "retryAfter": 60}}, "times": "always"}"#],
            journey: [.signInNative(1, .code, firstCode: .resent)],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.msalIOSResendCode),
                Check("waits-retry-after", .waits(trigger: .codeRequest.answered(429...429, "a code request answered 429"), next: .codeRequest, seconds: 60, reachedBy: 1),
                      citation: Source.rfc6585),
                Check("keeps-its-flow", .noneAfter(trigger: .codeRequest.answered(429...429, "a code request answered 429"), forbidden: .nativeStart, reachedBy: 1),
                      citation: Source.msalIOSResendCode),
            ],
            nativeCustomer: .emailCode
        ),
        ConformanceCase(
            id: "nativeauth.password-reset-required", title: "A password change is required (AADSTS50142)", level: .required,
            service: "Microsoft Entra External ID: the token request with the customer's password is answered 400 invalid_request, AADSTS50142: the password must be changed before the next sign-in.",
            correctClient: "A correct app runs self-service password reset (resetpassword start, challenge, continue with the mailed code, submit, poll_completion) and then signs the customer in, with the reset's continuation token or the new password. MSAL for iOS words the error \"Please reset the password and perform a new sign in operation\".",
            verdictRule: "FAILED when the app does not start a password reset after the refusal, or the customer ends not signed in.",
            citations: [Source.msalIOSPasswordResetRequired, Source.externalIDPasswordReset, Source.nativeAuthAPI],
            rules: [#"{"match": {"endpoint": "token", "grantType": "password", "parameters": {"continuation_token": {"present": true}}, "nth": 1}, "action": {"oauthError": {"code": "AADSTS50142"}}}"#],
            journey: [.signInNative(1, .password)],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.nativeAuthAPI),
                Check("starts-reset", .follows(trigger: .passwordSubmission.with(answer: .errorCode, "AADSTS50142", label: "the password refused with AADSTS50142"), then: .resetStart),
                      citation: Source.msalIOSPasswordResetRequired),
                Check("completes-reset", .follows(trigger: .resetStart, then: ExchangeMatch("the reset's completion answered 200", pathContains: "/resetpassword/v1.0/poll_completion", statuses: 200...200)),
                      citation: Source.externalIDPasswordReset),
            ],
            nativeCustomer: .password
        ),
        secondFactor(
            id: "nativeauth.mfa", title: "A second factor after the password", capability: "mfa_required",
            service: "Microsoft Entra External ID: the customer must prove a second factor. To an app that declared the mfa_required capability, the token request with the password is answered 400 invalid_grant, suberror mfa_required, with a continuation token; the app lists the methods (introspect), asks for a code (challenge) and submits it (grant_type=mfa_oob). An app without the capability is sent to the browser.",
            correctClient: "A correct app declares mfa_required (MSAL: the capabilities it was configured with, on initiate) and completes the second factor on its own screens, or, without the capability, signs in through the browser.",
            completion: Check("submits-second-factor", .follows(trigger: ExchangeMatch.tokenRequest.with(answer: .suberror, "mfa_required", label: "the token request answered mfa_required"),
                                                                 then: ExchangeMatch("the second factor's code accepted", pathContains: "/token", grantTypes: ["oob"], statuses: 200...200)),
                              citation: Source.msalIOSTokenValidator),
            customer: .secondFactor(registered: true)
        ),
        secondFactor(
            id: "nativeauth.jit-registration", title: "Registering a second factor during sign-in", capability: "registration_required",
            service: "Microsoft Entra External ID: the customer must prove a second factor but has none registered. To an app that declared registration_required, the token request with the password is answered 400 invalid_grant, suberror registration_required; the app lists the methods it may register (register/v1.0/introspect), registers the customer's email (challenge, continue) and signs in with the continuation token.",
            correctClient: "A correct app declares registration_required and registers the method on its own screens (MSAL's just-in-time registration), or, without the capability, signs in through the browser.",
            completion: Check("registers", .follows(trigger: ExchangeMatch.tokenRequest.with(answer: .suberror, "registration_required", label: "the token request answered registration_required"),
                                                    then: ExchangeMatch("the registration completed", pathContains: "/register/v1.0/continue", statuses: 200...200)),
                              citation: Source.msalIOSTokenValidator),
            customer: .secondFactor(registered: false)
        ),
        ConformanceCase(
            id: "nativeauth.browser-fallback", title: "The service asks for the browser", level: .required,
            service: "Microsoft Entra External ID: the tenant needs a method the app's screens cannot show: every native sign-in start is answered 200 {\"challenge_type\": \"redirect\"}.",
            correctClient: "A correct app stops the native flow (MSAL: browserRequired) and signs the customer in through the browser at the same authority, once; it does not start the native flow again.",
            verdictRule: "FAILED when the customer ends not signed in, the app never opens /authorize, or it starts the native flow again.",
            citations: [Source.msalIOSBrowserRequired, Source.nativeAuthAPI],
            rules: [#"{"match": {"endpoint": "nativeauth", "path": {"regex": "^/[^/]+/oauth2/v2\\.0/initiate$"}}, "action": {"browserRequired": {}}, "times": "always"}"#],
            journey: [.signInNative(1, .password)],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.nativeAuthAPI),
                Check("goes-to-browser", .follows(trigger: .nativeStart, then: .authorize), citation: Source.msalIOSBrowserRequired),
                Check("no-native-loop", .atMost(count: 0, match: .nativeStart, after: .nativeStart), citation: Source.msalIOSBrowserRequired),
            ],
            nativeCustomer: .password
        ),
    ]
}

extension Catalogue {
    /// A second factor asked for after the password: the app declares `capability` and completes it on its own
    /// screens (`completion`), or goes to the browser without it.
    private static func secondFactor(id: String, title: String, capability: String, service: String, correctClient: String,
                                     completion: Check, customer: NativeCustomer) -> ConformanceCase {
        ConformanceCase(
            id: id, title: title, level: .required, service: service, correctClient: correctClient,
            verdictRule: "FAILED when the customer ends not signed in, or the app asked to complete the second factor natively never does; a WARNING when the app does not declare \(capability).",
            citations: [Source.msalIOSTokenValidator, Source.msalIOSCapabilities, Source.nativeAuthAPI],
            rules: [],
            journey: [.signInNative(1, .password)],
            checks: [
                Check("signs-in", .reply(step: 1, .succeeds), citation: Source.nativeAuthAPI),
                Check("declares-\(String(capability.map { $0 == "_" ? "-" : $0 }))", level: .recommended,
                      .seen(ExchangeMatch.nativeStart.with(parameter: "capabilities", containing: capability, label: "a sign-in start declaring \(capability)"), once: .nativeStart),
                      citation: Source.msalIOSCapabilities),
                completion,
            ],
            nativeCustomer: customer
        )
    }
}

extension ExchangeMatch {
    /// The native sign-in's first request.
    static let nativeStart = ExchangeMatch("a native sign-in start (/oauth2/v2.0/initiate)", pathContains: "/oauth2/v2.0/initiate")
    /// A code sent (or sent again): the sign-in's challenge endpoint.
    static let codeRequest = ExchangeMatch("a code request (/oauth2/v2.0/challenge)", pathContains: "/oauth2/v2.0/challenge")
    static let codeSubmission = ExchangeMatch("a code submitted (grant_type=oob)", pathContains: "/token", grantTypes: ["oob"])
    static let refusedCode = codeSubmission.answered(400...400, "a code refused (invalid_oob_value)")
    static let passwordSubmission = ExchangeMatch("the password submitted (grant_type=password)", pathContains: "/token", grantTypes: ["password"])
    static let resetStart = ExchangeMatch("a password reset start (/resetpassword/v1.0/start)", pathContains: "/resetpassword/v1.0/start")
}
