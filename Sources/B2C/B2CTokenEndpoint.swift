import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import IdentityPlatform
import Synchronization

/// `POST …/{policy}/oauth2/v2.0/token`: the authorization code and refresh token grants of B2C, the
/// password on a ROPC policy, and client credentials on any policy. Codes and refresh tokens are bound to
/// the policy that issued them (AADB2C90088 elsewhere); errors are AADB2C ones in the token endpoint's JSON.
enum B2CTokenEndpoint {
    static func respond(_ exchange: B2CExchange) -> HTTPResponse {
        TokenEndpoint.respond(exchange.base, trace: exchange.trace) { () throws(IdentityError) in try handle(exchange) }
    }

    static func handle(_ exchange: B2CExchange) throws(IdentityError) -> HTTPResponse {
        guard exchange.request.method == "POST" else { throw .b2cPostOnly() }
        let request = B2CTokenRequest(exchange: exchange, directory: exchange.service.currentDirectory, form: exchange.request.form)
        let grantType = try request.required("grant_type")
        switch grantType {
        case "authorization_code": return try redeemCode(request)
        case "refresh_token": return try redeemRefreshToken(request)
        case "password" where request.exchange.policy.kind == .ropc: return try signInWithPassword(request)
        case "client_credentials": return try clientCredentials(request)
        default: throw .b2cUnsupportedGrantType(grantType)
        }
    }

    static func redeemCode(_ request: B2CTokenRequest) throws(IdentityError) -> HTTPResponse {
        let code = try request.required("code")
        guard B2CGrantToken.isWellFormed(code) else { throw .b2cMalformedGrant() }
        let client = try request.authenticateClient()
        let service = request.exchange.service
        let now = request.exchange.now
        let dialect = request.redemptionDialect
        let (record, user) = try GrantRedemption.authorizationCode(
            code, client: client.application, parameters: request.optional, service: service, directory: request.directory, now: now, dialect: dialect
        )
        let scopes = try request.scopes(original: record.grant.scopes, clientID: client.application.clientID)
        try GrantRedemption.spend(authorizationCode: code, service: service, now: now, receipt: request.exchange.base.receipt, dialect: dialect)
        var grant = record.grant
        grant.scopes = scopes.scopes
        grant.resourceAppID = scopes.resource?.appID
        let issue = B2CTokenIssue(clientID: client.application.clientID, user: user, scopes: scopes, grant: grant, nonce: record.nonce)
        return try B2CTokenMinter(exchange: request.exchange).respond(to: issue, wantsClientInfo: request.optional("client_info") == "1")
    }

    static func redeemRefreshToken(_ request: B2CTokenRequest) throws(IdentityError) -> HTTPResponse {
        let token = try request.required("refresh_token")
        guard B2CGrantToken.isWellFormed(token) else { throw .b2cMalformedGrant() }
        let client = try request.authenticateClient()
        let service = request.exchange.service
        let now = request.exchange.now
        let (record, user) = try GrantRedemption.refreshToken(
            token, client: client.application, service: service, directory: request.directory, now: now, dialect: request.redemptionDialect
        )
        let scopes = try request.scopes(original: record.grant.scopes, clientID: client.application.clientID)
        GrantRedemption.spend(refreshToken: token, service: service, now: now, receipt: request.exchange.base.receipt)
        var grant = record.grant
        grant.scopes = scopes.scopes
        grant.resourceAppID = scopes.resource?.appID
        grant.isNewUser = false
        var issued = scopes
        // A refresh keeps offline access even when the request did not repeat `offline_access`.
        if !issued.reserved.contains(.offlineAccess) { issued.reserved.append(.offlineAccess) }
        let issue = B2CTokenIssue(clientID: client.application.clientID, user: user, scopes: issued, grant: grant, nonce: nil)
        return try B2CTokenMinter(exchange: request.exchange).respond(to: issue, wantsClientInfo: request.optional("client_info") == "1")
    }
}

extension B2CTokenEndpoint {
    /// `grant_type=client_credentials` (learn.microsoft.com, "Set up OAuth 2.0 client credentials flow in
    /// Azure AD B2C", 2023): a confidential app's own token for one web API of the tenant, asked for as
    /// `{Application ID URI}/.default`, at any user flow or custom policy. The token's `scp` holds the API's
    /// app roles granted to the app; the answer has no scope, refresh or id token.
    static func clientCredentials(_ request: B2CTokenRequest) throws(IdentityError) -> HTTPResponse {
        let client = try request.authenticateClient()
        guard client.isConfidential else { throw .b2cMissingClientSecret() }
        let scope = try request.required("scope")
        let names = scope.split(separator: " ").map(String.init)
        guard names.count == 1, let slash = scope.lastIndex(of: "/"), scope[scope.index(after: slash)...].lowercased() == ".default",
              slash != scope.startIndex else { throw .b2cUnsupportedScope(scope) }
        let strict = request.exchange.options.strict
        let resource = try B2CScopeRequest.resource(named: String(scope[..<slash]), scope: scope, directory: request.directory, strict: strict)
        let roles = request.directory.applicationPermissions(on: resource, client: client.application, strict: strict)
        return try B2CTokenMinter(exchange: request.exchange).respondAppOnly(clientID: client.application.clientID, resource: resource, roles: roles)
    }

