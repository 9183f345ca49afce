import EntraHTTP
package import FoundationGaps

/// A validated access token for Microsoft Graph: who is calling, for which app, with what permissions.
package struct BearerAccessToken: Sendable, Equatable {
    package enum Kind: String, Sendable {
        /// A user signed in (`scp`): `/me` is that user.
        case delegated
        /// The app alone (client credentials, `roles`).
        case application
    }

    package var kind: Kind
    package var tenantID: String
    /// The signed-in user's object id (delegated) or the client's service principal id (application).
    package var objectID: String
    /// `appid` (v1) or `azp` (v2): the client that asked for the token.
    package var appID: String
    /// `sub`, pairwise per user and app (the same value as the id token's `sub`).
    package var subject: String?
    /// Delegated permissions from `scp`.
    package var scopes: [String]
    /// Application permissions from `roles`.
    package var roles: [String]
    /// `xms_cc`: client capabilities (`cp1` = can handle claims challenges).
    package var clientCapabilities: [String]
    package var issuer: String
    package var audience: String
    package var issuedAt: Date?
    package var notBefore: Date?
    package var expiresAt: Date

    package init(
        kind: Kind, tenantID: String, objectID: String, appID: String, subject: String? = nil, scopes: [String] = [],
        roles: [String] = [], clientCapabilities: [String] = [], issuer: String, audience: String,
        issuedAt: Date? = nil, notBefore: Date? = nil, expiresAt: Date
    ) {
        self.kind = kind
        self.tenantID = tenantID.lowercased()
        self.objectID = objectID.lowercased()
        self.appID = appID
        self.subject = subject
        self.scopes = scopes
        self.roles = roles
        self.clientCapabilities = clientCapabilities
        self.issuer = issuer
        self.audience = audience
        self.issuedAt = issuedAt
        self.notBefore = notBefore
        self.expiresAt = expiresAt
    }

    /// True when the client declared it can answer continuous access evaluation challenges.
    /// The claims a continuous access evaluation challenge asks for: a token issued at or after
    /// `notBefore` (`{"access_token":{"nbf":{"essential":true, "value":"<epoch>"}}}`, byte for byte as Graph
    /// and Resource Manager send them, base64 in `WWW-Authenticate`).
    package static func revocationClaims(notBefore: Date) -> String {
        #"{"access_token":{"nbf":{"essential":true, "value":"\#(CalendarRange.wholeSeconds(notBefore.timeIntervalSince1970))"}}}"#
    }

    /// Whether the token was issued before its user's sessions were revoked (`tokensValidFrom`: a password
    /// change, an administrator); nil when not, or when the token is not a user's.
    package func revokedSince(for user: DirectoryUser?) -> Date? {
        guard kind == .delegated, let validFrom = user?.tokensValidFrom else { return nil }
        return (issuedAt ?? notBefore ?? .distantPast) < validFrom ? validFrom : nil
    }

    package var isCAECapable: Bool { clientCapabilities.contains { $0.caseInsensitiveCompare("cp1") == .orderedSame } }
}
