import EntraHTTP
package import FoundationGaps

/// Part of the AADSTS catalogue (ErrorCatalogue.swift): the token endpoint's grants, scopes, discovery and extension callouts.
extension IdentityError {
    // MARK: Requests to the token endpoint

    /// The server could not sign (a key that cannot be read, an OpenSSL failure): a 500 as the service's own.
    package static func signingFailed(_ error: any Error) -> IdentityError {
        IdentityError(error: "server_error", code: 50000, message: "There was an error issuing a token. Signing failed: \(error)", status: 500)
    }

    package static func methodNotAllowed(_ method: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 900561, message: "The endpoint only accepts POST, OPTIONS requests. Received a \(method) request.")
    }

    package static func clientMismatch() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 70000, message: "Provided grant is invalid or malformed. The refresh token was issued to a different client.", suberror: "client_mismatch")
    }

    // MARK: Client credentials

    package static func noTenantIdentifyingInformation() -> IdentityError {
        IdentityError(error: "invalid_request", code: 50059, message: "No tenant-identifying information found in either the request or implied by any provided credentials.")
    }

    // MARK: Device code

    package static func authorizationPending() -> IdentityError {
        IdentityError(error: "authorization_pending", code: 70016, message: "OAuth 2.0 device flow error. Authorization is pending. Continue polling.")
    }

    package static func slowDown() -> IdentityError {
        IdentityError(error: "slow_down", code: 70016, message: "OAuth 2.0 device flow error. Authorization is pending. Polling too frequently: wait for the interval before polling again.")
    }

    package static func deviceAuthorizationDeclined() -> IdentityError {
        IdentityError(error: "authorization_declined", code: 70000, message: "The user has declined to authorize the device login request.")
    }

    /// As recorded from v2.0 (oauth2-rs, AADSTS70020).
    package static func deviceCodeExpired() -> IdentityError {
        IdentityError(error: "expired_token", code: 70020, message: "The provided value for the input parameter 'device_code' is not valid. This device code has expired.")
    }

    package static func badVerificationCode() -> IdentityError {
        IdentityError(error: "bad_verification_code", code: 70000, message: "The provided value for the 'device_code' parameter is not valid.")
    }

    // MARK: On-behalf-of

    package static func unsupportedRequestedTokenUse(_ value: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 900144, message: "The request body must contain the following parameter: 'requested_token_use' with value 'on_behalf_of'. Received '\(value)'.")
    }

    package static func oboAssertionInvalid(_ detail: String) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50027, message: "JWT token is invalid or malformed. \(detail)")
    }

    /// A user assertion signed with a key the tenant does not publish, in the 2024 wording (a developer's
    /// capture of an on-behalf-of refusal; Tests/Fidelity/recordings).
    package static func oboAssertionKeyNotFound(appID: String) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50013, message: "Assertion failed signature validation. [Reason - The key was not found., Please visit the Azure Portal, Graph Explorer or directly use MS Graph to see configured keys for app Id '\(appID)'. Review the documentation at https://docs.microsoft.com/en-us/graph/deployments to determine the corresponding service endpoint and https://docs.microsoft.com/en-us/graph/api/application-get?view=graph-rest-1.0&tabs=http to build a query request URL, such as 'https://graph.microsoft.com/beta/applications/\(appID)']")
    }

    /// A user assertion whose signature the published key it names does not verify: the key's thumbprint
    /// and validity, as recorded in 2018 (ADAL.NET issue 1234; the last wording recorded for it).
    package static func oboAssertionSignatureInvalid(thumbprint: String, keyStart: Date, keyEnd: Date) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50013, message: "Assertion contains an invalid signature. [Reason - The provided signature value did not match the expected signature value., Thumbprint of key used by client: '\(thumbprint)', Found key 'Start=\(keyValidityDate(keyStart)), End=\(keyValidityDate(keyEnd))']")
    }

    /// `06/21/2018 00:00:00`, as the signature refusal writes a key's validity.
    static func keyValidityDate(_ date: Date) -> String {
        let stamp = InternetDate.entraTimestamp(secondsSince1970: date.timeIntervalSince1970)   // 2018-06-21 00:00:00Z
        let day = stamp.prefix(10).split(separator: "-")
        guard day.count == 3 else { return stamp }
        return "\(day[1])/\(day[2])/\(day[0]) \(stamp.dropFirst(11).dropLast())"
    }

    /// With the two times as recorded in 2024 (msgraph-sdk-dotnet issue 2551).
    package static func oboAssertionExpired(now: Date, expiry: Date) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 500133, message: "Assertion is not within its valid time range. Ensure that the access token is not expired before using it for user assertion, or request a new token. Current time: \(roundTripString(now)), expiry time of assertion \(roundTripString(expiry)).")
    }

    /// An app-only token presented as the user assertion (recorded 2026, a developer's capture of the exchange).
    package static func applicationOnBehalfOf(clientID: String) -> IdentityError {
        IdentityError(error: "unauthorized_client", code: 7000114, message: "Application '\(clientID)' is not allowed to make application on-behalf-of calls.")
    }

    package static func oboAudienceMismatch(audience: String, expected: String) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50013, message: "Assertion failed signature validation. [Reason - Assertion audience does not match the Client app presenting the assertion. The audience in the assertion was '\(audience)' and the expected audience is '\(expected)' or one of the Application Uris of this application with App ID '\(expected)'.]")
    }

    // MARK: Scopes and resources

    package static func resourceNotFound(_ resource: String) -> IdentityError {
        IdentityError(error: "invalid_resource", code: 500011, message: "The resource principal named \(resource) was not found in the tenant. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You might have sent your authentication request to the wrong tenant.")
    }

    package static func scopeNotOnResource(scope: String, resourceAppID: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 650053, message: "The application asked for scope '\(scope)' that doesn't exist on the resource '\(resourceAppID)'. Contact the app vendor.", status: 400)
    }

    package static func clientCredentialsNeedDefaultScope(_ scope: String) -> IdentityError {
        IdentityError(error: "invalid_scope", code: 1002012, message: "The provided value for scope \(scope) is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).")
    }

    // MARK: Instance discovery

    package static func invalidInstance() -> IdentityError {
        IdentityError(error: "invalid_instance", code: 50049, message: "Unknown or invalid instance.")
    }

    // MARK: Custom authentication extensions

    /// What the app is told when a custom authentication extension failed: generic, the cause is in the
    /// sign-in log (custom-extension-troubleshoot, "Error behavior"). The code and text are those reported
    /// from the service (entra-docs issue 399 and others); the `error` value was not seen in a recording.
    package static func customExtensionFailed() -> IdentityError {
        IdentityError(error: "invalid_request", code: 1100001, message: "Non-retryable error has occurred.")
    }
}
