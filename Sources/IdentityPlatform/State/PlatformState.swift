import Foundation

/// Everything the platform remembers between requests. A value so that a scenario binding can own an
/// isolated copy and `reset` can restore the start state.
public struct PlatformState: Sendable {
    public var authorizationCodes: [String: AuthorizationCodeRecord] = [:]
    public var refreshTokens: [String: RefreshTokenRecord] = [:]
    public var sessions: [String: BrowserSession] = [:]
    /// Keyed by device code; `userCodes` maps the short code a person types to it.
    public var deviceCodes: [String: DeviceCodeRecord] = [:]
    public var userCodes: [String: String] = [:]
    /// Pending interactive sign-ins (authorize parameters kept server-side between pages), by id.
    public var pendingAuthorizations: [String: PendingAuthorization] = [:]

    public init() {}

    /// Drops what has expired so memory stays bounded on long runs.
    public mutating func purge(now: Date) {
        authorizationCodes = authorizationCodes.filter { $0.value.expiresAt > now.addingTimeInterval(-3600) }
        // Expired refresh tokens stay a while so that their use answers AADSTS700082, not "unknown grant".
        refreshTokens = refreshTokens.filter { $0.value.expiresAt > now.addingTimeInterval(-30 * 86400) }
        deviceCodes = deviceCodes.filter { $0.value.expiresAt > now.addingTimeInterval(-3600) }
        userCodes = userCodes.filter { deviceCodes[$0.value] != nil }
        pendingAuthorizations = pendingAuthorizations.filter { $0.value.expiresAt > now }
    }
}

/// Which protocol generation an endpoint speaks: v2 takes `scope`, v1 (ADAL) takes `resource`.
public enum EndpointVersion: String, Sendable, Codable { case v1, v2 }

/// The part of an authorization request that survives into the tokens it leads to.
public struct GrantContext: Sendable, Equatable {
    public var clientID: String
    public var userID: String
    public var tenantID: String
    /// Scopes as granted (resource-qualified for non-Graph resources; reserved OIDC scopes included).
    public var scopes: [String]
    /// The resource's app id the scopes are for (nil: only OIDC scopes were asked).
    public var resourceAppID: String?
    public var endpointVersion: EndpointVersion
    public var authTime: Date
    public var sessionID: String?
    /// Authentication methods performed (`pwd`, `mfa`).
    public var authenticationMethods: [String]
    /// The raw `claims` request parameter (JSON), if any.
    public var claimsRequest: String?
    /// Client capabilities (`cp1`) from the claims request, carried as `xms_cc`.
    public var clientCapabilities: [String]
    /// For B2C: the user flow or custom policy.
    public var policy: String?
    public var isNewUser: Bool
    /// Permissions the user unticked on the consent page of this sign-in: redeeming its code names them
    /// without needing consent, and they are left out of the token, as the service does.
    public var declinedPermissions: [String] = []

    public init(clientID: String, userID: String, tenantID: String, scopes: [String], resourceAppID: String?, endpointVersion: EndpointVersion, authTime: Date, sessionID: String? = nil, authenticationMethods: [String] = ["pwd"], claimsRequest: String? = nil, clientCapabilities: [String] = [], policy: String? = nil, isNewUser: Bool = false) {
        self.clientID = clientID
        self.userID = userID
        self.tenantID = tenantID
        self.scopes = scopes
        self.resourceAppID = resourceAppID
        self.endpointVersion = endpointVersion
        self.authTime = authTime
        self.sessionID = sessionID
        self.authenticationMethods = authenticationMethods
        self.claimsRequest = claimsRequest
        self.clientCapabilities = clientCapabilities
        self.policy = policy
        self.isNewUser = isNewUser
    }
}

public struct AuthorizationCodeRecord: Sendable {
    public var code: String
    public var grant: GrantContext
    public var redirectURI: String
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var nonce: String?
    public var issuedAt: Date
    public var expiresAt: Date
    public var redeemedAt: Date?

