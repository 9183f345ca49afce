package import LocatedJSON
package import ExchangeKernel
package import FoundationGaps

/// What `POST /_fakeentra/tokens` and `fakeentra token` ask for: a token for a user or an app, minted
/// without a sign-in, for tests of a web API. The claims come from the same builder and the signature
/// from the same key as the tokens the endpoints issue, so a mint validates exactly like a real one.
package struct TokenMintRequest: Sendable, Equatable {
    package enum Kind: String, Sendable { case access, id }

    package var kind: Kind = .access
    /// The client the token is for (`azp`/`appid`, and `aud` of an id token). Default: Azure CLI's
    /// public client id, the client of `az account get-access-token`.
    package var clientID: String = TokenMintRequest.defaultClientID
    /// A UPN, sign-in name or object id; nil mints an app-only token (client credentials).
    package var user: String?
    /// App-only tokens: the tenant (id or domain); default the app's home tenant, else the first organization.
    package var tenant: String?
    /// Scopes as a client writes them (`api://my-api/read`, `User.Read`, `https://graph.microsoft.com/.default`):
    /// they name the resource (`aud`) and, for a user, the `scp`. A resource the directory does not know
    /// is taken as the caller's own API with v2 tokens.
    package var scopes: [String] = []
    /// App roles: `roles` of an app-only token, or added to a user's token as assigned roles.
    package var roles: [String] = []
    /// Replaces `aud`.
    package var audience: String?
    /// Seconds until `exp` (default: the server's access or id token lifetime).
    package var lifetime: TimeInterval?
    /// `1` or `2`: the access token format, whatever the resource accepts.
    package var version: Int?
    /// Claims added or replaced last, by name.
    package var extraClaims: [(String, JSONValue)] = []
    /// A token broken on purpose, for an API's own tests of what it must refuse.
    package var forgery: TokenForgery?

    package static let defaultClientID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"

    package init() {}

    package static func == (lhs: TokenMintRequest, rhs: TokenMintRequest) -> Bool {
        lhs.kind == rhs.kind && lhs.clientID == rhs.clientID && lhs.user == rhs.user && lhs.tenant == rhs.tenant
            && lhs.scopes == rhs.scopes && lhs.roles == rhs.roles && lhs.audience == rhs.audience && lhs.lifetime == rhs.lifetime
            && lhs.version == rhs.version && lhs.extraClaims.elementsEqual(rhs.extraClaims, by: { $0 == $1 }) && lhs.forgery == rhs.forgery
    }
}

/// A refused mint: the message says what to change.
package struct TokenMintError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Reason: String, Sendable { case unknownUser = "unknown_user", unknownTenant = "unknown_tenant", unknownBinding = "unknown_binding", invalidRequest = "invalid_request" }
    package var reason: Reason
    package var message: String
    package var description: String { message }

    package init(reason: Reason, message: String) {
        self.reason = reason
        self.message = message
    }
}

/// A minted token with what went into it.
package struct MintedToken: Sendable {
    package var token: String
    package var claims: ClaimSet
    package var expiresOn: Date
}

