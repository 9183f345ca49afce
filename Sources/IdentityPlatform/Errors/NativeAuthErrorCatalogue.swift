import ExchangeKernel
import EntraHTTP
import LocatedJSON

/// A refusal of the native authentication API: an Entra error (HTTP 400, `error`, `error_codes`,
/// `suberror`) with the members some of them carry: the token to go on with (`credential_required`,
/// `attributes_required`), which attributes are wanted and which were refused.
struct NativeAuthError: Error {
    var error: IdentityError
    var continuationToken: String?
    var requiredAttributes: [SignUpAttribute] = []
    var invalidAttributes: [String] = []

    init(_ error: IdentityError, continuationToken: String? = nil, requiredAttributes: [SignUpAttribute] = [], invalidAttributes: [String] = []) {
        self.error = error
        self.continuationToken = continuationToken
        self.requiredAttributes = requiredAttributes
        self.invalidAttributes = invalidAttributes
    }

    /// A sign-up attribute the user flow's rules refuse (suberror `attribute_validation_failed`, with
    /// `invalid_attributes` naming them; MSAL for iOS/macOS reads the names and needs at least one).
    static func attributeValidationFailed(_ names: [String]) -> NativeAuthError {
        NativeAuthError(IdentityError(error: "invalid_grant", code: 0, message: "Attributes validation failed.", suberror: "attribute_validation_failed"),
                        invalidAttributes: names)
    }

    /// An app registered without "Enable native authentication" (the reference's `invalid_client`, suberror
    /// `nativeauthapi_disabled`, which it gives no AADSTS code).
    static func nativeAuthenticationDisabled() -> NativeAuthError {
        NativeAuthError(IdentityError(error: "invalid_client", code: 0, message: "The application is not enabled for native authentication.",
                                      suberror: "nativeauthapi_disabled", status: 400))
    }

    /// A locked or disabled account, refused as its sign-in would be.
    static func accountProblem(_ user: DirectoryUser) -> NativeAuthError? {
        user.refusal.map { NativeAuthError(.refusing($0)) }
    }

    /// A password sent to a user flow whose customers sign in with one-time passcodes only (MSAL for
    /// Android's `unsupported_auth_method`, worded as in its tests).
    static func passwordNotSupported() -> NativeAuthError {
        NativeAuthError(IdentityError(error: "unsupported_auth_method", code: 0, message: "Password based authentication is not supported."))
    }

    func response(in trace: TraceContext) -> HTTPResponse {
        var members: [(String, JSONValue)] = []
        if let continuationToken { members.append(("continuation_token", .string(continuationToken))) }
        // Each attribute as the reference's `attributes_required` example describes it.
        if !requiredAttributes.isEmpty {
            members.append(("required_attributes", .array(requiredAttributes.map { attribute in
                var fields: [(String, JSONValue)] = [("name", .string(attribute.name)), ("type", .string(attribute.type.rawValue)), ("required", .bool(true))]
                if let regex = attribute.regex { fields.append(("options", .object([("regex", .string(regex))]))) }
                return JSONValue.object(fields)
            })))
        }
        if !invalidAttributes.isEmpty {
            members.append(("invalid_attributes", .array(invalidAttributes.map { .object([("name", .string($0))]) })))
        }
        // Code 0, as elsewhere in the platform: the reference names the error without an AADSTS code.
        return error.tokenEndpointResponse(in: trace, extraMembers: members, conditionalAccessClaims: false)
    }
}

/// The native authentication API's errors as the reference words them (learn.microsoft.com, "Native
/// authentication API reference", error tables and examples). Codes the reference does not give are the
/// AADSTS codes MSAL's own tests use (50034 for an unknown user, 55112 for an expired token).
extension IdentityError {
    static func nativeAuthUserNotFound(tenant: String) -> IdentityError {
        IdentityError(error: "user_not_found", code: 50034, message: "The user account {EUII Hidden} does not exist in the \(tenant) directory. To sign into this application, the account must be added to the directory.")
    }

