import Foundation

/// A validated access token for Microsoft Graph: who is calling, for which app, with what permissions.
public struct GraphAccessToken: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A user signed in (`scp`): `/me` is that user.
        case delegated
        /// The app alone (client credentials, `roles`).
        case application
    }

    public var kind: Kind
    public var tenantID: String
    /// The signed-in user's object id (delegated) or the client's service principal id (application).
    public var objectID: String
    /// `appid` (v1) or `azp` (v2): the client that asked for the token.
    public var appID: String
    /// `sub`, pairwise per user and app (the same value as the id token's `sub`).
    public var subject: String?
    /// Delegated permissions from `scp`.
    public var scopes: [String]
    /// Application permissions from `roles`.
    public var roles: [String]
    /// `xms_cc`: client capabilities (`cp1` = can handle claims challenges).
    public var clientCapabilities: [String]
    public var issuer: String
    public var audience: String
    public var issuedAt: Date?
    public var notBefore: Date?
    public var expiresAt: Date

    public init(
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
    public var isCAECapable: Bool { clientCapabilities.contains { $0.caseInsensitiveCompare("cp1") == .orderedSame } }

    /// True when the token carries one of the permissions a resource accepts: a delegated permission in `scp`
    /// for user tokens, an application permission in `roles` for app tokens (names compare ignoring case).
    public func holds(_ requirement: PermissionRequirement) -> Bool {
        let (held, accepted) = kind == .delegated ? (scopes, requirement.delegated) : (roles, requirement.application)
        return held.contains { name in accepted.contains { $0.caseInsensitiveCompare(name) == .orderedSame } }
    }
}

/// The permissions any one of which lets a caller use a Graph resource (the "least to most privileged"
/// lists of Graph's API reference).
public struct PermissionRequirement: Sendable, Equatable {
    public var delegated: [String]
    public var application: [String]

    public init(delegated: [String], application: [String]) {
        self.delegated = delegated
        self.application = application
    }

    /// The signed-in user's own profile (`/me`, and `/users/{self}`).
    public static let ownProfile = PermissionRequirement(
        delegated: ["User.Read", "User.ReadWrite", "User.ReadBasic.All", "User.Read.All", "User.ReadWrite.All",
                    "Directory.Read.All", "Directory.ReadWrite.All", "Directory.AccessAsUser.All"],
        application: []
    )

    /// Another user's profile, or the list of users.
    public static let anyProfile = PermissionRequirement(
        delegated: ["User.ReadBasic.All", "User.Read.All", "User.ReadWrite.All", "Directory.Read.All",
                    "Directory.ReadWrite.All", "Directory.AccessAsUser.All"],
        application: ["User.ReadBasic.All", "User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"]
    )

    /// A calendar's events.
    public static let calendar = PermissionRequirement(
        delegated: ["Calendars.ReadBasic", "Calendars.Read", "Calendars.ReadWrite"],
        application: ["Calendars.ReadBasic.All", "Calendars.Read", "Calendars.ReadWrite"]
    )
}
