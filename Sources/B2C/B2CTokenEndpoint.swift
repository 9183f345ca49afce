import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import IdentityPlatform
import Synchronization

/// `POST …/{policy}/oauth2/v2.0/token`: the authorization code and refresh token grants of B2C. Codes
/// and refresh tokens are bound to the policy that issued them (AADB2C90088 elsewhere); errors are
/// AADB2C ones in the token endpoint's JSON.
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
        default: throw .b2cUnsupportedGrantType(grantType)
        }
    }

    static func redeemCode(_ request: B2CTokenRequest) throws(IdentityError) -> HTTPResponse {
        let code = try request.required("code")
        guard B2CGrantToken.isWellFormed(code) else { throw .b2cMalformedGrant() }
        let client = try request.authenticateClient()
        let service = request.exchange.service
        let now = request.exchange.now
        let record: AuthorizationCodeRecord
        do throws(IdentityError) { record = try AuthorizationCodeGrant.lookUp(code, now: now, service: service) } catch {
            throw request.translateCodeError(error, code: code)
        }
        try request.checkPolicy(record.grant)
        try request.checkClient(record.grant, client: client)
        if let redirectURI = request.optional("redirect_uri"), !record.redirectURI.isEmpty, redirectURI != record.redirectURI {
            throw .b2cRedirectURINotRegistered(redirectURI, clientID: client.application.clientID)
        }
        if let challenge = record.codeChallenge {
            guard let verifier = request.optional("code_verifier") else { throw .b2cMissingParameter("code_verifier") }
            guard (43...128).contains(verifier.count) else { throw .b2cInvalidCodeVerifier() }
            let method: PKCEMethod = record.codeChallengeMethod?.lowercased() == "s256" ? .s256 : .plain
            guard PKCE.verify(verifier: verifier, challenge: challenge, method: method) else { throw .b2cPKCEMismatch() }
        }
        guard let user = request.directory.user(id: record.grant.userID) else { throw .b2cAccountGone() }
        try request.checkUsable(user)
        let scopes = try request.scopes(original: record.grant.scopes, clientID: client.application.clientID)
        do throws(IdentityError) { try AuthorizationCodeGrant.markRedeemed(code, now: now, service: service, receipt: request.exchange.base.receipt) } catch {
            throw request.translateCodeError(error, code: code)
        }
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
        let record: RefreshTokenRecord
        switch service.lookUpRefreshToken(token) {
        case .live(let live): record = live
        // Dropped because the store was full: the expiry it was closest to, as Entra's grant says.
        case .evicted: throw .b2cGrantExpired(now: now, issuedAt: now, slidingExpiry: now)
        case .unknown: throw .b2cUnknownGrant()
        }
        if record.revoked { throw .b2cGrantRevoked() }
        let absoluteExpiry = record.grant.authTime.addingTimeInterval(B2CTokenMinter.refreshTokenLifetime)
        if record.expiresAt <= now || absoluteExpiry <= now {
            throw .b2cGrantExpired(now: now, issuedAt: record.issuedAt, slidingExpiry: min(record.expiresAt, absoluteExpiry))
        }
        try request.checkPolicy(record.grant)
        try request.checkClient(record.grant, client: client)
        guard let user = request.directory.user(id: record.grant.userID) else { throw .b2cAccountGone() }
        try request.checkUsable(user)
        if let validFrom = user.tokensValidFrom, validFrom > record.grant.authTime { throw .b2cGrantRevoked() }
        let scopes = try request.scopes(original: record.grant.scopes, clientID: client.application.clientID)
        service.markRefreshTokenUsed(token, at: now)
        request.exchange.base.receipt.grant(.refreshToken, .redeemed, handle: token)
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
    /// `grant_type=password` on a ROPC policy: the local account's credentials, no page. Other
    /// policies refuse the grant type (AADB2C90086), as the service does.
    static func signInWithPassword(_ request: B2CTokenRequest) throws(IdentityError) -> HTTPResponse {
        let client = try request.authenticateClient()
        let username = try request.required("username")
        let password = try request.required("password")
        let tenantID = request.exchange.tenantID
        guard let user = request.directory.user(signInName: username, tenantID: tenantID), user.password == password else {
            throw .b2cInvalidCredentials()
        }
        try request.checkUsable(user)
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
        do throws(IdentityError) {
            let client = try ClientResolver.resolve(clientID: clientID, directory: directory, options: exchange.options, tenant: directory.tenant(id: exchange.tenantID))
            return try ClientAuthenticator.authenticate(presented, client: client, service: exchange.service, now: exchange.now)
        } catch {
            throw .b2cTranslated(error, tenant: tenantDomain)
        }
    }

    func checkPolicy(_ grant: GrantContext) throws(IdentityError) {
        let issuedBy = grant.policy ?? ""
        guard issuedBy.caseInsensitiveCompare(exchange.policy.name) == .orderedSame else {
            throw .b2cGrantForOtherPolicy(actual: issuedBy, expected: exchange.policy.name)
        }
    }

    func checkClient(_ grant: GrantContext, client: AuthenticatedClient) throws(IdentityError) {
        guard grant.clientID.caseInsensitiveCompare(client.application.clientID) == .orderedSame else {
            throw .b2cClientMismatch(client.application.clientID, expected: grant.clientID)
        }
    }

    func checkUsable(_ user: DirectoryUser) throws(IdentityError) {
        if user.locked || !user.accountEnabled { throw .b2cAccountLocked() }
    }

    /// `scope` when the request names one, else what the grant was issued for.
    func scopes(original: [String], clientID: String) throws(IdentityError) -> B2CScopeRequest {
        if let text = optional("scope") {
            return try B2CScopeRequest.parse(text, clientID: clientID, directory: directory, strict: exchange.options.strict)
        }
        return try B2CScopeRequest.parse(original, clientID: clientID, directory: directory, strict: exchange.options.strict)
    }

    /// The shared code bookkeeping speaks Entra; B2C says: unknown (90090), used (90129), expired (90080).
    func translateCodeError(_ error: IdentityError, code: String) -> IdentityError {
        switch error.code {
        case 54005: return .b2cGrantRevoked()
        case 70008:
            let record = exchange.service.authorizationCode(code)
            return .b2cGrantExpired(now: exchange.now, issuedAt: record?.issuedAt ?? exchange.now, slidingExpiry: record?.expiresAt ?? exchange.now)
        default: return .b2cUnknownGrant()
        }
    }
}
