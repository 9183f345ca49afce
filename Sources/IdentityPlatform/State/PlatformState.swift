package import ExchangeKernel
package import FoundationGaps

/// Everything the platform remembers between requests. A value so that a scenario binding can own an
/// isolated copy and `reset` can restore the start state. Every store is bounded (`StateLimits`) and
/// forgets expired records incrementally (`ExpiringStore`); secret handles (codes, refresh tokens, device
/// codes) are kept by a fixed-size digest, never as the string handed out.
package struct PlatformState: Sendable {
    package let limits: StateLimits
    var authorizationCodes: ExpiringStore<HandleDigest, AuthorizationCodeRecord>
    var refreshTokens: ExpiringStore<HandleDigest, RefreshTokenRecord>
    var sessions: ExpiringStore<String, BrowserSession>
    /// Keyed by device code; `userCodes` maps the short code a person types to it.
    var deviceCodes: ExpiringStore<HandleDigest, DeviceCodeRecord>
    var userCodes: ExpiringStore<String, UserCodeRecord>
    /// Pending interactive sign-ins (authorize parameters kept server-side between pages), by id.
    var pendingAuthorizations: ExpiringStore<String, PendingAuthorization>
    /// Where changes are written with `--state` (nil: nothing touches disk).
    package internal(set) var persistence: (any StatePersistence)?

    package init(limits: StateLimits = .standard) {
        self.limits = limits
        authorizationCodes = ExpiringStore(capacity: limits.authorizationCodes, byteBudget: limits.authorizationCodeBytes)
        refreshTokens = ExpiringStore(capacity: limits.refreshTokens, byteBudget: limits.refreshTokenBytes)
        sessions = ExpiringStore(capacity: limits.sessions, byteBudget: limits.sessionBytes)
        deviceCodes = ExpiringStore(capacity: limits.deviceCodes, byteBudget: limits.deviceCodeBytes)
        userCodes = ExpiringStore(capacity: limits.deviceCodes)
        pendingAuthorizations = ExpiringStore(capacity: limits.pendingAuthorizations, byteBudget: limits.pendingAuthorizationBytes)
    }

    /// Forgets a bounded number of expired records from every store; called wherever records are added,
    /// so the stores shrink at least as fast as they grow without any request scanning them.
    package mutating func purge(now: Date) {
        let limit = limits.purgeBatch
        authorizationCodes.purge(now: now, limit: limit)
        refreshTokens.purge(now: now, limit: limit)
        sessions.purge(now: now, limit: limit)
        deviceCodes.purge(now: now, limit: limit)
        userCodes.purge(now: now, limit: limit)
        pendingAuthorizations.purge(now: now, limit: limit)
    }

    /// Heap entries every purge and eviction has examined so far (tests check purges stay incremental).
    package var purgeWork: Int {
        authorizationCodes.purgeWork + refreshTokens.purgeWork + sessions.purgeWork
            + deviceCodes.purgeWork + userCodes.purgeWork + pendingAuthorizations.purgeWork
    }
}

/// How much the platform keeps, and for how long records outlive their expiry. docs/state.md explains
/// each figure and what a client sees when a store is full.
package struct StateLimits: Sendable, Equatable {
    package var refreshTokens = 1_000_000
    package var authorizationCodes = 100_000
    package var sessions = 100_000
    package var deviceCodes = 10_000
    package var pendingAuthorizations = 10_000
    /// What the records of each store may weigh in all (`Expiring.retainedBytes`): a request choosing long
    /// texts (a nonce, a claims request, /authorize parameters) fills the budget sooner, never more.
    package var refreshTokenBytes = 512 << 20
    package var authorizationCodeBytes = 64 << 20
    package var sessionBytes = 32 << 20
    package var deviceCodeBytes = 16 << 20
    package var pendingAuthorizationBytes = 32 << 20
    /// A browser session ends this long after its last sign-in (Entra's 90-day session inactivity).
    package var sessionLifetime: TimeInterval = 90 * 86400
    /// Records each store may forget per purge: more than one insert adds, so expiry keeps up.
    package var purgeBatch = 8

    package static let standard = StateLimits()

    package init() {}
}

/// The short code a person types on /devicelogin, naming a device code.
package struct UserCodeRecord: Sendable, Expiring, Codable {
    package var deviceCode: String
    package var forgetAt: Date

    package init(deviceCode: String, forgetAt: Date) {
        self.deviceCode = deviceCode
        self.forgetAt = forgetAt
    }
}

