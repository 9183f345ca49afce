import ExchangeKernel
package import FoundationGaps

/// The AADB2C errors FakeEntra returns, worded as the service's error code reference words them.
/// They render through `IdentityError` (family `.aadb2c`): `AADB2C90118: …\r\nCorrelation ID: …\r\nTimestamp: …`.
extension IdentityError {
    static func b2c(_ error: String, _ code: Int, _ message: String, status: Int? = nil) -> IdentityError {
        IdentityError(error: error, code: code, message: message, status: status, family: .aadb2c)
    }

    package static func b2cRedirectURINotRegistered(_ uri: String, clientID: String) -> IdentityError {
        .b2c("redirect_uri_mismatch", 90006, "The redirect URI '\(uri)' provided in the request is not registered for the client id '\(clientID)'.")
    }

    package static func b2cMissingClientID() -> IdentityError {
        .b2c("invalid_request", 90008, "The request does not contain a client id parameter.")
    }

    package static func b2cMissingScope() -> IdentityError {
        .b2c("invalid_request", 90010, "The request does not contain a scope parameter.")
    }

    package static func b2cUnsupportedResponseType(_ type: String) -> IdentityError {
        .b2c("unsupported_response_type", 90013, "The requested response type '\(type)' provided in the request is not supported.")
    }

    package static func b2cUnsupportedResponseMode(_ mode: String) -> IdentityError {
        .b2c("invalid_request", 90014, "The requested response mode '\(mode)' provided in the request is not supported.")
    }

    package static func b2cClientNotRegistered(_ clientID: String, tenant: String) -> IdentityError {
        .b2c("unauthorized_client", 90018, "The client id '\(clientID)' specified in the request is not registered in tenant '\(tenant)'.")
    }

    package static func b2cPolicyNotFound(_ policy: String, tenant: String) -> IdentityError {
        .b2c("invalid_request", 90022, "Unable to return metadata for the policy '\(policy)' in tenant '\(tenant)'.", status: 404)
    }

    package static func b2cTenantNotFound(_ tenant: String) -> IdentityError {
        .b2c("invalid_tenant", 90002, "The tenant '\(tenant)' could not be found.", status: 404)
    }

    package static func b2cInvalidPrompt() -> IdentityError {
        .b2c("invalid_request", 90043, "The prompt included in the request contains invalid values. Expected 'none', 'login', 'consent' or 'select_account'.")
    }

    package static func b2cScopeNeedsResource(_ scope: String) -> IdentityError {
        .b2c("invalid_scope", 90055, "The scope '\(scope)' provided in request must specify a resource, such as 'https://example.com/calendar.read'.")
    }

    package static func b2cNoSession(prompt: String) -> IdentityError {
        .b2c("interaction_required", 90077, "User does not have an existing session and request prompt parameter has a value of '\(prompt)'.")
    }

    package static func b2cMissingClientSecret() -> IdentityError {
        .b2c("invalid_request", 90079, "Clients must send a client_secret when redeeming a confidential grant.")
    }

    package static func b2cGrantExpired(now: Date, issuedAt: Date, slidingExpiry: Date) -> IdentityError {
        .b2c("invalid_grant", 90080, "The provided grant has expired. Please re-authenticate and try again. Current time: \(Int(saturating: now.timeIntervalSince1970)), Grant issued time: \(Int(saturating: issuedAt.timeIntervalSince1970)), Grant sliding window expiration time: \(Int(saturating: slidingExpiry.timeIntervalSince1970)).")
    }

    package static func b2cWrongClientSecret() -> IdentityError {
        .b2c("invalid_client", 90081, "The specified client_secret does not match the expected value for this client. Please correct the client_secret and try again.", status: 400)
    }

    package static func b2cMissingParameter(_ name: String) -> IdentityError {
        .b2c("invalid_request", 90083, "The request is missing required parameter: \(name).")
    }

    package static func b2cPublicClientSentSecret() -> IdentityError {
        .b2c("invalid_request", 90084, "Public clients should not send a client_secret when redeeming a publicly acquired grant.")
    }

