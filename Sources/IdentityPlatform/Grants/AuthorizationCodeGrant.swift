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
}
