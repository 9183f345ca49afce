import ExchangeKernel
import EntraHTTP
import FoundationGaps

/// `grant_type=client_credentials`: an app-only token with the app's roles on one resource.
enum ClientCredentialsGrant {
    static func redeem(_ request: TokenRequest) throws(IdentityError) -> HTTPResponse {
        let client = try request.authenticateClient(requireCredential: true, missingCredential: .clientCredentialsWithoutCredential())
        let scopes = try request.scopeRequest()
        if request.version == .v2 {
            let scope = request.optional("scope") ?? ""
            guard scopes.isDefault, scopes.permissions.isEmpty, scopes.resource != nil else { throw .clientCredentialsNeedDefaultScope(scope) }
        }
        let tenant = try appTenant(request, client: client.application)
        let roles = request.directory.applicationPermissions(for: scopes, client: client.application, strict: request.service.options.strict)
        var issued = scopes
        issued.reserved = []
        return try request.issue(client: client, tenant: tenant, user: nil, scopes: issued, permissions: roles, grant: nil)
    }

    /// App-only tokens need a tenant: the authority's, or for `common`/`organizations` the app's home tenant.
    static func appTenant(_ request: TokenRequest, client: Application) throws(IdentityError) -> Tenant {
        if let tenant = request.authorityTenant { return tenant }
        if case .organizations = request.selector, let home = client.tenantID.flatMap(request.directory.tenant(id:)) { return home }
        if case .common = request.selector, let home = client.tenantID.flatMap(request.directory.tenant(id:)) { return home }
        throw .noTenantIdentifyingInformation()
    }
}
