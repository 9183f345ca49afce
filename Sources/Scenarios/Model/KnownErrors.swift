import Foundation
import IdentityPlatform

/// The real service's `error`, suberror and wording per AADSTS / AADB2C code, so a scenario can say
/// `{"oauthError": {"code": "AADSTS700082"}}` and get the text a client would really see.
/// Entra codes come from `ErrorCatalogue` wherever it has them, so every part of FakeEntra words
/// them alike; texts with dates are filled in when the error is rendered.
public enum KnownErrors {
    public struct Entry: Sendable, Equatable {
        public var error: String
        public var message: String
        public var suberror: String?
        public var status: Int?
    }

    /// The entry for a code, or nil when FakeEntra has no wording for it (the scenario must then give `error` and `message`).
    public static func entry(family: ErrorFamily, code: Int) -> Entry? {
        switch family {
        case .aadsts: aadsts(code)
        case .aadb2c: aadb2c[code]
        }
    }

    private static func aadsts(_ code: Int) -> Entry? {
        let placeholderDate = Date(timeIntervalSince1970: 1_735_689_600)
        let identityError: IdentityError? = switch code {
        case 900144: .missingParameter("grant_type")
        case 9002313: .malformedRequest()
        case 90002: .tenantNotFound("{tenant}")
        case 700016: .applicationNotFound("{client_id}", tenant: "{tenant}")
        case 50011: .redirectURIMismatch("{redirect_uri}", clientID: "{client_id}")
        case 50126: .invalidCredentials()
        case 50034: .userNotFound("{user}", tenant: "{tenant}")
        case 50053: .accountLocked()
        case 50057: .accountDisabled()
        case 50055: .passwordExpired()
        case 50058: .loginRequired()
        case 50076: .mfaRequired(resource: "{resource}")
        case 50079: .mfaEnrollmentRequired(resource: "{resource}")
        case 50173: .grantRevoked(issuedAt: placeholderDate, validFrom: placeholderDate)
        case 53003: .conditionalAccessBlocked()
        case 54005: .codeAlreadyRedeemed()
        case 65001: .consentRequired(clientID: "{client_id}", appName: "{app_name}")
        case 65004: .consentDeclined()
        case 70000: .invalidGrant()
        case 70008: .grantExpired()
        case 700082: .refreshTokenExpired(issuedAt: placeholderDate, inactiveFor: 90 * 86400)
        case 70011: .invalidScope("{scope}")
        case 90094: .adminConsentRequired()
        case 7000218: .missingClientCredential()
        case 7000215: .invalidClientSecret(clientID: "{client_id}")
        case 7000222: .clientSecretExpired(clientID: "{client_id}")
        case 700025: .publicClientSentSecret()
        case 501481: .pkceMismatch()
        default: nil
        }
        if let identityError {
            return Entry(error: identityError.error, message: identityError.message, suberror: identityError.suberror, status: nil)
        }
        return extraAADSTS[code]
    }

    /// Codes the platform itself never produces, only scenarios do.
    private static let extraAADSTS: [Int: Entry] = [
        53005: Entry(error: "unauthorized_client", message: "Application needs to enforce Intune protection policies.", suberror: "protection_policy_required", status: nil),
        50133: Entry(error: "invalid_grant", message: "Session is invalid due to expiration or recent password change.", suberror: nil, status: nil),
        50196: Entry(error: "invalid_grant", message: "The server terminated an operation because it encountered a client request loop. Please contact your app vendor.", suberror: nil, status: nil),
        70043: Entry(error: "invalid_grant", message: "The refresh token has expired or is invalid due to sign-in frequency checks by conditional access. The token was issued on {issued} and the maximum allowed lifetime for this request is {lifetime}.", suberror: nil, status: nil),
        90033: Entry(error: "temporarily_unavailable", message: "A transient error has occurred. Please try again.", suberror: nil, status: 503),
        90055: Entry(error: "temporarily_unavailable", message: "There are too many incoming requests. Please try again later.", suberror: nil, status: 429),
        50142: Entry(error: "invalid_request", message: "Password change is required due to a Conditional Access policy.", suberror: nil, status: nil),
        50097: Entry(error: "interaction_required", message: "Device authentication is required.", suberror: nil, status: nil),
        16000: Entry(error: "interaction_required", message: "Either multiple user identities are available for the current request or selected account is not supported for the scenario.", suberror: nil, status: nil),
        50089: Entry(error: "invalid_grant", message: "Authentication failed due to flow token expired. Expected - auth codes, refresh tokens, and sessions expire over time or are revoked by the user or an admin. The app will request a new login from the user.", suberror: nil, status: nil),
        700084: Entry(error: "invalid_grant", message: "The refresh token was issued to a single page app (SPA), and therefore has a fixed, limited lifetime of 1.00:00:00, which cannot be extended. It is now expired and a new sign in request must be sent by the SPA to the sign in page. The token was issued on {issued}.", suberror: nil, status: nil),
    ]

    /// Azure AD B2C's codes as its pages and endpoints word them.
    private static let aadb2c: [Int: Entry] = [
        90118: Entry(error: "access_denied", message: "The user has forgotten their password.", suberror: nil, status: nil),
        90091: Entry(error: "access_denied", message: "The user has cancelled entering self-asserted information.", suberror: nil, status: nil),
        90077: Entry(error: "interaction_required", message: "User does not have an existing session and request prompt parameter has a value of 'None'.", suberror: nil, status: nil),
        90080: Entry(error: "invalid_grant", message: "The provided grant has expired. Please re-authenticate and try again.", suberror: nil, status: nil),
        90129: Entry(error: "invalid_grant", message: "The provided grant has been revoked. Please reauthenticate and try again.", suberror: nil, status: nil),
        90128: Entry(error: "invalid_grant", message: "User account associated with the provided grant has been deleted or is no longer available.", suberror: nil, status: nil),
        90182: Entry(error: "invalid_grant", message: "The supplied code_verifier does not match associated code_challenge.", suberror: nil, status: nil),
        90088: Entry(error: "invalid_grant", message: "The provided grant has not been issued for this endpoint. Actual Value : {policy} and Expected Value : {expected}.", suberror: nil, status: nil),
        90090: Entry(error: "invalid_grant", message: "The provided JWE-encrypted grant is not valid.", suberror: nil, status: nil),
        99002: Entry(error: "access_denied", message: "User does not have consent to access the app.", suberror: nil, status: nil),
    ]
}