    /// `grant_type=password` on a ROPC policy: the local account's credentials, no page. Other
    /// policies refuse the grant type (AADB2C90086), as the service does.
    static func signInWithPassword(_ request: B2CTokenRequest) throws(IdentityError) -> HTTPResponse {
        let client = try request.authenticateClient()
        let username = try request.required("username")
        let password = try request.required("password")
        let tenantID = request.exchange.tenantID
        guard let user = request.directory.user(signInName: username, tenantID: tenantID), user.accepts(password: password) else {
            throw .b2cInvalidCredentials()
        }
        try B2CTokenRequest.checkUsable(user)
        let clientID = client.application.clientID
        let scopes = try request.scopes(original: ["openid", clientID, "offline_access"], clientID: clientID)
        let grant = GrantContext(
            clientID: clientID, userID: user.id, tenantID: tenantID, scopes: scopes.scopes, resourceAppID: scopes.resource?.appID,
            endpointVersion: .v2, authTime: request.exchange.now, policy: request.exchange.policy.name
        )
        let issue = B2CTokenIssue(clientID: clientID, user: user, scopes: scopes, grant: grant, nonce: nil)
        return try B2CTokenMinter(exchange: request.exchange).respond(to: issue, wantsClientInfo: request.optional("client_info") == "1")
    }
}

/// One B2C /token request: parameters, the directory snapshot, client authentication and the checks
/// every grant makes.
struct B2CTokenRequest {
    let exchange: B2CExchange
    let directory: Directory
    let form: FormParameters

    var tenantDomain: String { exchange.configuration.tenant.domain }

    func required(_ name: String) throws(IdentityError) -> String {
        guard let value = optional(name) else { throw .b2cMissingParameter(name) }
        return value
    }

    func optional(_ name: String) -> String? { form[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// The shared client resolution and authentication (secrets, lenient clients), in B2C's words.
    func authenticateClient() throws(IdentityError) -> AuthenticatedClient {
        let presented = PresentedClientCredentials(parameters: form, headers: exchange.request.headers)
        guard let clientID = presented.clientID else { throw .b2cMissingParameter("client_id") }
        do throws(ClientRefusal) {
            let client = try ClientResolver.resolve(clientID: clientID, directory: directory, options: exchange.options, tenant: directory.tenant(id: exchange.tenantID))
            let audience = AssertionAudience(requestHost: exchange.request.hostName, directory: directory)
            return try ClientAuthenticator.authenticate(presented, client: client, service: exchange.service, audience: audience, now: exchange.now)
        } catch {
            throw error.b2c(tenant: tenantDomain)
        }
    }

    /// B2C's token endpoint words every refusal as AADB2C90111 ("Your account has been locked"): it has no
    /// code of its own for a lockout.
    static func checkUsable(_ user: DirectoryUser) throws(IdentityError) {
        if user.refusal != nil { throw .b2cAccountLocked() }
    }

    /// `scope` when the request names one, else what the grant was issued for.
    func scopes(original: [String], clientID: String) throws(IdentityError) -> B2CScopeRequest {
        if let text = optional("scope") {
            return try B2CScopeRequest.parse(text, clientID: clientID, directory: directory, strict: exchange.options.strict)
        }
        return try B2CScopeRequest.parse(original, clientID: clientID, directory: directory, strict: exchange.options.strict)
    }
}

extension B2CTokenRequest {
    /// The shared redemption checks in B2C's words: codes and refresh tokens belong to the policy that
    /// issued them (AADB2C90088 elsewhere) and to their client alone; a refresh token also ends with its
    /// sign-in's absolute lifetime.
    var redemptionDialect: GrantRedemption.Dialect {
        let policy = exchange.policy.name
        return GrantRedemption.Dialect(
            unknownRefreshToken: { .b2cUnknownGrant() }, revokedRefreshToken: { .b2cGrantRevoked() },
            // Dropped because the store was full: the expiry it was closest to, as Entra's grant says.
            evictedRefreshToken: { now in .b2cGrantExpired(now: now, issuedAt: now, slidingExpiry: now) },
            expiredRefreshToken: { record, now in
                let absoluteExpiry = record.grant.authTime.addingTimeInterval(B2CTokenMinter.refreshTokenLifetime)
                guard record.expiresAt <= now || absoluteExpiry <= now else { return nil }
                return .b2cGrantExpired(now: now, issuedAt: record.issuedAt, slidingExpiry: min(record.expiresAt, absoluteExpiry))
            },
            refreshTokenClientMismatch: { record, app in
                record.grant.clientID.caseInsensitiveCompare(app.clientID) == .orderedSame
                    ? nil : .b2cClientMismatch(app.clientID, expected: record.grant.clientID)
            },
            refreshTokenUserGone: { .b2cAccountGone() },
            revokedSinceSignIn: { _, _ in .b2cGrantRevoked() },
            // Unknown or malformed (90090), used (90129), expired (90080).
            codeRefusal: { refusal, now in
                switch refusal {
                case .alreadyRedeemed: .b2cGrantRevoked()
                case .expired(let record): .b2cGrantExpired(now: now, issuedAt: record?.issuedAt ?? now, slidingExpiry: record?.expiresAt ?? now)
                case .malformed, .unknown: .b2cUnknownGrant()
                }
            },
            codeClientMismatch: { grant, app in .b2cClientMismatch(app.clientID, expected: grant.clientID) },
            codeUserGone: { .b2cAccountGone() }, requiresRedirectURI: false,
            redirectURIMismatch: { .b2cRedirectURINotRegistered($0, clientID: $1) },
            invalidVerifierSize: { .b2cInvalidCodeVerifier() }, pkceMismatch: { .b2cPKCEMismatch() },
            missingParameter: { .b2cMissingParameter($0) },
            checkUsable: { user throws(IdentityError) in try B2CTokenRequest.checkUsable(user) },
            checkBinding: { grant throws(IdentityError) in
                let issuedBy = grant.policy ?? ""
                guard issuedBy.caseInsensitiveCompare(policy) == .orderedSame else {
                    throw .b2cGrantForOtherPolicy(actual: issuedBy, expected: policy)
                }
            }
        )
    }
}
