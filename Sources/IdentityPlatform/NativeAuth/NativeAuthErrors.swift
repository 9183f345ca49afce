import ExchangeKernel
import EntraHTTP
import LocatedJSON

/// A refusal of the native authentication API: an Entra error (HTTP 400, `error`, `error_codes`,
/// `suberror`) with the members some of them carry: the token to go on with (`credential_required`,
/// `attributes_required`) and which attributes are wanted.
struct NativeAuthError: Error {
    var error: IdentityError
    var continuationToken: String?
    var requiredAttributes: [String] = []

    init(_ error: IdentityError, continuationToken: String? = nil, requiredAttributes: [String] = []) {
        self.error = error
        self.continuationToken = continuationToken
        self.requiredAttributes = requiredAttributes
    }

    func response(in trace: TraceContext) -> HTTPResponse {
        var members: [(String, JSONFragment)] = []
        if let continuationToken { members.append(("continuation_token", .string(continuationToken))) }
        if !requiredAttributes.isEmpty {
            members.append(("required_attributes", .raw("[" + requiredAttributes.map {
                JSONFragment.object([("name", .string($0)), ("type", .string("string")), ("required", .raw("true"))]).text
            }.joined(separator: ",") + "]")))
        }
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

    static func continuationTokenExpired() -> IdentityError {
        IdentityError(error: "expired_token", code: 55112, message: "The continuation_token is expired.")
    }

    static func continuationTokenInvalid() -> IdentityError {
        IdentityError(error: "invalid_request", code: 55200, message: "The continuation_token is invalid.")
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

}