/// The part of an authorization request that survives into the tokens it leads to.
package struct GrantContext: Sendable, Equatable, Codable {
    package var clientID: String
    package var userID: String
    package var tenantID: String
    /// Scopes as granted (resource-qualified for non-Graph resources; reserved OIDC scopes included).
    package var scopes: [String]
    /// The resource's app id the scopes are for (nil: only OIDC scopes were asked).
    package var resourceAppID: String?
    package var endpointVersion: EndpointVersion
    package var authTime: Date
    package var sessionID: String?
    /// Authentication methods performed (`pwd`, `mfa`).
    package var authenticationMethods: [String]
    /// The raw `claims` request parameter (JSON), if any.
    package var claimsRequest: String?
    /// Client capabilities (`cp1`) from the claims request, carried as `xms_cc`.
    package var clientCapabilities: [String]
    /// For B2C: the user flow or custom policy.
    package var policy: String?
    package var isNewUser: Bool
    /// Permissions the user unticked on the consent page of this sign-in: redeeming its code names them
    /// without needing consent, and they are left out of the token, as the service does.
    package var declinedPermissions: [String] = []
    /// The platform the sign-in's redirect URI was registered under; nil for grants without one (password,
    /// device code) and unregistered redirect URIs in lenient mode.
    package var platform: RedirectPlatform?
    /// A single-page app's refresh tokens end then, 24 hours after its code was redeemed, however often used.
    package var spaRefreshExpiresAt: Date?
    /// The `sub` of the user's token an on-behalf-of exchange was given: the tokens it yields, refreshed
    /// ones too, name it in `xms_st` (the source token's subject).
    package var sourceSubject: String?

    package init(clientID: String, userID: String, tenantID: String, scopes: [String], resourceAppID: String?, endpointVersion: EndpointVersion, authTime: Date, sessionID: String? = nil, authenticationMethods: [String] = ["pwd"], claimsRequest: String? = nil, clientCapabilities: [String] = [], policy: String? = nil, isNewUser: Bool = false) {
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

package struct AuthorizationCodeRecord: Sendable, Expiring, Codable {
    package var code: String
    package var grant: GrantContext
    package var redirectURI: String
    package var codeChallenge: String?
    package var codeChallengeMethod: String?
    package var nonce: String?
    package var issuedAt: Date
    package var expiresAt: Date
    package var redeemedAt: Date?

    package init(code: String, grant: GrantContext, redirectURI: String, codeChallenge: String?, codeChallengeMethod: String?, nonce: String?, issuedAt: Date, expiresAt: Date) {
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

package struct RefreshTokenRecord: Sendable, Expiring, Codable {
    package var grant: GrantContext
    /// Family id when the token is a family refresh token (FOCI).
    package var familyID: String?
    package var issuedAt: Date
    /// Inactivity expiry: each use issues a new token; this one stays valid until it expires, as in Entra.
    package var expiresAt: Date
    package var lastUsedAt: Date?
    package var revoked: Bool = false

    package init(grant: GrantContext, familyID: String?, issuedAt: Date, expiresAt: Date) {
        self.grant = grant
        self.familyID = familyID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// The browser's sign-in state, kept server-side and named by a cookie.
package struct BrowserSession: Sendable, Expiring, Codable {
    package struct SignedInAccount: Sendable, Equatable, Codable {
        package var userID: String
        package var authTime: Date
        package var authenticationMethods: [String]
        package init(userID: String, authTime: Date, authenticationMethods: [String]) {
            self.userID = userID
            self.authTime = authTime
            self.authenticationMethods = authenticationMethods
        }
    }

    package var id: String
    package var accounts: [SignedInAccount]
    package var createdAt: Date
    /// B2C: the policy the session was established with.
    package var policy: String?
    /// The session ends then unless someone signs in through it again.
    package var expiresAt: Date

    package init(id: String, accounts: [SignedInAccount] = [], createdAt: Date, expiresAt: Date, policy: String? = nil) {
        self.id = id
        self.accounts = accounts
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.policy = policy
    }

    package var forgetAt: Date { expiresAt }
}

package struct DeviceCodeRecord: Sendable, Expiring, Codable {
    package enum Status: Sendable, Equatable, Codable {
        case pending
        case approved(GrantContext)
        case declined
        case redeemed
    }

    package var deviceCode: String
    package var userCode: String
    package var clientID: String
    package var tenantSegment: String
    package var requestedScopes: [String]
    package var endpointVersion: EndpointVersion
    package var issuedAt: Date
    package var expiresAt: Date
    /// Seconds a client must wait between polls (`slow_down` when faster).
    package var interval: Int
    package var lastPolledAt: Date?
    package var status: Status

    package init(deviceCode: String, userCode: String, clientID: String, tenantSegment: String, requestedScopes: [String], endpointVersion: EndpointVersion, issuedAt: Date, expiresAt: Date, interval: Int) {
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

/// What an External ID sign-up page collected while the code mailed to the address is awaited.
package struct PendingSignUp: Sendable, Codable, Equatable {
    package var email: String
    /// The user flow's attributes, by name (the display name among them).
    package var attributes: [String: String]
    package var password: String
    package var code: String
    package var codeExpiresAt: Date
}

/// An External ID page flow proving an address with a mailed code: signing in with the code alone, or
/// resetting a forgotten password (the code first, then the new password).
package struct PendingEmailCode: Sendable, Codable, Equatable {
    package enum Purpose: String, Sendable, Codable { case signIn, resetPassword }

    package var purpose: Purpose
    package var userID: String
    package var email: String
    package var code: String
    package var codeExpiresAt: Date
    /// The code was right: a reset may now set the new password.
    package var verified = false
    /// Wrong codes entered for this code.
    package var wrongAttempts = 0

    /// Wrong codes a mailed code survives: B2C's one-time password step's default `NumRetryAttempts`.
    package static let attemptsAllowed = 5

    package var isSpent: Bool { wrongAttempts >= Self.attemptsAllowed }

    private enum CodingKeys: String, CodingKey { case purpose, userID, email, code, codeExpiresAt, verified, wrongAttempts }

    /// A pending sign-in kept by an earlier version has no count of wrong attempts yet.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        purpose = try container.decode(Purpose.self, forKey: .purpose)
        userID = try container.decode(String.self, forKey: .userID)
        email = try container.decode(String.self, forKey: .email)
        code = try container.decode(String.self, forKey: .code)
        codeExpiresAt = try container.decode(Date.self, forKey: .codeExpiresAt)
        verified = try container.decodeIfPresent(Bool.self, forKey: .verified) ?? false
        wrongAttempts = try container.decodeIfPresent(Int.self, forKey: .wrongAttempts) ?? 0
    }

    package init(purpose: Purpose, userID: String, email: String, code: String, codeExpiresAt: Date) {
        self.purpose = purpose
        self.userID = userID
        self.email = email
        self.code = code
        self.codeExpiresAt = codeExpiresAt
    }
}

/// /authorize parameters kept between the sign-in, account picker and consent pages.
package struct PendingAuthorization: Sendable, Expiring, Codable {
    package var id: String
    /// The original query parameters of the /authorize request.
    package var parameters: [String: String]
    package var tenantSegment: String
    package var endpointVersion: EndpointVersion
    package var policy: String?
    /// Set once the user has signed in on this flow.
    package var userID: String?
    package var authenticationMethods: [String]
    /// The browser session this flow signed into, so later pages find it even without the cookie.
    package var sessionID: String?
    /// The secret of the cookie this flow set, handed out again to a browser that did not keep it. In memory
    /// only: the `--state` file keeps no cookie (`CodingKeys`).
    package var sessionCookie: String?
    /// The account was created on this flow (`prompt=create`): `newUser` in B2C tokens.
    package var isNewUser: Bool
    /// Permissions the user unticked on the consent page: neither consented to nor granted.
    package var declinedPermissions: [String] = []
    /// The platform the sign-in's redirect URI was registered under; nil for grants without one (password,
    /// device code) and unregistered redirect URIs in lenient mode.
    package var platform: RedirectPlatform?
    /// A single-page app's refresh tokens end then, 24 hours after its code was redeemed, however often used.
    package var spaRefreshExpiresAt: Date?
    /// The step whose page the flow showed last (`BrowserFlowCore`): a page's post is judged against it.
    package var step: String?
    /// An External ID sign-up waiting for its email to be verified.
    package var signUp: PendingSignUp?
    /// An External ID sign-in or password reset waiting for its mailed code.
    package var emailCode: PendingEmailCode?
    package var expiresAt: Date

    private enum CodingKeys: String, CodingKey {
        case id, parameters, tenantSegment, endpointVersion, policy, userID, authenticationMethods, sessionID, isNewUser,
             declinedPermissions, step, signUp, emailCode, expiresAt
    }

    package init(id: String, parameters: [String: String], tenantSegment: String, endpointVersion: EndpointVersion, policy: String? = nil, expiresAt: Date) {
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
    package var forgetAt: Date { expiresAt.addingTimeInterval(3600) }
}

extension RefreshTokenRecord {
    package var forgetAt: Date { expiresAt.addingTimeInterval(30 * 86400) }
}

extension DeviceCodeRecord {
    package var forgetAt: Date { expiresAt.addingTimeInterval(3600) }
}

extension PendingAuthorization {
    package var forgetAt: Date { expiresAt }

    /// The most of an /authorize request a pending sign-in keeps, names and values in UTF-8. A sign-in is kept
    /// for its lifetime, and in the `--state` file, before anyone has signed in: a form post from any page
    /// could otherwise park a megabyte per request. Real requests (MSAL's and ASP.NET's state, a claims
    /// challenge, a login hint) use a small part of it.
    package static let largestParameters = 8 * 1024

    package static func keptBytes(of parameters: [String: String]) -> Int {
        parameters.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }
}
