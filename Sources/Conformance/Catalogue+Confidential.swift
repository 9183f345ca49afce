import FoundationGaps

extension Catalogue {
    /// A refusal of the app's own credential: only the app's configuration can fix it, so neither a
    /// retry nor a new sign-in helps (Microsoft.Identity.Web reloads certificates, never secrets).
    private static func credentialRefused(id: String, title: String, code: String, service: String, rules: [String],
                                          secretLifetime: TimeInterval? = nil, citations: [Citation]) -> ConformanceCase {
        let refusal = ExchangeMatch.tokenRequest.answered(401...401).with(answer: .errorCode, code, label: "the \(code) refusal")
        return ConformanceCase(
            id: id, title: title, level: .required, service: service,
            correctClient: "A correct app reports that its credential was refused (invalid_client) and stops there: it does not resend the refused credential in a loop, and it does not send the user to sign in again, since a sign-in ends in the same refusal when the app redeems the code.",
            verdictRule: "FAILED when the app reports success or another error than invalid_client, sends more than one further token request after the refusal, or starts a new sign-in (an /authorize request) after it; NOT_TESTABLE when no token request was refused.",
            citations: citations, rules: rules,
            journey: [.signIn(1), .getToken(2), .getToken(3)],
            checks: [
                Check("reports-invalid-client", .reply(step: 2, .fails(.invalidClient)), citation: Source.rfc6749TokenError),
                Check("no-retry-loop", .atMost(count: 1, match: .tokenRequest, after: refusal), citation: Source.resilience),
                Check("no-new-sign-in", .noneAfter(trigger: refusal, forbidden: .authorize, reachedBy: 3), citation: Source.identityWebCertificateReload),
            ],
            clients: [.secret], secretLifetime: secretLifetime
        )
    }