    static func redirectChallengeMissing() -> IdentityError {
        IdentityError(error: "invalid_request", code: 901007, message: "The challenge_type list parameter does not include the 'redirect' type.")
    }

    /// The wording MSAL.js recognises as this error (AuthFlowErrorBase: `invalid_request` whose description
    /// names an unsupported challenge type); the code is the one the reference's examples give the
    /// challenge_type list's other refusal, as no answer recording its own was found.
    static func unsupportedChallengeType() -> IdentityError {
        IdentityError(error: "invalid_request", code: 901007, message: "The challenge_type list parameter contains an unsupported challenge type.")
    }

    static func continuationTokenExpired() -> IdentityError {
        IdentityError(error: "expired_token", code: 55112, message: "The continuation_token is expired.")
    }

    static func continuationTokenInvalid() -> IdentityError {
        IdentityError(error: "invalid_request", code: 55200, message: "The continuation_token is invalid.")
    }

    /// A continuation token the flows' store refused, in V1's words.
    static func continuationToken(_ refusal: NativeAuthFlows.Refusal) -> IdentityError {
        switch refusal {
        case .expired: continuationTokenExpired()
        case .invalid: continuationTokenInvalid()
        }
    }

    static func invalidOneTimeCode() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50181, message: "Unable to validate the otp.", suberror: "invalid_oob_value")
    }

    static func userAlreadyExists() -> IdentityError {
        IdentityError(error: "user_already_exists", code: 1003037, message: "It looks like you may already have an account with this email address. Please sign in instead.")
    }

    /// Password reset for a customer without a password (one who signs in with codes only).
    static func nativeCredentialRecoveryUnsupported() -> IdentityError {
        IdentityError(error: "invalid_request", code: 500222, message: "The tenant or user does not support native credential recovery.")
    }

    /// A registration that does not allow public client flows, as the service answered MSAL for iOS/macOS
    /// (AzureAD/microsoft-authentication-library-for-objc issue 2654, June 2025).
    static func confidentialClientNotSupported() -> IdentityError {
        IdentityError(error: "invalid_client", code: 550022, message: "Confidential Client is not supported in Native Authentication API flow.", status: 400)
    }

    static func credentialRequired() -> IdentityError {
        IdentityError(error: "credential_required", code: 55103, message: "Credential required.")
    }

    static func attributesRequired() -> IdentityError {
        IdentityError(error: "attributes_required", code: 55106, message: "User attributes required.")
    }

    /// The reference's example of a weak password (`password_too_weak`, 399246); the other policy
    /// refusals share its code and say which rule failed in their suberror.
    static func passwordRefused(_ suberror: String, _ message: String) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 399246, message: message, suberror: suberror)
    }

    /// A parameter missing or not of its form (`client_id`, `username`, `attributes`…).
    static func nativeParameterInvalid(_ name: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 90100, message: "\(name) parameter is empty or not valid.")
    }

    static func authenticationMethodNotValid() -> IdentityError {
        IdentityError(error: "invalid_request", code: 901001, message: "The authentication method id is not valid for this user.")
    }

    static func challengeTargetNotRegistrable() -> IdentityError {
        IdentityError(error: "invalid_request", code: 901001, message: "The challenge target is not a contact this user can register.")
    }

    /// A second factor asked of a user who has one registered, to an app that declared `mfa_required`.
    static func nativeMFARequired() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50076, message: "Due to a configuration change made by your administrator, or because you moved to a new location, you must use multi-factor authentication to access this resource.", suberror: "mfa_required")
    }

    /// A second factor asked of a user who has none registered yet.
    static func nativeRegistrationRequired() -> IdentityError {
        IdentityError(error: "invalid_grant", code: 50076, message: "Strong authentication is required.", suberror: "registration_required")
    }
}
