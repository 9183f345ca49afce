import ExchangeKernel
import EntraHTTP
import FoundationGaps

/// `grant_type=password` (ROPC): the user's name and password straight to /token, no pages.
enum PasswordGrant {
    static func redeem(_ request: TokenRequest) throws(IdentityError) -> HTTPResponse {
        let username = try request.required("username")
        let password = try request.required("password")
        let client = try request.authenticateClient()
        let scopes = try request.scopeRequest()
        let tenantName = request.authorityTenant?.primaryDomain ?? request.exchange.route.tenantSegment
        guard let account = request.directory.users.first(where: { candidate in
            candidate.answers(to: username) && (request.directory.tenant(id: candidate.tenantID).map(request.selector.admits) ?? false)
        }) else {
            throw .userNotFound(username, tenant: tenantName)
        }
        // A lockout refuses before the password is compared; a disabled account only once it is right.
        if account.refusal == .locked { throw .refusing(.locked) }
        let user = try PasswordSubmit(request.exchange).check(password, of: account, signInName: username, client: client.application).signedIn()
        try GrantRedemption.checkAccountUsable(user)
        if user.passwordExpired { throw .passwordExpired() }
        try request.checkMultiFactor(user, methods: ["pwd"], resource: scopes.resource)
        let tenant = try request.tenant(of: user, client: client.application)
        // No consent page exists on this path: configured permissions count as admin-consented.
        let permissions = try request.delegatedPermissions(scopes, client: client.application, user: user, allowed: request.configuredPermissions(scopes, client: client.application))
        let grant = GrantContext(
            clientID: client.application.clientID, userID: user.id, tenantID: tenant.id, scopes: scopes.scopes,
            resourceAppID: scopes.resource?.appID, endpointVersion: request.version, authTime: request.now,
            authenticationMethods: ["pwd"], clientCapabilities: try request.clientCapabilities(carrying: [])
        )
        return try request.issue(client: client, tenant: tenant, user: user, scopes: scopes, permissions: permissions, grant: grant)
    }
}
