package import ExchangeKernel
package import FoundationGaps
import LocatedJSON

/// What one token response is about, decided by a grant; the claims builders read only this.
package struct TokenIssue: Sendable {
    package var client: AuthenticatedClient
    /// The tenant the tokens are issued in (`tid`): the user's home tenant, or the app-only tenant.
    package var tenant: Tenant
    /// nil for app-only tokens (client credentials).
    package var user: DirectoryUser?
    package var scopeRequest: ScopeRequest
    /// Delegated permissions (`scp`) for user tokens, app roles (`roles`) for app-only tokens.
    package var permissions: [String]
    /// User flows: what survives into refresh tokens (auth time, session, capabilities).
    package var grant: GrantContext?
    package var nonce: String?
    package var endpointVersion: EndpointVersion
    /// The `ipaddr` claim.
    package var clientAddress: String?

    package init(client: AuthenticatedClient, tenant: Tenant, user: DirectoryUser?, scopeRequest: ScopeRequest, permissions: [String], grant: GrantContext?, nonce: String? = nil, endpointVersion: EndpointVersion, clientAddress: String? = nil) {
        self.client = client
        self.tenant = tenant
        self.user = user
        self.scopeRequest = scopeRequest
        self.permissions = permissions
        self.grant = grant
        self.nonce = nonce
        self.endpointVersion = endpointVersion
        self.clientAddress = clientAddress
    }

    var clientID: String { client.application.clientID }
}

