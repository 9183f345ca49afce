import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import Synchronization

/// `grant_type=authorization_code`: redeems a code /authorize issued (single use, short-lived, PKCE).
package enum AuthorizationCodeGrant {
    static func redeem(_ request: TokenRequest) throws(IdentityError) -> HTTPResponse {
        let code = try request.required("code")
        let client = try request.authenticateClient()
        let (record, user) = try GrantRedemption.authorizationCode(
            code, client: client.application, parameters: request.optional, service: request.service, directory: request.directory,
            now: request.now, dialect: .entra
        )
        let platform = try CrossOriginRedemption.checkCode(redirectURI: record.redirectURI, application: client.application,
                                                           origin: request.origin, strict: request.options.strict)
        let tenant = try request.tenant(of: user, client: client.application)

        // The code's own scopes were consented on the way through /authorize; a `scope` naming more
        // (or another resource) needs consent already on record.
        let original = try? ScopeRequest.parse(scopes: record.grant.scopes, directory: request.directory, options: request.options)
        let scopes = try request.scopeRequest(fallback: record.grant.scopes)
        var allowed = Set<String>()
        if let original, original.resource?.appID == scopes.resource?.appID {
            allowed = Set(request.directory.delegatedPermissions(for: original, client: client.application, userID: user.id, tenantID: user.tenantID).map { $0.lowercased() })
        }
        let declined = record.grant.declinedPermissions
        let permissions = try request.delegatedPermissions(scopes, client: client.application, user: user, allowed: allowed, declined: declined, silent: false)

        try GrantRedemption.spend(authorizationCode: code, service: request.service, now: request.now, receipt: request.exchange.receipt, dialect: .entra)
        var grant = record.grant
        // The refresh token carries what was granted, not what the user declined.
        grant.scopes = scopes.scopes.filter { scope in !declined.contains { scopes.matches($0, any: [scope]) } }
        grant.resourceAppID = scopes.resource?.appID
        grant.endpointVersion = request.version
        grant.platform = platform
        if platform == .spa { grant.spaRefreshExpiresAt = request.now.addingTimeInterval(CrossOriginRedemption.spaRefreshTokenLifetime) }
        // A native-authentication V2 code (no redirect URI) is redeemed by MSAL for iOS with `client_info=true`.
        return try request.issue(client: client, tenant: tenant, user: user, scopes: scopes, permissions: permissions, grant: grant, nonce: record.nonce,
                                 clientInfoValues: record.redirectURI.isEmpty ? ["1", "true"] : ["1"])
    }

    static func lookUp(_ code: String, now: Date, service: IdentityService) throws(IdentityError) -> AuthorizationCodeRecord {
        guard isWellFormed(code) else { throw .malformedGrant() }
        let (record, evicted) = service.state.withLock { ($0.authorizationCodes[code], $0.authorizationCodes.wasEvicted(handle: code)) }
        // A code dropped because the store was full is reported as the expiry it was closest to.
        guard let record else { throw evicted ? .grantExpired() : .invalidCode() }
        if record.redeemedAt != nil { throw .codeAlreadyRedeemed() }
        if record.expiresAt <= now { throw .grantExpired() }
        return record
    }

    /// Whether a code could be one the service issued: base64url and dots only. A code percent-encoded
    /// twice, or base64 with `+`, `/` and `=`, is malformed, not unknown.
    static func isWellFormed(_ code: String) -> Bool {
        code.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
    }

    /// Marks the code used, failing if a concurrent request redeemed it first.
    static func markRedeemed(_ code: String, now: Date, service: IdentityService, receipt: ReceiptRecorder) throws(IdentityError) {
        let won = service.state.withLock { state -> Bool in
            guard state.authorizationCodes[code]?.redeemedAt == nil else { return false }
            state.authorizationCodes[code]?.redeemedAt = now
            return true
        }
        if !won { throw .codeAlreadyRedeemed() }
        receipt.grant(.authorizationCode, .redeemed, handle: code)
    }
}
