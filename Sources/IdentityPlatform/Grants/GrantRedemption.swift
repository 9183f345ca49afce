package import ExchangeKernel
import EntraCrypto
package import FoundationGaps

/// The checks a code or a refresh token passes before it buys tokens, in the order the service makes
/// them, for every token endpoint that redeems one: Entra's grants and B2C's policy endpoints. A service's
/// `Dialect` says how it refuses, what else binds a grant (a B2C policy) and the few checks that are its
/// own (whether a redirect URI may be left out, whether a verifier's size is checked before the challenge);
/// the steps and their order are shared, so a check added for one service cannot be missed by the other.
package enum GrantRedemption {
    /// How a service words its refusals, and what it checks beyond the shared steps.
    package struct Dialect: Sendable {
        package let unknownRefreshToken: @Sendable () -> IdentityError
        package let revokedRefreshToken: @Sendable () -> IdentityError
        /// A token dropped because the store was full: reported as the expiry it was closest to.
        package let evictedRefreshToken: @Sendable (_ now: Date) -> IdentityError
        /// The refusal of a token past its lifetime at `now`; nil while it is valid.
        package let expiredRefreshToken: @Sendable (RefreshTokenRecord, _ now: Date) -> IdentityError?
        /// The refusal of a refresh token presented by another client than its own; nil where the service
        /// lets that client use it (Entra's app families).
        package let refreshTokenClientMismatch: @Sendable (RefreshTokenRecord, Application) -> IdentityError?
        /// The user a refresh token was issued for is gone from the directory.
        package let refreshTokenUserGone: @Sendable () -> IdentityError
        /// The user signed out everywhere (or was revoked) after the grant's sign-in.
        package let revokedSinceSignIn: @Sendable (GrantContext, _ validFrom: Date) -> IdentityError
        /// Why the code's store would not redeem it, in the service's words.
        package let codeRefusal: @Sendable (CodeRefusal, _ now: Date) -> IdentityError
        package let codeClientMismatch: @Sendable (GrantContext, Application) -> IdentityError
        package let codeUserGone: @Sendable () -> IdentityError
        /// Whether a code issued with a redirect URI must be redeemed naming it (Entra) or may omit it (B2C).
        package let requiresRedirectURI: Bool
        package let redirectURIMismatch: @Sendable (_ presented: String, _ clientID: String) -> IdentityError
        /// The refusal of a `code_verifier` outside RFC 7636's 43 to 128 characters; nil where the service
        /// lets the challenge comparison decide.
        package let invalidVerifierSize: (@Sendable () -> IdentityError)?
        package let pkceMismatch: @Sendable () -> IdentityError
        package let missingParameter: @Sendable (String) -> IdentityError
        /// What stops an account from getting tokens at all.
        package let checkUsable: @Sendable (DirectoryUser) throws(IdentityError) -> Void
        /// What else ties a grant to where it is redeemed (B2C: the policy that issued it).
        package let checkBinding: @Sendable (GrantContext) throws(IdentityError) -> Void

        package init(
            unknownRefreshToken: @escaping @Sendable () -> IdentityError, revokedRefreshToken: @escaping @Sendable () -> IdentityError,
            evictedRefreshToken: @escaping @Sendable (Date) -> IdentityError,
            expiredRefreshToken: @escaping @Sendable (RefreshTokenRecord, Date) -> IdentityError?,
            refreshTokenClientMismatch: @escaping @Sendable (RefreshTokenRecord, Application) -> IdentityError?,
            refreshTokenUserGone: @escaping @Sendable () -> IdentityError,
            revokedSinceSignIn: @escaping @Sendable (GrantContext, Date) -> IdentityError,
            codeRefusal: @escaping @Sendable (CodeRefusal, Date) -> IdentityError,
            codeClientMismatch: @escaping @Sendable (GrantContext, Application) -> IdentityError,
            codeUserGone: @escaping @Sendable () -> IdentityError, requiresRedirectURI: Bool,
            redirectURIMismatch: @escaping @Sendable (String, String) -> IdentityError,
            invalidVerifierSize: (@Sendable () -> IdentityError)?, pkceMismatch: @escaping @Sendable () -> IdentityError,
            missingParameter: @escaping @Sendable (String) -> IdentityError,
            checkUsable: @escaping @Sendable (DirectoryUser) throws(IdentityError) -> Void,
            checkBinding: @escaping @Sendable (GrantContext) throws(IdentityError) -> Void
        ) {
            self.unknownRefreshToken = unknownRefreshToken
            self.revokedRefreshToken = revokedRefreshToken
            self.evictedRefreshToken = evictedRefreshToken
            self.expiredRefreshToken = expiredRefreshToken
            self.refreshTokenClientMismatch = refreshTokenClientMismatch
            self.refreshTokenUserGone = refreshTokenUserGone
            self.revokedSinceSignIn = revokedSinceSignIn
            self.codeRefusal = codeRefusal
            self.codeClientMismatch = codeClientMismatch
            self.codeUserGone = codeUserGone
            self.requiresRedirectURI = requiresRedirectURI
            self.redirectURIMismatch = redirectURIMismatch
            self.invalidVerifierSize = invalidVerifierSize
            self.pkceMismatch = pkceMismatch
            self.missingParameter = missingParameter
            self.checkUsable = checkUsable
            self.checkBinding = checkBinding
        }

        /// Entra ID: a revoked or unknown token is just invalid, families share refresh tokens, an expired
        /// one says how long it lay unused.
        static let entra = Dialect(
            unknownRefreshToken: { .invalidGrant() }, revokedRefreshToken: { .invalidGrant() },
            evictedRefreshToken: { _ in .grantExpired() },
            expiredRefreshToken: { record, now in
                guard record.expiresAt <= now else { return nil }
                if let end = record.grant.spaRefreshExpiresAt, end <= now {
                    return .spaRefreshTokenExpired(issuedAt: end.addingTimeInterval(-CrossOriginRedemption.spaRefreshTokenLifetime))
                }
                return .refreshTokenExpired(issuedAt: record.issuedAt, inactiveFor: now.timeIntervalSince(record.lastUsedAt ?? record.issuedAt))
            },
            refreshTokenClientMismatch: { record, app in
                if record.grant.clientID.caseInsensitiveCompare(app.clientID) == .orderedSame { return nil }
                if let family = record.familyID, app.familyID == family { return nil }
                return .clientMismatch()
            },
            refreshTokenUserGone: { .invalidGrant() },
            revokedSinceSignIn: { grant, validFrom in .grantRevoked(issuedAt: grant.authTime, validFrom: validFrom) },
            codeRefusal: { refusal, _ in
                switch refusal {
                case .malformed: .malformedGrant()
                case .unknown: .invalidCode()
                case .expired: .grantExpired()
                case .alreadyRedeemed: .codeAlreadyRedeemed()
                }
            },
            codeClientMismatch: { _, _ in .invalidCode() },
            codeUserGone: { .invalidCode() }, requiresRedirectURI: true,
            redirectURIMismatch: { .redirectURIMismatch($0, clientID: $1) },
            invalidVerifierSize: nil, pkceMismatch: { .pkceMismatch() },
            missingParameter: { .missingParameter($0) },
            checkUsable: { user throws(IdentityError) in try checkAccountUsable(user) },
            checkBinding: { _ throws(IdentityError) in }
        )
    }

    /// What stops an account from getting tokens from Entra at all, in the order the service checks.
    static func checkAccountUsable(_ user: DirectoryUser) throws(IdentityError) {
        if let refusal = user.refusal { throw .refusing(refusal) }
    }

    /// A refresh token `client` may redeem, and its user. Nothing is spent: the caller marks the token
    /// used (`spend`) once every check of its own passed.
    package static func refreshToken(
        _ token: String, client: Application, service: IdentityService, directory: Directory, now: Date, dialect: Dialect
    ) throws(IdentityError) -> (record: RefreshTokenRecord, user: DirectoryUser) {
        let record: RefreshTokenRecord
        switch service.lookUpRefreshToken(token) {
        case .live(let live): record = live
        case .evicted: throw dialect.evictedRefreshToken(now)
        case .unknown: throw dialect.unknownRefreshToken()
        }
        if record.revoked { throw dialect.revokedRefreshToken() }
        if let expired = dialect.expiredRefreshToken(record, now) { throw expired }
        try dialect.checkBinding(record.grant)
        if let mismatch = dialect.refreshTokenClientMismatch(record, client) { throw mismatch }
        guard let user = directory.user(id: record.grant.userID) else { throw dialect.refreshTokenUserGone() }
        try dialect.checkUsable(user)
        if let validFrom = user.tokensValidFrom, validFrom > record.grant.authTime {
            throw dialect.revokedSinceSignIn(record.grant, validFrom)
        }
        return (record, user)
    }

    /// Marks a refresh token used (its inactivity expiry slides) and records the redemption.
    package static func spend(refreshToken token: String, service: IdentityService, now: Date, receipt: ReceiptRecorder) {
        service.markRefreshTokenUsed(token, at: now)
        receipt.grant(.refreshToken, .redeemed, handle: token)
    }

    /// An authorization code `client` may redeem with these parameters (redirect URI, PKCE verifier), and
    /// its user. Nothing is spent: the caller redeems it (`spend`) once every check of its own passed.
    package static func authorizationCode(
        _ code: String, client: Application, parameters: (String) -> String?, service: IdentityService, directory: Directory,
        now: Date, dialect: Dialect
    ) throws(IdentityError) -> (record: AuthorizationCodeRecord, user: DirectoryUser) {
        let record: AuthorizationCodeRecord
        do throws(CodeRefusal) { record = try service.redeemableCode(code, now: now) } catch {
            throw dialect.codeRefusal(error, now)
        }
        try dialect.checkBinding(record.grant)
        guard record.grant.clientID.caseInsensitiveCompare(client.clientID) == .orderedSame else {
            throw dialect.codeClientMismatch(record.grant, client)
        }
        if !record.redirectURI.isEmpty {
            let presented = parameters("redirect_uri")
            if presented == nil, dialect.requiresRedirectURI { throw dialect.missingParameter("redirect_uri") }
            if let presented, presented != record.redirectURI { throw dialect.redirectURIMismatch(presented, client.clientID) }
        }
        if let challenge = record.codeChallenge {
            guard let verifier = parameters("code_verifier") else { throw dialect.missingParameter("code_verifier") }
            if let invalidVerifierSize = dialect.invalidVerifierSize, !(43...128).contains(verifier.count) { throw invalidVerifierSize() }
            let method: PKCEMethod = record.codeChallengeMethod?.lowercased() == "s256" ? .s256 : .plain
            guard PKCE.verify(verifier: verifier, challenge: challenge, method: method) else { throw dialect.pkceMismatch() }
        }
        guard let user = directory.user(id: record.grant.userID) else { throw dialect.codeUserGone() }
        try dialect.checkUsable(user)
        return (record, user)
    }

    /// Redeems a code, failing when a concurrent request redeemed it first.
    package static func spend(
        authorizationCode code: String, service: IdentityService, now: Date, receipt: ReceiptRecorder, dialect: Dialect
    ) throws(IdentityError) {
        do throws(CodeRefusal) { try service.redeemCode(code, now: now) } catch {
            throw dialect.codeRefusal(error, now)
        }
        receipt.grant(.authorizationCode, .redeemed, handle: code)
    }
}
