import ExchangeKernel
package import EntraHTTP

/// Errors only the interactive endpoints (authorize, sign-in pages, device login) produce.
extension IdentityError {
    package static func unsupportedResponseType(_ responseType: String) -> IdentityError {
        IdentityError(error: "unsupported_response_type", code: 700054, message: "response_type '\(responseType)' is not enabled for the application.")
    }

    package static func invalidResponseMode(_ mode: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 900144, message: "The request body must contain a valid 'response_mode' parameter: 'query', 'fragment' or 'form_post'; '\(mode)' is not one of them.")
    }

    package static func invalidPrompt(_ prompt: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 90023, message: "Unsupported 'prompt' value '\(prompt)'. Supported values are 'login', 'none', 'consent', 'select_account', 'create', 'admin_consent' and (v1) 'refresh_session'.")
    }

    package static func invalidMaxAge(_ text: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 9002313, message: "Invalid request. Request is malformed or invalid. The 'max_age' parameter '\(text)' is not a non-negative integer.")
    }

    package static func invalidCodeChallengeMethod(_ method: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 50149, message: "Invalid Code_Challenge_method parameter '\(method)'. Only 'S256' and 'plain' are supported.")
    }

    package static func invalidCodeChallengeSize() -> IdentityError {
        IdentityError(error: "invalid_request", code: 501491, message: "Invalid size of Code_Challenge parameter.")
    }

    package static func invalidClaimsParameter() -> IdentityError {
        IdentityError(error: "invalid_request", code: 90100, message: "The 'claims' parameter is empty or not valid JSON.")
    }

    /// The signed-in account belongs to a tenant the authority (or a single-tenant app) does not admit.
    /// Pages show it with `invalid_request`; the token endpoint answers `invalid_grant`.
    package static func userNotInTenant(tenant: String, clientID: String, appName: String, error: String = "invalid_request") -> IdentityError {
        IdentityError(error: error, code: 50020, message: "User account '{EUII Hidden}' from identity provider 'https://sts.windows.net/' does not exist in tenant '\(tenant)' and cannot access the application '\(clientID)'(\(appName)) in that tenant. The account needs to be added as an external user in the tenant first. Sign out and sign in again with a different Microsoft Entra user account.")
    }

    /// `prompt=none` with several signed-in accounts and nothing saying which one.
    package static func accountSelectionRequired() -> IdentityError {
        IdentityError(error: "interaction_required", code: 16000, message: "Either multiple user identities are available for the current request or selected account is not supported for the scenario.")
    }

    /// `prompt=none` when consent is missing: the interactive form of AADSTS65001.
    package static func consentRequiredInteractive(clientID: String, appName: String) -> IdentityError {
        IdentityError(error: "interaction_required", code: 65001, message: "The user or administrator has not consented to use the application with ID '\(clientID)' named '\(appName)'. Send an interactive authorization request for this user and resource.", suberror: "consent_required")
    }

    /// `prompt=none` when the flow would have to ask for a second factor.
    package static func mfaRequiredInteractive(resource: String) -> IdentityError {
        var error = IdentityError.mfaRequired(resource: resource)
        error.error = "interaction_required"
        return error
    }

    package static func invalidVerificationCode() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 500121, message: "Authentication failed during strong authentication request. The verification code you entered is not a 6-digit code.")
    }

    /// The flow's server-side state is gone (expired or never existed).
    package static func flowExpired() -> IdentityError {
        IdentityError(error: "invalid_request", code: 50089, message: "Authentication failed due to flow token expired. Start the sign-in again from the application.")
    }

    /// The user backed out of the sign-in pages. Entra's pages have no cancel code of their own: a user
    /// who backs out of consent gets `access_denied` with AADSTS65004 and `error_subcode=cancel`, the one
    /// documented code for a user refusing to continue, which every MSAL maps to "user cancelled".
    package static func userCancelled() -> IdentityError { .consentDeclined() }

    /// The sign-in name page posted without a name.
    static func missingSignInName() -> IdentityError {
        IdentityError(error: "invalid_request", code: 900144, message: "The request body must contain the following parameter: 'login'. Enter a valid email address, phone number, or Skype name.")
    }
}
