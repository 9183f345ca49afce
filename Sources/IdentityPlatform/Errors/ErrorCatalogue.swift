import EntraHTTP
package import FoundationGaps

/// The AADSTS errors FakeEntra returns, with the real service's `error`, suberror and message text.
/// Add a code here rather than building an `IdentityError` inline, so every endpoint words it alike.
extension IdentityError {
    package static func missingParameter(_ name: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 900144, message: "The request body must contain the following parameter: '\(name)'.")
    }

    package static func malformedRequest() -> IdentityError {
        IdentityError(error: "invalid_request", code: 9002313, message: "Invalid request. Request is malformed or invalid.")
    }

    package static func tenantNotFound(_ tenant: String) -> IdentityError {
        // `invalid_tenant` from discovery; the token endpoint says `invalid_request` (`errorValue(in:)`).
        IdentityError(error: "invalid_tenant", code: 90002, message: "Tenant '\(tenant)' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud. Check with your subscription administrator, this may happen if there are no active subscriptions for the tenant.")
    }

    package static func duplicatedParameter(_ name: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 9000411, message: "The request is not properly formatted. The parameter '\(echoed(name))' is duplicated.")
    }

    /// The v2.0 endpoints take scopes; `resource` belongs to v1.0.
    /// A v2.0 request's `resource` that is not an Application ID URI of the requested scopes' app (since 2026).
    package static func resourceDoesNotMatchScopes() -> IdentityError {
        IdentityError(error: "invalid_target", code: 9010010, message: "The resource parameter provided in the request doesn't match with the requested scopes.")
    }

    /// The pre-2026 refusal of any `resource` on the v2.0 endpoints; scenarios replaying that service script it.
    package static func resourceNotSupported() -> IdentityError {
        IdentityError(error: "invalid_request", code: 901002, message: "The 'resource' request parameter is not supported.")
    }

    /// An /authorize request carrying more than a sign-in keeps (`PendingAuthorization.largestParameters`).
    package static func queryStringTooLong() -> IdentityError {
        IdentityError(error: "invalid_request", code: 90015, message: "Requested query string is too long.")
    }

    /// A value of the request quoted in a message: control characters shown as U+FFFD and at most 256
    /// characters, so an answer never carries a raw NUL or grows with what the client sent.
    static func echoed(_ value: String) -> String {
        let clean = String(String.UnicodeScalarView(value.unicodeScalars.prefix(257).map { $0.value < 0x20 || $0.value == 0x7F ? "\u{FFFD}" : $0 }))
        return clean.count > 256 ? String(clean.prefix(256)) + "…" : clean
    }

    package static func applicationNotFound(_ clientID: String, tenant: String) -> IdentityError {
        IdentityError(error: "unauthorized_client", code: 700016, message: "Application with identifier '\(echoed(clientID))' was not found in the directory '\(tenant)'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.")
    }

    /// A code or refresh token of a web or public-client redirect URI, redeemed by a browser (with `Origin`).
    package static func crossOriginNotSPA(origin: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 9002326, message: "Cross-origin token redemption is permitted only for the 'Single-Page Application' client-type. Request origin: '\(origin)'.")
    }

    /// A single-page app's code or refresh token, redeemed without `Origin` (from a server). Without
    /// `error_uri`: the whole body NextAuth.js printed in 2023 (its issue 9414) ends at `correlation_id`.
    package static func spaRedeemedNotCrossOrigin() -> IdentityError {
        .withoutErrorPage(IdentityError(error: "invalid_request", code: 9002327, message: "Tokens issued for the 'Single-Page Application' client-type may only be redeemed via cross-origin requests."))
    }

    /// A single-page app's refresh token past its fixed 24 hours.
    package static func spaRefreshTokenExpired(issuedAt: Date) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 700084, message: "The refresh token was issued to a single page app (SPA), and therefore has a fixed, limited lifetime of 1.00:00:00, which cannot be extended. It is now expired and a new sign in request must be sent by the SPA to the sign in page. The token was issued on \(isoString(issuedAt)).")
    }

    package static func redirectURIMismatch(_ uri: String, clientID: String) -> IdentityError {
        // `invalid_client` at the token endpoint, as recorded (AADSTS50011 on a code redemption, 2022).
        IdentityError(error: "invalid_client", code: 50011, message: "The redirect URI '\(uri)' specified in the request does not match the redirect URIs configured for the application '\(clientID)'. Make sure the redirect URI sent in the request matches one added to your application in the Azure portal. Navigate to https://aka.ms/redirectUriMismatchError to learn more about how to fix this.")
    }

    package static func invalidCredentials() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50126, message: "Error validating credentials due to invalid username or password.")
    }

    package static func userNotFound(_ name: String, tenant: String) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50034, message: "The user account {EUII Hidden} does not exist in the \(tenant) directory. To sign into this application, the account must be added to the directory.")
    }

    /// An account's refusal as Entra words it.
    package static func refusing(_ refusal: AccountRefusal) -> IdentityError {
        switch refusal {
        case .locked: accountLocked()
        case .disabled: accountDisabled()
        }
    }

    package static func accountLocked() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50053, message: "The account is locked, you've tried to sign in too many times with an incorrect user ID or password.")
    }

    package static func accountDisabled() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50057, message: "The user account is disabled.")
    }

    package static func passwordExpired() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50055, message: "The password is expired.", suberror: "user_password_expired")
    }

    package static func loginRequired() -> IdentityError {
        IdentityError(error: "login_required", code: 50058, message: "A silent sign-in request was sent but no user is signed in.")
    }

    package static func mfaRequired(resource: String) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50076, message: "Due to a configuration change made by your administrator, or because you moved to a new location, you must use multi-factor authentication to access '\(resource)'.", suberror: "basic_action")
    }

    package static func mfaEnrollmentRequired(resource: String) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50079, message: "Due to a configuration change made by your administrator, or because you moved to a new location, you must enroll in multi-factor authentication to access '\(resource)'.", suberror: "basic_action")
    }

    package static func grantRevoked(issuedAt: Date, validFrom: Date) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50173, message: "The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password. The grant was issued on '\(isoString(issuedAt))' and the TokensValidFrom date (before which tokens are not valid) for this user is '\(isoString(validFrom))'.")
    }

    package static func conditionalAccessBlocked() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 53003, message: "Access has been blocked by Conditional Access policies. The access policy does not allow token issuance.", suberror: "message_only")
    }

    package static func codeAlreadyRedeemed() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 54005, message: "OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing refresh token.")
    }

    /// Without `error_uri`: a 2026 answer to an on-behalf-of exchange goes from `correlation_id` straight to
    /// `suberror` and `claims` (joetanx/mslab, entra/agent-id/auth-flows.md), and no answer with one is recorded.
    package static func consentRequired(clientID: String, appName: String) -> IdentityError {
        .withoutErrorPage(IdentityError(error: "invalid_grant", code: 65001, message: "The user or administrator has not consented to use the application with ID '\(clientID)' named '\(appName)'. Send an interactive authorization request for this user and resource.", suberror: "consent_required"))
    }

    package static func consentDeclined() -> IdentityError {
        IdentityError(error: "access_denied", code: 65004, message: "User declined to consent to access the app.")
    }

    package static func invalidGrant() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 70000, message: "Provided grant is invalid or malformed.")
    }

    /// A code that cannot be one the service issued (wrong characters, cut short): `invalid_grant`
    /// AADSTS9002313 at the token endpoint, as recorded for malformed codes (2020, 2024).
    package static func malformedGrant() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 9002313, message: "Invalid request. Request is malformed or invalid.")
    }

    package static func invalidCode() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 70000, message: "The provided value for the 'code' parameter is not valid.")
    }

    package static func grantExpired() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 70008, message: "The provided authorization code or refresh token has expired due to inactivity. Send a new interactive authorization request for this user and resource.")
    }

    package static func refreshTokenExpired(issuedAt: Date, inactiveFor: TimeInterval) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 700082, message: "The refresh token has expired due to inactivity. The token was issued on \(isoString(issuedAt)) and was inactive for \(timeSpan(inactiveFor)).")
    }

    package static func invalidScope(_ scope: String) -> IdentityError {
        IdentityError(error: "invalid_scope", code: 70011, message: "The provided value for the input parameter 'scope' is not valid. The scope \(scope) is not valid.")
    }

    package static func multipleResources(_ scope: String) -> IdentityError {
        IdentityError(error: "invalid_scope", code: 28000, message: "Provided value for the input parameter scope is not valid because it contains more than one resource. Scope \(scope) is not valid.")
    }

    package static func adminConsentRequired() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 90094, message: "The grant requires admin permission.", suberror: "consent_required")
    }

    /// The client-credentials grant without any credential, as recorded (AADSTS7000216, 2025).
    package static func clientCredentialsWithoutCredential() -> IdentityError {
        IdentityError(error: "invalid_client", code: 7000216, message: "'client_assertion', 'client_secret' or 'request' is required for the 'client_credentials' grant type.")
    }

    package static func missingClientCredential() -> IdentityError {
        IdentityError(error: "invalid_client", code: 7000218, message: "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.")
    }

    package static func invalidClientSecret(clientID: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 7000215, message: "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '\(clientID)'.")
    }

    package static func clientSecretExpired(clientID: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 7000222, message: "The provided client secret keys for app '\(clientID)' are expired. Visit the Azure portal to create new keys for your app: https://aka.ms/NewClientSecret, or consider using certificate credentials for added security: https://aka.ms/certCreds.")
    }

    package static func publicClientSentSecret() -> IdentityError {
        IdentityError(error: "invalid_client", code: 700025, message: "Client is public so neither 'client_assertion' nor 'client_secret' should be presented.")
    }

    package static func pkceMismatch() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 501481, message: "The Code_Verifier does not match the code_challenge supplied in the authorization request.")
    }

    package static func unsupportedGrantType(_ grant: String) -> IdentityError {
        IdentityError(error: "unsupported_grant_type", code: 70003, message: "The app requested an unsupported grant type '\(grant)'.")
    }

    static func isoString(_ date: Date) -> String {
        InternetDate.format(secondsSince1970: date.timeIntervalSince1970)
    }

    /// A time as .NET's round-trip format prints it, seven fractional digits: `2024-06-04T11:40:28.3451933Z`.
    package static func roundTripString(_ date: Date) -> String {
        InternetDate.format(secondsSince1970: date.timeIntervalSince1970, fractionalDigits: 7)
    }

    /// .NET TimeSpan text as the service prints it: `90.00:00:00`.
    static func timeSpan(_ seconds: TimeInterval) -> String {
        let total = Int(saturating: seconds)
        let days = total / 86400, hours = total % 86400 / 3600, minutes = total % 3600 / 60, secs = total % 60
        let clock = String(format: "%02d:%02d:%02d", hours, minutes, secs)
        return days > 0 ? "\(days).\(clock)" : clock
    }
}
