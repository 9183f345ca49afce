package import ExchangeKernel
import FoundationGaps

/// The catalogue of AADSTS codes: every error the Entra endpoints emit, plus the codes only scenarios
/// produce, one instance each with placeholders where the text names a value. The `/error` lookup page
/// shows it; a scenario names a code (`{"oauthError": {"code": "AADSTS700082"}}`) and gets this wording,
/// its placeholders filled in from the request (`{client_id}`, `{tenant}`, `{issued}`…). B2C keeps its
/// AADB2C codes in its own catalogue.
package enum ErrorCatalogue {
    /// The entry for an AADSTS code, or nil when FakeEntra has no wording for it.
    package static func entry(code: Int) -> IdentityError? {
        entries.first { $0.code == code }
    }

    package static let entries: [IdentityError] = platform + scenarioOnly

    /// A date in a catalogue text; rendering puts the request's own dates there.
    static let placeholderDate = Date(timeIntervalSince1970: 1_735_689_600)

    /// What the platform's endpoints emit (first instance of a code wins in `entry`).
    static var platform: [IdentityError] {
        let when = placeholderDate
        return [
            .missingParameter("{name}"), .malformedRequest(), .queryStringTooLong(), .tenantNotFound("{tenant}"),
            .applicationNotFound("{client_id}", tenant: "{tenant}"), .redirectURIMismatch("{redirect_uri}", clientID: "{client_id}"),
            .invalidCredentials(), .userNotFound("{user}", tenant: "{tenant}"), .accountLocked(), .accountDisabled(),
            .passwordExpired(), .loginRequired(), .mfaRequired(resource: "{resource}"), .mfaEnrollmentRequired(resource: "{resource}"),
            .grantRevoked(issuedAt: when, validFrom: when), .conditionalAccessBlocked(), .codeAlreadyRedeemed(),
            .consentRequired(clientID: "{client_id}", appName: "{app_name}"), .consentDeclined(), .invalidGrant(),
            .grantExpired(), .refreshTokenExpired(issuedAt: when, inactiveFor: 90 * 86400), .invalidScope("{scope}"),
            .multipleResources("{scope}"), .adminConsentRequired(), .missingClientCredential(),
            .invalidClientSecret(clientID: "{client_id}"), .clientSecretExpired(clientID: "{client_id}"), .publicClientSentSecret(),
            .pkceMismatch(), .unsupportedGrantType("{grantType}"), .resourceNotFound("{resource}"),
            .scopeNotOnResource(scope: "{scope}", resourceAppID: "{resource}"),
            .unsupportedResponseType("{responseType}"), .invalidPrompt("{prompt}"), .invalidCodeChallengeMethod("{method}"),
            .invalidCodeChallengeSize(), .invalidClaimsParameter(),
            .userNotInTenant(tenant: "{tenant}", clientID: "{client_id}", appName: "{app_name}"), .accountSelectionRequired(),
            .invalidVerificationCode(), .flowExpired(), .malformedGrant(), .clientCredentialsWithoutCredential(),
            .malformedClientAssertion("{detail}"), .clientAssertionSignatureInvalid(clientID: "{client_id}"),
            .clientAssertionCertificateNotRegistered(thumbprint: "{thumbprint}", clientID: "{client_id}"),
            .clientAssertionAudienceInvalid(), .clientAssertionSubjectInvalid(),
            .invalidClientAssertionType("{type}"), .invalidInstance(), .noTenantIdentifyingInformation(),
            .authorizationPending(), .slowDown(), .deviceAuthorizationDeclined(), .deviceCodeExpired(), .badVerificationCode(),
            .unsupportedRequestedTokenUse("{value}"), .oboAssertionInvalid("{detail}"), .oboAssertionExpired(now: when, expiry: when),
            .applicationOnBehalfOf(clientID: "{client_id}"), .clientAssertionOutOfRange(now: when, notBefore: when, expiry: when),
            .federatedIssuerNotFound("{issuer}"), .federatedAudienceNotFound("{audience}"), .federatedSubjectNotFound("{subject}"),
            .oboAudienceMismatch(audience: "{audience}", expected: "{expected}"), .oboAssertionKeyNotFound(appID: "{client_id}"),
            .oboAssertionSignatureInvalid(thumbprint: "{thumbprint}", keyStart: when, keyEnd: when), .methodNotAllowed("{method}"),
            .duplicatedParameter("{name}"), .resourceNotSupported(), .resourceDoesNotMatchScopes(),
            .crossOriginNotSPA(origin: "{origin}"), .spaRedeemedNotCrossOrigin(), .spaRefreshTokenExpired(issuedAt: when),
            // External ID's native authentication API.
            .invalidOneTimeCode(), .continuationTokenExpired(), .continuationTokenInvalid(), .userAlreadyExists(),
            .credentialRequired(), .attributesRequired(), .redirectChallengeMissing(), .nativeCredentialRecoveryUnsupported(),
        ]
    }

    /// Codes the platform itself never produces, only scenarios do.
    static let scenarioOnly: [IdentityError] = [
        IdentityError(error: "unauthorized_client", code: 53005, message: "Application needs to enforce Intune protection policies.", suberror: "protection_policy_required"),
        IdentityError(error: "invalid_grant", code: 50133, message: "Session is invalid due to expiration or recent password change."),
        IdentityError(error: "invalid_grant", code: 50196, message: "The server terminated an operation because it encountered a client request loop. Please contact your app vendor."),
        IdentityError(error: "invalid_grant", code: 70043, message: "The refresh token has expired or is invalid due to sign-in frequency checks by conditional access. The token was issued on {issued} and the maximum allowed lifetime for this request is {lifetime}."),
        .transientError(status: 503, message: nil), .throttled(message: nil),
        IdentityError(error: "invalid_request", code: 50142, message: "Password change is required due to a Conditional Access policy."),
        IdentityError(error: "interaction_required", code: 50097, message: "Device authentication is required."),
        IdentityError(error: "interaction_required", code: 16000, message: "Either multiple user identities are available for the current request or selected account is not supported for the scenario."),
        // A managed identity used as a federated credential whose subject no record names (2025, microsoft/Agents issue 202).
        IdentityError(error: "invalid_client", code: 7002137, message: "No matching federated identity record found for presented assertion subject '{subject}'. Please make sure the federated identity credential Subject is '{expected}'.", status: 401),
        // The earlier refusal of a federated assertion no record matches, as answered in 2023 (401 invalid_client,
        // external-secrets issue 2783; 400 invalid_request in 2022, MSAL Go's log in Azure/azure-workload-identity
        // issue 616); the platform now answers AADSTS700211/700212/700213 by the part that differs.
        IdentityError(error: "invalid_client", code: 70021, message: "No matching federated identity record found for presented assertion. Assertion Issuer: '{issuer}'. Assertion Subject: '{subject}'. Assertion Audience: '{audience}'. https://docs.microsoft.com/en-us/azure/active-directory/develop/workload-identity-federation"),
        // A federated issuer FakeEntra cannot reach or read: its discovery (2022, Azure/azure-workload-identity's
        // troubleshooting and issue 642), its keys (2025), a key its metadata does not list (2024, issue 1232).
        .withoutErrorPage(IdentityError(error: "invalid_request", code: 90061, message: "Request to External OIDC endpoint failed.")),
        .withoutErrorPage(IdentityError(error: "invalid_request", code: 50166, message: "Request to External OIDC endpoint failed.")),
        .withoutErrorPage(IdentityError(error: "invalid_request", code: 900612, message: "Failed to parse provider signing keys.")),
        IdentityError(error: "invalid_client", code: 7000272, message: "The certificate with identifier {thumbprint} used to sign the federated credential could not be found in the metadata of identity provider {issuer}. Please validate that your Identity Provider's metadata exposes the key used to sign the incoming token."),
        IdentityError(error: "invalid_grant", code: 50089, message: "Authentication failed due to flow token expired. Expected - auth codes, refresh tokens, and sessions expire over time or are revoked by the user or an admin. The app will request a new login from the user."),
        // The earlier wording of an expired device code; the platform now answers AADSTS70020.
        IdentityError(error: "expired_token", code: 70019, message: "Verification code expired."),
    ]
}

extension IdentityError {
    /// A scenario's `oauthError`, in the words it gives or its family's catalogue's (`message`).
    package static func scripted(_ spec: OAuthErrorSpec, message: String) -> IdentityError {
        IdentityError(error: spec.error, code: spec.code, message: message, suberror: spec.suberror,
                      claims: spec.claims, status: spec.status, family: spec.family)
    }

    /// A scenario's outage: 503 unless it names another status (500 says `server_error`).
    static func transientError(status: Int, message: String?) -> IdentityError {
        IdentityError(error: status == 500 ? "server_error" : "temporarily_unavailable", code: 90033,
                      message: message ?? "A transient error has occurred. Please try again.", status: status)
    }

    /// A scenario's throttling.
    static func throttled(message: String?) -> IdentityError {
        IdentityError(error: "temporarily_unavailable", code: 90055, message: message ?? "There are too many incoming requests. Please try again later.", status: 429)
    }

    /// `error` answered without an `error_uri`, as the service answers it.
    static func withoutErrorPage(_ error: IdentityError) -> IdentityError {
        var copy = error
        copy.linksErrorPage = false
        return copy
    }
}