    static let confidential: [ConformanceCase] = [
        credentialRefused(
            id: "confidential.secret-invalid", title: "Client secret no longer registered", code: "AADSTS7000215",
            service: "After the sign-in, the app's client secret is no longer on its registration (an administrator deleted or replaced it): every token request that presents it is refused with HTTP 401 invalid_client, AADSTS7000215 (invalid client secret provided).",
            rules: [Rules.shortLivedTokens, #"{"note": "Every token request after the sign-in's code redemption.", "match": {"endpoint": "token", "after": 1}, "action": {"oauthError": {"code": "AADSTS7000215", "status": 401}}, "times": "always"}"#],
            citations: [Source.clientSecrets, Source.errorCodes, Source.identityWebCertificateReload]
        ),
        credentialRefused(
            id: "confidential.secret-expired", title: "Client secret expired", code: "AADSTS7000222",
            service: "The app's client secret expires one day after the case starts, and the service's clock passes two days once the sign-in's code was redeemed: the next token request is refused with HTTP 401 invalid_client, AADSTS7000222 (the client secret keys are expired), by the registration's own expiry.",
            rules: [Rules.shortLivedTokens, #"{"note": "Two days pass after the code redemption; the secret expired after one.", "match": {"endpoint": "token", "grantType": "authorization_code"}, "action": {"advanceClock": 172800}, "times": 1}"#],
            secretLifetime: 86400,
            citations: [Source.clientSecrets, Source.errorCodes, Source.identityWebCertificateReload]
        ),
        ConformanceCase(
            id: "confidential.certificate-rollover", title: "Certificate rollover", level: .required,
            service: "After the sign-in, the app's certificate is replaced on its registration by a new one, which is also put where the app loads its certificate from (a rollover done by the app's owner). A token request signed with the old certificate is refused with HTTP 401 invalid_client, AADSTS700027 (the certificate is not registered on the application).",
            correctClient: "A correct app, on a refusal of its certificate (AADSTS700027, 700024, 7000214, 1000502, 7000274, 7000277), loads its certificate again from where it keeps it and retries once, as Microsoft.Identity.Web does; it does not retry more than that.",
            verdictRule: "FAILED when no token request succeeds after the old certificate's refusal, a token step after the rollover reports an error, or more than one token request is refused after the first refusal; NOT_TESTABLE when the old certificate was never refused.",
            citations: [Source.identityWebCertificateReload, Source.certificateCredentials, Source.errorCodes],
            rules: [Rules.shortLivedTokens],
            journey: [.signIn(1), .getToken(2), .getToken(3)],
            checks: [
                Check("reloads-certificate", .follows(trigger: oldCertificateRefused, then: ExchangeMatch.tokenRequest.answered(200...200, "a token request answered 200 (signed with the new certificate)")),
                      citation: Source.identityWebCertificateReload),
                Check("serves-token", .reply(step: 2, .succeeds), citation: Source.identityWebCertificateReload),
                Check("keeps-new-certificate", .reply(step: 3, .succeeds), citation: Source.certificateCredentials),
                Check("retries-once", .atMost(count: 1, match: ExchangeMatch.tokenRequest.answered(401...401, "a refused token request"), after: oldCertificateRefused),
                      citation: Source.identityWebCertificateReload),
            ],
            clients: [.certificate], rollsCertificateAfterStep: 1
        ),
    ]

    /// A daemon's cases: no user, the app's own token (client credentials).
    static let daemon: [ConformanceCase] = [
        ConformanceCase(
            id: "confidential.app-token-reuse", title: "App token reused (daemon)", level: .required,
            service: "The service issues the app's own token (client credentials, https://graph.microsoft.com/.default) valid for an hour, as it does for every app token.",
            correctClient: "A correct daemon asks for an app token once and serves it from its cache until it nears expiry (MSAL's acquire_token_for_client looks in its cache first), rather than sending the token endpoint a request for every call.",
            verdictRule: "FAILED when an app token is not served, or a later call within the hour sends another app-token request.",
            citations: [Source.msalAppTokenCache, Source.clientCredentialsFlow],
            rules: [],
            journey: [.getAppToken(1), .getAppToken(2), .getAppToken(3)],
            checks: [
                Check("gets-app-token", .reply(step: 1, .succeeds), citation: Source.clientCredentialsFlow),
                Check("reuses-app-token", .noneDuring(step: 2, .clientCredentials), citation: Source.msalAppTokenCache),
                Check("serves-cached-token", .reply(step: 2, .succeeds), citation: Source.msalAppTokenCache),
                Check("still-reuses-app-token", .noneDuring(step: 3, .clientCredentials), citation: Source.msalAppTokenCache),
                Check("serves-app-token", .reply(step: 3, .succeeds), citation: Source.msalAppTokenCache),
            ],
            clients: ClientKind.confidential
        ),
        ConformanceCase(
            id: "confidential.app-token-secret-refused", title: "App token refused for the secret (daemon)", level: .required,
            service: "Every app-token request (client credentials) is refused with HTTP 401 invalid_client, AADSTS7000215: the secret the daemon presents is not on its registration.",
            correctClient: "A correct daemon reports that its credential was refused and does not keep asking: one more attempt on the next call at most.",
            verdictRule: "FAILED when the daemon reports success or another error than invalid_client, or sends more than one app-token request after the refusal; NOT_TESTABLE when no app-token request was refused.",
            citations: [Source.clientSecrets, Source.rfc6749TokenError, Source.identityWebCertificateReload],
            rules: [#"{"match": {"endpoint": "token", "grantType": "client_credentials"}, "action": {"oauthError": {"code": "AADSTS7000215", "status": 401}}, "times": "always"}"#],
            journey: [.getAppToken(1), .getAppToken(2)],
            checks: [
                Check("reports-invalid-client", .reply(step: 1, .fails(.invalidClient)), citation: Source.rfc6749TokenError),
                Check("no-retry-loop", .atMost(count: 1, match: .clientCredentials, after: ExchangeMatch.clientCredentials.answered(401...401, "the AADSTS7000215 refusal")),
                      citation: Source.resilience),
            ],
            clients: [.secret]
        ),
    ]

    private static let oldCertificateRefused = ExchangeMatch.tokenRequest.answered(401...401)
        .with(answer: .errorCode, "AADSTS700027", label: "the old certificate's refusal (AADSTS700027)")
}
