import ExchangeKernel
import EntraHTTP
import FoundationGaps

/// One /token request with what every grant needs: parameters, tenant, directory snapshot, client
/// authentication and token issuance.
struct TokenRequest {
    let exchange: IdentityExchange
    let version: EndpointVersion
    let selector: TenantSelector
    /// Read once: grants decide on one consistent view; writes go through `service.directory`.
    let directory: Directory
    let parameters: FormParameters

    var service: IdentityService { exchange.service }
    var options: IdentityOptions { service.options }
    var now: Date { exchange.now }
    /// The browser page's origin when a browser sent the request (cross-origin: a single-page app's redemption).
    var origin: String? { exchange.request.headers["Origin"].flatMap { $0.isEmpty ? nil : $0 } }
    /// What an active scenario changes for this request.
    var directives: ScenarioDirectives { exchange.directives }

    func required(_ name: String) throws(IdentityError) -> String {
        guard let value = parameters[name], !value.isEmpty else { throw .missingParameter(name) }
        return value
    }

    func optional(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// Whether the authority names an External ID tenant (its native authentication grants apply).
    var isExternalTenant: Bool { authorityTenant?.kind == .external }

    /// The tenant the authority names, or nil for common/organizations/consumers.
    var authorityTenant: Tenant? {
        if case .specific(let tenant) = selector { return tenant }
        return nil
    }

    /// Resolves and authenticates the client. The client id comes from `client_id`, the Basic header,
    /// or (RFC 7523) the client assertion's subject.
    func authenticateClient(requireCredential: Bool = false, missingCredential: IdentityError = .missingClientCredential()) throws(IdentityError) -> AuthenticatedClient {
        let presented = PresentedClientCredentials(parameters: parameters, headers: exchange.request.headers)
        guard let clientID = presented.clientID ?? presented.assertion.flatMap({ ParsedJWT($0)?.string("sub") }) else {
            throw .missingParameter("client_id")
        }
        do throws(ClientRefusal) {
            let client = try ClientResolver.resolve(clientID: clientID, directory: directory, options: options, tenant: authorityTenant)
            let audience = AssertionAudience(requestHost: exchange.request.hostName, directory: directory)
            return try ClientAuthenticator.authenticate(presented, client: client, service: service, audience: audience, now: now, requireCredential: requireCredential)
        } catch {
            throw error.entra(missingCredential: missingCredential)
        }
    }

    /// `scope` on v2, `resource` on v1 (`fallback` when the parameter is absent and the grant allows it).
    func scopeRequest(fallback: [String]? = nil) throws(IdentityError) -> ScopeRequest {
        if version == .v1 {
            if let resource = optional("resource") {
                return try ScopeRequest.parse(v1Resource: resource, scope: optional("scope"), directory: directory)
            }
            guard let fallback else { throw .missingParameter("resource") }
            return try scopeRequest(granted: fallback)
        }
        let scopes: ScopeRequest
        if let scope = optional("scope") {
            scopes = try ScopeRequest.parse(scope, directory: directory, options: options)
        } else {
            guard let fallback else { throw .missingParameter("scope") }
            scopes = try scopeRequest(granted: fallback)
        }
        try ResourceIndicator.check(optional("resource"), against: scopes)
        return scopes
    }

    /// Re-reads the scopes a grant recorded. On the v1 endpoint they name the resource as `resource=`
    /// did: v1 semantics (audience as named, id and refresh tokens) are kept.
    func scopeRequest(granted scopes: [String]) throws(IdentityError) -> ScopeRequest {
        var request = try ScopeRequest.parse(scopes: scopes, directory: directory, options: options)
        if version == .v1 {
            request.fromV1Resource = request.resource != nil
            if !request.reserved.contains(.openid) { request.reserved.insert(.openid, at: 0) }
        }
        return request
    }

    /// The user's home tenant, provided this authority admits it.
    func tenant(of user: DirectoryUser, client: Application) throws(IdentityError) -> Tenant {
        guard let tenant = directory.tenant(id: user.tenantID), selector.admits(tenant) else {
            throw .userNotInTenant(tenant: exchange.route.tenantSegment, clientID: client.clientID, appName: client.displayName, error: "invalid_grant")
        }
        return tenant
    }

    /// Client capabilities (`cp1`) the `claims` parameter declares, else `earlier` (what the grant carried).
    func clientCapabilities(carrying earlier: [String]) throws(IdentityError) -> [String] {
        guard let claims = optional("claims") else { return earlier }
        let declared = try ClaimsRequest.clientCapabilities(in: claims)
        return declared.isEmpty ? earlier : declared
    }

    /// Non-interactive user grants fail when Conditional Access (or a claims challenge asking for MFA)
    /// wants MFA the sign-in did not do.
    func checkMultiFactor(_ user: DirectoryUser, methods: [String], resource: Resource?) throws(IdentityError) {
        let demanded = user.mfaRequired || directives.requireMFA || ClaimsRequest.requiresMFA(optional("claims"))
        if demanded && !methods.contains("mfa") {
            throw .mfaRequired(resource: resource?.appID ?? Resource.graphAppID)
        }
    }

    /// The delegated permissions for `request`, all of which must be in `allowed` (lowercased) or
    /// already consented; otherwise consent is required (65001) or admin consent (90094).
    /// A scenario may withdraw consent (`consentRequiredScopes`, for silent grants: the interactive one just
    /// consented) or decline scopes (`declinedScopes`); so may the user on the consent page (`declined`).
    func delegatedPermissions(_ request: ScopeRequest, client: Application, user: DirectoryUser, allowed: Set<String> = [], declined: [String] = [], silent: Bool = true) throws(IdentityError) -> [String] {
        let isDeclined = { (permission: String) in declined.contains { $0.caseInsensitiveCompare(permission) == .orderedSame } }
        let evaluation = directory.evaluateConsent(request, client: client, user: user)
        if evaluation.needingAdminConsent.contains(where: { !allowed.contains($0.lowercased()) }) {
            throw .adminConsentRequired()
        }
        let withdrawn = silent && evaluation.permissions.contains { request.matches($0, any: directives.consentRequiredScopes) }
        if withdrawn || evaluation.needingUserConsent.contains(where: { !allowed.contains($0.lowercased()) && !isDeclined($0) }) {
            throw .consentRequired(clientID: client.clientID, appName: client.displayName)
        }
        return evaluation.permissions.filter { !request.matches($0, any: directives.declinedScopes) && !isDeclined($0) }
    }

    /// Permissions granted without a consent page: the app's configured permissions on that resource
    /// count as admin-consented for grants that cannot show one (password, on-behalf-of).
    func configuredPermissions(_ request: ScopeRequest, client: Application) -> Set<String> {
        guard let resource = request.resource else { return [] }
        return Set(client.requiredResourceAccess.filter { resource.isNamed($0.resource) }.flatMap(\.scopes).map { $0.lowercased() })
    }

    /// `client_info=1` asks for `client_info` in the answer; the native authentication API's clients send
    /// `true` (MSAL for iOS/macOS, which refuses an answer without it).
    func issue(client: AuthenticatedClient, tenant: Tenant, user: DirectoryUser?, scopes: ScopeRequest, permissions: [String], grant: GrantContext?, nonce: String? = nil,
               clientInfoValues: Set<String> = ["1"]) throws(IdentityError) -> HTTPResponse {
        let issue = TokenIssue(
            client: client, tenant: tenant, user: user, scopeRequest: scopes, permissions: permissions, grant: grant,
            nonce: nonce, endpointVersion: version, clientAddress: exchange.connection.remoteAddress
        )
        return try TokenIssuer(exchange: exchange, origin: exchange.origin.url)
            .respond(to: issue, wantsClientInfo: optional("client_info").map(clientInfoValues.contains) ?? false)
    }
}
