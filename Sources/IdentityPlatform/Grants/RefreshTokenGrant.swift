import ExchangeKernel
import EntraHTTP
import FoundationGaps
import Synchronization

/// `grant_type=refresh_token`: Entra refresh tokens are multi-resource and rotate; an earlier token stays
/// usable until its own inactivity expiry. Family refresh tokens (FOCI) serve every app of the family.
enum RefreshTokenGrant {
    static func redeem(_ request: TokenRequest) throws(IdentityError) -> HTTPResponse {
        let token = try request.required("refresh_token")
        let client = try request.authenticateClient()
        let app = client.application
        let (record, user) = try GrantRedemption.refreshToken(
            token, client: app, service: request.service, directory: request.directory, now: request.now, dialect: .entra
        )
        try CrossOriginRedemption.checkRefresh(record.grant, origin: request.origin, strict: request.options.strict)
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

        GrantRedemption.spend(refreshToken: token, service: request.service, now: request.now, receipt: request.exchange.receipt)
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