    package static func b2cUnsupportedGrantType(_ grant: String) -> IdentityError {
        .b2c("unsupported_grant_type", 90086, "The supplied grant_type [\(grant)] is not supported.")
    }

    /// A code or refresh token of another policy: the real service names both.
    package static func b2cGrantForOtherPolicy(actual: String, expected: String) -> IdentityError {
        .b2c("invalid_grant", 90088, "The provided grant has not been issued for this endpoint. Actual Value : \(actual) and Expected Value : \(expected)")
    }

    /// B2C codes and refresh tokens are JWEs: anything that is not five segments is refused like this.
    package static func b2cMalformedGrant() -> IdentityError {
        .b2c("invalid_grant", 90090, "The provided JWE is not a valid 5 segment token.")
    }

    /// A well-formed grant FakeEntra never issued (the service cannot decrypt it).
    package static func b2cUnknownGrant() -> IdentityError {
        .b2c("invalid_grant", 90090, "The provided JWE could not be decrypted with any key of this tenant.")
    }

    package static func b2cCancelled() -> IdentityError {
        .b2c("access_denied", 90091, "The user has cancelled entering self-asserted information.")
    }

    package static func b2cAccountLocked() -> IdentityError {
        .b2c("access_denied", 90111, "Your account has been locked. Contact your support person to unlock it, then try again.")
    }

    package static func b2cInvalidMaxAge(_ text: String) -> IdentityError {
        .b2c("invalid_request", 90120, "The max age parameter '\(text)' specified in the request is invalid. Max age must be an integer between '0' and '2147483647' inclusive.")
    }

    package static func b2cIDTokenNeedsOpenID() -> IdentityError {
        .b2c("invalid_request", 90110, "The scope parameter must include 'openid' when requesting a response_type that includes 'id_token'.")
    }

    package static func b2cUnsupportedScope(_ scope: String) -> IdentityError {
        .b2c("invalid_scope", 90117, "The scope '\(scope)' provided in the request is not supported.")
    }

    package static func b2cForgotPassword() -> IdentityError {
        .b2c("access_denied", 90118, "The user has forgotten their password.")
    }

    /// `access_denied`, as a wrong password on a ROPC user flow was answered (2019, raw HTTP in azure-docs issue 23780).
    package static func b2cInvalidCredentials() -> IdentityError {
        .b2c("access_denied", 90225, "The username or password provided in the request are invalid.")
    }

    package static func b2cAccountGone() -> IdentityError {
        .b2c("invalid_grant", 90128, "The account associated with this grant no longer exists. Please reauthenticate and try again.")
    }

    package static func b2cGrantRevoked() -> IdentityError {
        .b2c("invalid_grant", 90129, "The provided grant has been revoked. Please reauthenticate and try again.")
    }

    /// `invalid_request`, as recorded (2018, azure-docs issue 9885).
    package static func b2cMultipleResources(_ scope: String) -> IdentityError {
        .b2c("invalid_request", 90146, "The scope '\(scope)' provided in request specifies more than one resource for an access token, which is not supported.")
    }

    package static func b2cPKCEMismatch() -> IdentityError {
        .b2c("invalid_grant", 90182, "The supplied code_verifier does not match associated code_challenge.")
    }

    package static func b2cInvalidCodeVerifier() -> IdentityError {
        .b2c("invalid_request", 90183, "The supplied code_verifier is invalid.")
    }

    package static func b2cUnsupportedChallengeMethod() -> IdentityError {
        .b2c("invalid_request", 90184, "The supplied code_challenge_method is not supported. Supported values are plain or S256.")
    }

    package static func b2cPostOnly() -> IdentityError {
        .b2c("invalid_request", 90226, "The specified token exchange is only supported over HTTP POST.", status: 405)
    }

    package static func b2cClientMismatch(_ clientID: String, expected: String) -> IdentityError {
        .b2c("invalid_grant", 90011, "The client id '\(clientID)' provided in the request does not match client id '\(expected)' registered in policy.")
    }

    /// The service's generic answer to a request it cannot process.
    package static func b2cRequestFailed() -> IdentityError {
        .b2c("invalid_request", 90037, "An error occurred while processing the request. Please contact administrator of the site you are trying to access.")
    }