extension TokenIssuer {
    /// Mints the token `request` asks for, at `now`, with this issuer's origin and the service's current key.
    package func mint(_ request: TokenMintRequest) throws(TokenMintError) -> MintedToken {
        let directory = service.currentDirectory
        var user: DirectoryUser?
        if let name = request.user {
            guard let found = directory.user(named: name) else {
                throw TokenMintError(reason: .unknownUser, message: "no user \"\(name)\" in the directory (give a UPN, sign-in name or object id)")
            }
            guard directory.tenant(id: found.tenantID)?.kind != .b2c else {
                throw TokenMintError(reason: .invalidRequest, message: "\(name) is a B2C local account: B2C tokens come from a user flow (/tfp/…/token), not from the mint")
            }
            user = found
        }
        if request.kind == .id, user == nil { throw TokenMintError(reason: .invalidRequest, message: "an id token is about a user: give \"user\"") }
        if let version = request.version, version != 1 && version != 2 { throw TokenMintError(reason: .invalidRequest, message: "\"version\" must be 1 or 2") }
        if let lifetime = request.lifetime, !(lifetime > 0 && lifetime <= 10 * 365 * 86400) {
            throw TokenMintError(reason: .invalidRequest, message: "\"lifetime\" must be a positive number of seconds (at most ten years)")
        }
        let app = directory.application(clientID: request.clientID) ?? ClientResolver.lenientApplication(clientID: request.clientID)
        let tenant = try mintTenant(request, user: user, app: app, directory: directory)
        var scopes = try Self.mintScopes(request.scopes, directory: directory)
        if let version = request.version, var resource = scopes.resource {
            resource.accessTokenVersion = version
            scopes.resource = resource
        }
        let client = AuthenticatedClient(client: ResolvedClient(application: app, isRegistered: directory.hasApplication(clientID: request.clientID)),
                                         method: app.isPublicClient ? .none : .secret)
        let grant = user.map { u in
            GrantContext(clientID: app.clientID, userID: u.id, tenantID: tenant.id, scopes: scopes.scopes, resourceAppID: scopes.resource?.appID,
                         endpointVersion: request.version == 1 ? .v1 : .v2, authTime: now, sessionID: nil, authenticationMethods: ["pwd"],
                         claimsRequest: nil, clientCapabilities: [], policy: nil, isNewUser: false)
        }
        let issue = TokenIssue(client: client, tenant: tenant, user: user, scopeRequest: scopes,
                               permissions: user == nil ? request.roles : scopes.permissions, grant: grant,
                               endpointVersion: request.kind == .id && request.version == 1 ? .v1 : .v2)
        var options = self.options
        if let lifetime = request.lifetime {
            options.accessTokenLifetime = lifetime
            options.idTokenLifetime = lifetime
        }
        let builder = TokenClaimsBuilder(origin: origin, now: now, options: options)
        var claims = request.kind == .id ? (builder.idTokenClaims(issue) ?? ClaimSet()) : builder.accessTokenClaims(issue)
        if let audience = request.audience { claims.override("aud", .string(audience)) }
        if user != nil, !request.roles.isEmpty { claims.override("roles", .strings(request.roles)) }
        for (name, value) in request.extraClaims { claims.override(name, value) }
        let lifetime = request.kind == .id ? options.idTokenLifetime : options.accessTokenLifetime
        let token: String
        do { token = try sign(&claims, kind: request.kind == .id ? .id : .access, forgery: request.forgery) } catch { throw TokenMintError(reason: .invalidRequest, message: error.message) }
        // What the token says, a forgery's `exp` included.
        let expiresOn = claims.integer("exp").map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? now.addingTimeInterval(lifetime)
        return MintedToken(token: token, claims: claims, expiresOn: expiresOn)
    }

    private func mintTenant(_ request: TokenMintRequest, user: DirectoryUser?, app: Application, directory: Directory) throws(TokenMintError) -> Tenant {
        if let user {
            guard let home = directory.tenant(id: user.tenantID) else { throw TokenMintError(reason: .unknownTenant, message: "the user's tenant \(user.tenantID) is not in the directory") }
            return home
        }
        if let name = request.tenant {
            guard let tenant = directory.tenant(matching: name) else { throw TokenMintError(reason: .unknownTenant, message: "no tenant \"\(name)\" in the directory (give its id or a domain)") }
            return tenant
        }
        if let home = app.tenantID.flatMap(directory.tenant(id:)) { return home }
        guard let first = directory.tenants.first(where: { $0.kind == .organization }) else {
            throw TokenMintError(reason: .unknownTenant, message: "the directory has no organization tenant: give \"tenant\"")
        }
        return first
    }

    /// The scopes as the client would send them, without consent or exposure checks: the mint is the
    /// test's own authority. A resource the directory lacks becomes an API of that name (v2 tokens).
    static func mintScopes(_ raw: [String], directory: Directory) throws(TokenMintError) -> ScopeRequest {
        var request = ScopeRequest()
        for scope in raw where !scope.isEmpty {
            request.scopes.append(scope)
            if let reserved = ReservedScope(scope: scope) {
                if !request.reserved.contains(reserved) { request.reserved.append(reserved) }
                continue
            }
            let (name, permission) = ScopeRequest.split(scope)
            let resource = name.map { directory.resource(named: $0) ?? Resource(appID: $0, identifierURI: $0, displayName: $0, delegatedPermissions: [], applicationPermissions: [], accessTokenVersion: 2) }
                ?? .microsoftGraph
            if let named = request.resource, named.appID != resource.appID {
                throw TokenMintError(reason: .invalidRequest, message: "scopes of one token name one resource: \(request.resourceName ?? named.appID) and \(name ?? "Microsoft Graph")")
            }
            if request.resource == nil {
                request.resource = resource
                request.resourceName = name
            }
            if permission == ".default" { request.isDefault = true } else if !request.permissions.contains(permission) { request.permissions.append(permission) }
        }
        return request
    }
}