/// Builds the claims of id and access tokens, in the real service's formats.
package struct TokenClaimsBuilder: Sendable {
    package var origin: String
    package var now: Date
    package var options: IdentityOptions

    package init(origin: String, now: Date, options: IdentityOptions) {
        self.origin = origin
        self.now = now
        self.options = options
    }

    /// The name a person signs in with: their user principal name, or for an External ID customer, whose
    /// principal name is the tenant's own (`{id}@{tenant}.onmicrosoft.com`), their email.
    static func preferredUsername(_ user: DirectoryUser, in tenant: Tenant) -> String {
        tenant.kind == .external ? user.mail ?? user.userPrincipalName : user.userPrincipalName
    }

    /// The access token's audience: v2 format → the resource's app id; v1 format → the resource as the
    /// client named it (`resource=` on v1; on v2 Graph is named by its app id, others by their URI).
    package func accessTokenAudience(_ issue: TokenIssue) -> String {
        guard let resource = issue.scopeRequest.resource else { return Resource.graphAppID }
        if resource.accessTokenVersion == 2 { return resource.appID }
        // v1 tokens name the resource exactly as the client did, trailing slash included: a token for
        // `https://database.windows.net/` (ADAL's resource=, or MSAL's `https://database.windows.net//.default`)
        // has that very audience, and APIs compare it byte for byte.
        if issue.scopeRequest.fromV1Resource, let named = issue.scopeRequest.resourceName { return named }
        if resource.appID == Resource.graphAppID { return Resource.graphAppID }
        return issue.scopeRequest.resourceName ?? resource.identifierURI
    }

    package func accessTokenClaims(_ issue: TokenIssue) -> ClaimSet {
        let version = issue.scopeRequest.resource?.accessTokenVersion ?? 1
        let tid = issue.tenant.id
        var c = ClaimSet(capacity: 24)
        c.set("aud", accessTokenAudience(issue))
        let issuer = version == 2 ? issue.tenant.issuerV2(origin: origin) : Issuer.v1(tenantID: tid)
        c.set("iss", issuer)
        c.set("iat", now)
        c.set("nbf", now)
        c.set("exp", now.addingTimeInterval(options.accessTokenLifetime))
        let app = issue.client.application
        if let user = issue.user {
            if version == 1 { c.set("acr", "1") }
            c.set("aio", TokenIdentifiers.opaqueInternal())
            if version == 1 {
                c.set("amr", issue.grant?.authenticationMethods ?? ["pwd"])
                c.set("app_displayname", app.displayName)
                c.set("appid", app.clientID)
                c.set("appidacr", String(issue.client.method.rawValue))
                c.set("family_name", user.surname)
                c.set("given_name", user.givenName)
                if issue.tenant.kind == .consumers { c.set("idp", "live.com") }
                c.set("idtyp", "user")
                c.set("ipaddr", issue.clientAddress)
                c.set("name", user.displayName)
            } else {
                c.set("azp", app.clientID)
                c.set("azpacr", String(issue.client.method.rawValue))
                c.set("idtyp", "user")
                c.set("name", user.displayName)
            }
            c.set("oid", user.id)
            if version == 2 { c.set("preferred_username", Self.preferredUsername(user, in: issue.tenant)) }
            c.set("rh", TokenIdentifiers.resourceHint())
            c.set("scp", delegatedScopes(issue).joined(separator: " "))
            c.set("sid", issue.grant.map { $0.sessionID ?? TokenIdentifiers.sessionID(userID: user.id, authTime: $0.authTime) })
            c.set("sub", TokenIdentifiers.pairwiseSubject(objectID: user.id, clientID: app.clientID))
            c.set("tid", tid)
            if version == 1 {
                c.set("unique_name", issue.tenant.kind == .consumers ? "live.com#\(user.userPrincipalName)" : user.userPrincipalName)
                if issue.tenant.kind != .consumers { c.set("upn", user.userPrincipalName) }
            }
        } else {
            let servicePrincipal = TokenIdentifiers.servicePrincipalID(clientID: app.clientID, tenantID: tid)
            c.set("aio", TokenIdentifiers.opaqueInternal())
            if version == 1 {
                c.set("app_displayname", app.displayName)
                c.set("appid", app.clientID)
                c.set("appidacr", String(issue.client.method.rawValue))
                c.set("idp", issuer)   // the v1 issuer (version is 1 here)
            } else {
                c.set("azp", app.clientID)
                c.set("azpacr", String(issue.client.method.rawValue))
            }
            c.set("idtyp", "app")
            c.set("oid", servicePrincipal)
            c.set("rh", TokenIdentifiers.resourceHint())
            // An app granted no role carries no `roles` claim (the claim is absent, not empty).
            if !issue.permissions.isEmpty { c.set("roles", issue.permissions) }
            c.set("sub", servicePrincipal)
            c.set("tid", tid)
        }
        c.set("uti", TokenIdentifiers.uniqueTokenID())
        c.set("ver", version == 2 ? "2.0" : "1.0")
        if let capabilities = issue.grant?.clientCapabilities, !capabilities.isEmpty { c.set("xms_cc", capabilities) }
        // The subject the middle tier saw, beside its own pairwise `sub` (recorded 2026: Graph's token from an
        // on-behalf-of exchange, joetanx/mslab entra/flows/on-behalf-of.md; Tests/Fidelity/recordings).
        if issue.user != nil, let subject = issue.grant?.sourceSubject { c.set("xms_st", .object([("sub", .string(subject))])) }
        return c
    }

    /// `scp`: the permissions granted. A request for OpenID Connect scopes alone yields a Graph token for
    /// the UserInfo endpoint whose `scp` names them, as the real service's does.
    func delegatedScopes(_ issue: TokenIssue) -> [String] {
        guard issue.scopeRequest.resource == nil else { return issue.permissions }
        return issue.scopeRequest.reserved.filter { $0 != .offlineAccess }.map(\.rawValue)
    }

    /// The v2 id_token (v1 endpoint: the v1 id_token). nil for app-only issues.
    package func idTokenClaims(_ issue: TokenIssue) -> ClaimSet? {
        guard let user = issue.user else { return nil }
        let tid = issue.tenant.id
        let request = issue.scopeRequest
        let authTime = issue.grant?.authTime ?? now
        let sessionID = issue.grant?.sessionID ?? TokenIdentifiers.sessionID(userID: user.id, authTime: authTime)
        var c = ClaimSet(capacity: 24)
        c.set("aud", issue.clientID)
        if issue.endpointVersion == .v1 {
            c.set("iss", Issuer.v1(tenantID: tid))
            c.set("iat", now)
            c.set("nbf", now)
            c.set("exp", now.addingTimeInterval(options.idTokenLifetime))
            c.set("aio", TokenIdentifiers.opaqueInternal())
            c.set("amr", issue.grant?.authenticationMethods ?? ["pwd"])
            c.set("family_name", user.surname)
            c.set("given_name", user.givenName)
            c.set("ipaddr", issue.clientAddress)
            c.set("name", user.displayName)
            c.set("nonce", issue.nonce)
            c.set("oid", user.id)
            c.set("rh", TokenIdentifiers.resourceHint())
            c.set("sub", TokenIdentifiers.pairwiseSubject(objectID: user.id, clientID: issue.clientID))
            c.set("tid", tid)
            c.set("unique_name", user.userPrincipalName)
            if issue.tenant.kind != .consumers { c.set("upn", user.userPrincipalName) }
            c.set("uti", TokenIdentifiers.uniqueTokenID())
            c.set("ver", "1.0")
            return c
        }
        c.set("iss", issue.tenant.issuerV2(origin: origin))
        c.set("iat", now)
        c.set("nbf", now)
        c.set("exp", now.addingTimeInterval(options.idTokenLifetime))
        c.set("aio", TokenIdentifiers.opaqueInternal())
        c.set("auth_time", authTime)
        if request.includes(.email) { c.set("email", user.mail ?? (user.userPrincipalName.contains("@") ? user.userPrincipalName : nil)) }
        if request.includes(.profile) {
            c.set("family_name", user.surname)
            c.set("given_name", user.givenName)
        }
        c.set("login_hint", TokenIdentifiers.loginHint(objectID: user.id, tenantID: tid))
        c.set("name", user.displayName)
        c.set("nonce", issue.nonce)
        c.set("oid", user.id)
        c.set("preferred_username", Self.preferredUsername(user, in: issue.tenant))
        c.set("rh", TokenIdentifiers.resourceHint())
        c.set("sid", sessionID)
        c.set("sub", TokenIdentifiers.pairwiseSubject(objectID: user.id, clientID: issue.clientID))
        c.set("tid", tid)
        c.set("uti", TokenIdentifiers.uniqueTokenID())
        c.set("ver", "2.0")
        return c
    }
}
