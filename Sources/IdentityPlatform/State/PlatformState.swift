import Foundation

/// Everything the platform remembers between requests. A value so that a scenario binding can own an
/// isolated copy and `reset` can restore the start state. Every store is bounded (`StateLimits`) and
/// forgets expired records incrementally (`ExpiringStore`); secret handles (codes, refresh tokens, device
/// codes) are kept by a fixed-size digest, never as the string handed out.
public struct PlatformState: Sendable {
    public let limits: StateLimits
    public var authorizationCodes: ExpiringStore<HandleDigest, AuthorizationCodeRecord>
    public var refreshTokens: ExpiringStore<HandleDigest, RefreshTokenRecord>
    public var sessions: ExpiringStore<String, BrowserSession>
    /// Keyed by device code; `userCodes` maps the short code a person types to it.
    public var deviceCodes: ExpiringStore<HandleDigest, DeviceCodeRecord>
    public var userCodes: ExpiringStore<String, UserCodeRecord>
    /// Pending interactive sign-ins (authorize parameters kept server-side between pages), by id.
    public var pendingAuthorizations: ExpiringStore<String, PendingAuthorization>
    /// Where changes are written with `--state` (nil: nothing touches disk).
    public internal(set) var persistence: (any StatePersistence)?

    public init(limits: StateLimits = .standard) {
        self.limits = limits
        authorizationCodes = ExpiringStore(capacity: limits.authorizationCodes)
        refreshTokens = ExpiringStore(capacity: limits.refreshTokens)
        sessions = ExpiringStore(capacity: limits.sessions)
        deviceCodes = ExpiringStore(capacity: limits.deviceCodes)
        userCodes = ExpiringStore(capacity: limits.deviceCodes)
        pendingAuthorizations = ExpiringStore(capacity: limits.pendingAuthorizations)
    }

    /// Forgets a bounded number of expired records from every store; called wherever records are added,
    /// so the stores shrink at least as fast as they grow without any request scanning them.
    public mutating func purge(now: Date) {
        let limit = limits.purgeBatch
        authorizationCodes.purge(now: now, limit: limit)
        refreshTokens.purge(now: now, limit: limit)
        sessions.purge(now: now, limit: limit)
        deviceCodes.purge(now: now, limit: limit)
        userCodes.purge(now: now, limit: limit)
        pendingAuthorizations.purge(now: now, limit: limit)
    }

    /// Heap entries every purge and eviction has examined so far (tests check purges stay incremental).
    public var purgeWork: Int {
        authorizationCodes.purgeWork + refreshTokens.purgeWork + sessions.purgeWork
            + deviceCodes.purgeWork + userCodes.purgeWork + pendingAuthorizations.purgeWork
    }
}

/// How much the platform keeps, and for how long records outlive their expiry. docs/state.md explains
/// each figure and what a client sees when a store is full.
public struct StateLimits: Sendable, Equatable {
    public var refreshTokens = 1_000_000
    public var authorizationCodes = 100_000
    public var sessions = 100_000
    public var deviceCodes = 10_000
    public var pendingAuthorizations = 10_000
    /// A browser session ends this long after its last sign-in (Entra's 90-day session inactivity).
    public var sessionLifetime: TimeInterval = 90 * 86400
    /// Records each store may forget per purge: more than one insert adds, so expiry keeps up.
    public var purgeBatch = 8

    public static let standard = StateLimits()

    public init() {}
}

/// The short code a person types on /devicelogin, naming a device code.
public struct UserCodeRecord: Sendable, Expiring, Codable {
    public var deviceCode: String
    public var forgetAt: Date

    public init(deviceCode: String, forgetAt: Date) {
        self.deviceCode = deviceCode
        self.forgetAt = forgetAt
    }
}

/// Which protocol generation an endpoint speaks: v2 takes `scope`, v1 (ADAL) takes `resource`.
public enum EndpointVersion: String, Sendable, Codable { case v1, v2 }

/// The part of an authorization request that survives into the tokens it leads to.
public struct GrantContext: Sendable, Equatable, Codable {
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

public struct AuthorizationCodeRecord: Sendable, Expiring, Codable {
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

public struct RefreshTokenRecord: Sendable, Expiring, Codable {
    public var grant: GrantContext
    /// Family id when the token is a family refresh token (FOCI).
    public var familyID: String?
    public var issuedAt: Date
    /// Inactivity expiry: each use issues a new token; this one stays valid until it expires, as in Entra.
    public var expiresAt: Date
    public var lastUsedAt: Date?
    public var revoked: Bool = false

    public init(grant: GrantContext, familyID: String?, issuedAt: Date, expiresAt: Date) {
        self.grant = grant
        self.familyID = familyID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// The browser's sign-in state, kept server-side and named by a cookie.
public struct BrowserSession: Sendable, Expiring, Codable {
    public struct SignedInAccount: Sendable, Equatable, Codable {
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
    /// The session ends then unless someone signs in through it again.
    public var expiresAt: Date

    public init(id: String, accounts: [SignedInAccount] = [], createdAt: Date, expiresAt: Date, policy: String? = nil) {
        self.id = id
        self.accounts = accounts
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.policy = policy
    }

    public var forgetAt: Date { expiresAt }
}

public struct DeviceCodeRecord: Sendable, Expiring, Codable {
    public enum Status: Sendable, Equatable, Codable {
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
public struct PendingAuthorization: Sendable, Expiring, Codable {
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
    /// The step whose page the flow showed last (`BrowserFlowCore`): a page's post is judged against it.
    package var step: String?
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

// When each record may be forgotten. Codes and device codes linger an hour past expiry and refresh tokens
// thirty days, so that using one late still answers its own "expired" error rather than "unknown grant".
extension AuthorizationCodeRecord {
    public var forgetAt: Date { expiresAt.addingTimeInterval(3600) }
}

extension RefreshTokenRecord {
    public var forgetAt: Date { expiresAt.addingTimeInterval(30 * 86400) }
}

extension DeviceCodeRecord {
    public var forgetAt: Date { expiresAt.addingTimeInterval(3600) }
}

extension PendingAuthorization {
    public var forgetAt: Date { expiresAt }
}