    package static func b2cLostState() -> IdentityError {
        .b2c("server_error", 90046, "We are having trouble loading your current state. You might want to try starting your session over from the beginning.")
    }

    /// A scenario's throttling of B2C.
    static func b2cThrottled(message: String?) -> IdentityError {
        .b2c("temporarily_unavailable", 90229, message ?? "Too many requests. Try again later.", status: 429)
    }

    /// A scenario's outage of B2C.
    static func b2cUnavailable(status: Int, message: String?) -> IdentityError {
        .b2c("server_error", 90000, message ?? "The service is temporarily unavailable. Please try again later.", status: status)
    }

    package static func b2cBadPostLogoutRedirect(_ uri: String) -> IdentityError {
        .b2c("invalid_request", 90067, "The post logout redirect URI '\(uri)' has an invalid format. Specify an https based URL such as 'https://example.com/return' or for native clients use the IETF native client URI 'urn:ietf:wg:oauth:2.0:oob'.")
    }
}

/// The catalogue of AADB2C codes, as `ErrorCatalogue` is of AADSTS ones: what B2C's pages and endpoints
/// emit, plus the codes only scenarios produce, with placeholders where the text names a value.
package enum B2CErrorCatalogue {
    /// The entry for an AADB2C code, or nil when FakeEntra has no wording for it.
    package static func entry(code: Int) -> IdentityError? {
        entries.first { $0.code == code }
    }

    package static let entries: [IdentityError] = [
        .b2cRedirectURINotRegistered("{redirect_uri}", clientID: "{client_id}"), .b2cMissingClientID(), .b2cMissingScope(),
        .b2cUnsupportedResponseType("{responseType}"), .b2cUnsupportedResponseMode("{responseMode}"),
        .b2cClientNotRegistered("{client_id}", tenant: "{tenant}"), .b2cPolicyNotFound("{policy}", tenant: "{tenant}"),
        .b2cTenantNotFound("{tenant}"), .b2cInvalidPrompt(), .b2cScopeNeedsResource("{scope}"), .b2cNoSession(prompt: "None"),
        .b2cMissingClientSecret(), .b2cWrongClientSecret(),
        .b2cMissingParameter("{name}"), .b2cPublicClientSentSecret(), .b2cUnsupportedGrantType("{grantType}"),
        .b2cGrantForOtherPolicy(actual: "{policy}", expected: "{expected}"), .b2cMalformedGrant(), .b2cCancelled(),
        .b2cAccountLocked(), .b2cInvalidMaxAge("{max_age}"), .b2cIDTokenNeedsOpenID(), .b2cUnsupportedScope("{scope}"),
        .b2cForgotPassword(), .b2cInvalidCredentials(), .b2cAccountGone(), .b2cGrantRevoked(), .b2cMultipleResources("{scope}"),
        .b2cPKCEMismatch(), .b2cInvalidCodeVerifier(), .b2cUnsupportedChallengeMethod(), .b2cPostOnly(),
        .b2cClientMismatch("{client_id}", expected: "{expected}"), .b2cBadPostLogoutRedirect("{redirect_uri}"),
        .b2cRequestFailed(), .b2cLostState(),
        // The platform's own 90080 quotes the grant's instants; named by a scenario, it has none to quote.
        IdentityError(error: "invalid_grant", code: 90080, message: "The provided grant has expired. Please re-authenticate and try again.", family: .aadb2c),
        IdentityError(error: "access_denied", code: 99002, message: "User does not have consent to access the app.", family: .aadb2c),
        IdentityError(error: "invalid_grant", code: 90085, message: "The service has encountered an internal error. Please reauthenticate and try again.", family: .aadb2c),
    ]
}

extension IdentityError.Family {
    /// The service's wording of `code` in this family's catalogue (Entra's or B2C's), nil when FakeEntra
    /// has none: what a scenario naming only a code answers.
    package func catalogueEntry(code: Int) -> IdentityError? {
        switch self {
        case .aadsts: ErrorCatalogue.entry(code: code)
        case .aadb2c: B2CErrorCatalogue.entry(code: code)
        }
    }
}
