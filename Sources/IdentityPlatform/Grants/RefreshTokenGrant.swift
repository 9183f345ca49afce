import ExchangeKernel
import EntraHTTP
import Foundation
import Synchronization

/// `grant_type=refresh_token`: Entra refresh tokens are multi-resource and rotate; an earlier token stays
/// usable until its own inactivity expiry. Family refresh tokens (FOCI) serve every app of the family.
enum RefreshTokenGrant {
    static func redeem(_ request: TokenRequest) throws(IdentityError) -> HTTPResponse {
        let token = try request.required("refresh_token")
        let client = try request.authenticateClient()
        let record: RefreshTokenRecord
        switch request.service.lookUpRefreshToken(token) {
        case .live(let live) where !live.revoked: record = live
        case .evicted: throw .grantExpired()
        case .live, .unknown: throw .invalidGrant()
        }
        if record.expiresAt <= request.now {
            throw .refreshTokenExpired(issuedAt: record.issuedAt, inactiveFor: request.now.timeIntervalSince(record.lastUsedAt ?? record.issuedAt))
        }
        let app = client.application
        let sameClient = record.grant.clientID.caseInsensitiveCompare(app.clientID) == .orderedSame
        if !sameClient {
            guard let family = record.familyID, app.familyID == family else { throw .clientMismatch() }
        }
        guard let user = request.directory.user(id: record.grant.userID) else { throw .invalidGrant() }
        try request.checkAccountUsable(user)
        if let validFrom = user.tokensValidFrom, validFrom > record.grant.authTime {
            throw .grantRevoked(issuedAt: record.grant.authTime, validFrom: validFrom)
        }
        let tenant = try request.tenant(of: user, client: client.application)
        let scopes = try request.scopeRequest(fallback: record.grant.scopes)
        try request.checkMultiFactor(user, methods: record.grant.authenticationMethods, resource: scopes.resource)

        // What the token was issued with stays allowed for its client (and, as first-party families are
        // pre-consented, for the family); anything else needs consent.
        var allowed = Set<String>()
        if let original = try? ScopeRequest.parse(scopes: record.grant.scopes, directory: request.directory, options: request.options),
           original.resource?.appID == scopes.resource?.appID {
            allowed = Set(request.directory.delegatedPermissions(for: original, client: app, userID: user.id, tenantID: user.tenantID).map { $0.lowercased() })
        }
        let permissions = try request.delegatedPermissions(scopes, client: app, user: user, allowed: allowed)

        request.service.markRefreshTokenUsed(token, at: request.now)
        request.exchange.receipt.grant(.refreshToken, .redeemed, handle: token)
        var grant = record.grant
        grant.clientID = app.clientID
        grant.scopes = scopes.scopes
        grant.resourceAppID = scopes.resource?.appID
        grant.endpointVersion = request.version
        grant.clientCapabilities = try request.clientCapabilities(carrying: grant.clientCapabilities)
        // A refreshed token keeps offline access even if this request did not repeat `offline_access`.
        var issued = scopes
        if !issued.reserved.contains(.offlineAccess) { issued.reserved.append(.offlineAccess) }
        return try request.issue(client: client, tenant: tenant, user: user, scopes: issued, permissions: permissions, grant: grant)
    }
}