    public init(code: String, grant: GrantContext, redirectURI: String, codeChallenge: String?, codeChallengeMethod: String?, nonce: String?, issuedAt: Date, expiresAt: Date) {
        self.code = code
        self.grant = grant
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.nonce = nonce
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

public struct RefreshTokenRecord: Sendable {
    public var token: String
    public var grant: GrantContext
    /// Family id when the token is a family refresh token (FOCI).
    public var familyID: String?
    public var issuedAt: Date
    /// Inactivity expiry: each use issues a new token; this one stays valid until it expires, as in Entra.
    public var expiresAt: Date
    public var lastUsedAt: Date?
    public var revoked: Bool = false

    public init(token: String, grant: GrantContext, familyID: String?, issuedAt: Date, expiresAt: Date) {
        self.token = token
        self.grant = grant
        self.familyID = familyID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// The browser's sign-in state, kept server-side and named by a cookie.
public struct BrowserSession: Sendable {
    public struct SignedInAccount: Sendable, Equatable {
        public var userID: String
        public var authTime: Date
        public var authenticationMethods: [String]
        public init(userID: String, authTime: Date, authenticationMethods: [String]) {
            self.userID = userID
            self.authTime = authTime
            self.authenticationMethods = authenticationMethods
        }
    }

    public var id: String
    public var accounts: [SignedInAccount]
    public var createdAt: Date
    /// B2C: the policy the session was established with.
    public var policy: String?

    public init(id: String, accounts: [SignedInAccount] = [], createdAt: Date, policy: String? = nil) {
        self.id = id
        self.accounts = accounts
        self.createdAt = createdAt
        self.policy = policy
    }
}

public struct DeviceCodeRecord: Sendable {
    public enum Status: Sendable, Equatable {
        case pending
        case approved(GrantContext)
        case declined
        case redeemed
    }

    public var deviceCode: String
    public var userCode: String
    public var clientID: String
    public var tenantSegment: String
    public var requestedScopes: [String]
    public var endpointVersion: EndpointVersion
    public var issuedAt: Date
    public var expiresAt: Date
    /// Seconds a client must wait between polls (`slow_down` when faster).
    public var interval: Int
    public var lastPolledAt: Date?
    public var status: Status

    public init(deviceCode: String, userCode: String, clientID: String, tenantSegment: String, requestedScopes: [String], endpointVersion: EndpointVersion, issuedAt: Date, expiresAt: Date, interval: Int) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.clientID = clientID
        self.tenantSegment = tenantSegment
        self.requestedScopes = requestedScopes
        self.endpointVersion = endpointVersion
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.interval = interval
        self.status = .pending
    }
}

/// /authorize parameters kept between the sign-in, account picker and consent pages.
public struct PendingAuthorization: Sendable {
    public var id: String
    /// The original query parameters of the /authorize request.
    public var parameters: [String: String]
    public var tenantSegment: String
    public var endpointVersion: EndpointVersion
    public var policy: String?
    /// Set once the user has signed in on this flow.
    public var userID: String?
    public var authenticationMethods: [String]
    /// The browser session this flow signed into, so later pages find it even without the cookie.
    public var sessionID: String?
    /// The account was created on this flow (`prompt=create`): `newUser` in B2C tokens.
    public var isNewUser: Bool
    /// Permissions the user unticked on the consent page: neither consented to nor granted.
    public var declinedPermissions: [String] = []
    public var expiresAt: Date

    public init(id: String, parameters: [String: String], tenantSegment: String, endpointVersion: EndpointVersion, policy: String? = nil, expiresAt: Date) {
        self.id = id
        self.parameters = parameters
        self.tenantSegment = tenantSegment
        self.endpointVersion = endpointVersion
        self.policy = policy
        self.userID = nil
        self.authenticationMethods = []
        self.sessionID = nil
        self.isNewUser = false
        self.expiresAt = expiresAt
    }
}
