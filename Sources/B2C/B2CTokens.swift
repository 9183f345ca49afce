import LocatedJSON
import EntraCrypto
import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import Synchronization

/// What one B2C token response is about, decided by a grant.
struct B2CTokenIssue {
    var clientID: String
    var user: DirectoryUser
    var scopes: B2CScopeRequest
    /// Carries the policy, the sign-in time, the session and `isNewUser`.
    var grant: GrantContext
    var nonce: String?
}

/// Mints B2C tokens (`ver` 1.0, issuer `https://<host>/<tenant id>/v2.0/`, `tfp`, `sub` = object id,
/// `emails`…), signs them with the platform's keys and writes B2C's token response, whose numbers are
/// strings as the service writes them.
struct B2CTokenMinter {
    let exchange: B2CExchange

    /// B2C's defaults: refresh tokens slide over 14 days of inactivity, up to 90 days after sign-in.
    static let refreshTokenSlidingWindow: TimeInterval = 14 * 86400
    static let refreshTokenLifetime: TimeInterval = 90 * 86400

    var now: Date { exchange.now }
    var policy: B2CConfiguration.Policy { exchange.policy }
    var signer: TokenIssuer { TokenIssuer(exchange: exchange.base, origin: exchange.origin) }
    /// Lifetimes as configured, or as an active scenario imposes them.
    var options: IdentityOptions { signer.options }
    var directives: ScenarioDirectives { exchange.base.directives }
    var refreshTokenWindow: TimeInterval { directives.refreshTokenLifetime ?? Self.refreshTokenSlidingWindow }
    /// Tokens say the policy as configured (`B2C_1_susi`), whatever case the URL used.
    var policyName: String { policy.name }

    /// `idp` is what a social account signed in with; local accounts have none (the service omits it).
    func identityProvider(of user: DirectoryUser) -> String? {
        exchange.configuration.localAccount(objectID: user.id)?.identityProvider
    }

    /// The application claims of `policy` about `user`, in the service's order.
    func applicationClaims(_ issue: B2CTokenIssue, into c: inout ClaimSet, newUserAllowed: Bool) {
        let user = issue.user
        if policy.emits(.oid) { c.set("oid", user.id) }
        if policy.emits(.name) { c.set("name", user.displayName) }
        if policy.emits(.givenName) { c.set("given_name", user.givenName) }
        if policy.emits(.familyName) { c.set("family_name", user.surname) }
        if policy.emits(.emails), let mail = user.mail { c.set("emails", [mail]) }
        if newUserAllowed, issue.grant.isNewUser, policy.emits(.newUser) { c.set("newUser", true) }
        if policy.emits(.idp) { c.set("idp", identityProvider(of: user)) }
    }

    /// `hashes`: `c_hash`/`at_hash` of an id token sent with a code or an access token on the redirect.
    func idTokenClaims(_ issue: B2CTokenIssue, hashes: [(String, String)] = []) -> ClaimSet {
        var c = ClaimSet()
        c.set("exp", now.addingTimeInterval(options.idTokenLifetime))
        c.set("nbf", now)
        c.set("ver", "1.0")
        c.set("iss", exchange.issuer)
        c.set("sub", issue.user.id)
        c.set("aud", issue.clientID)
        c.set("nonce", issue.nonce)
        c.set("iat", now)
        c.set("auth_time", issue.grant.authTime)
        applicationClaims(issue, into: &c, newUserAllowed: true)
        for (name, value) in hashes { c.set(name, value) }
        c.set("tfp", policyName)
        return c
    }

    /// OIDC's `c_hash`/`at_hash`: the left half of the value's SHA-256, base64url.
    static func halfHash(_ value: String) -> String {
        Base64URL.encode(Digest.sha256(value.utf8).prefix(16))
    }

    /// A signed access token (scenario claim overrides applied), or nil when no scope names an audience.
    func accessToken(_ issue: B2CTokenIssue) throws(IdentityError) -> (token: String, audience: String)? {
        guard let audience = issue.scopes.accessTokenAudience(clientID: issue.clientID) else { return nil }
        var claims = accessTokenClaims(issue, audience: audience)
        claims.override(with: directives.accessTokenClaims)
        return (try signer.sign(claims), audience)
    }

    func idToken(_ issue: B2CTokenIssue, hashes: [(String, String)] = []) throws(IdentityError) -> String {
        var claims = idTokenClaims(issue, hashes: hashes)
        claims.override(with: directives.idTokenClaims)
        return try signer.sign(claims, kind: .id)
    }

    func accessTokenClaims(_ issue: B2CTokenIssue, audience: String) -> ClaimSet {
        var c = ClaimSet()
        c.set("iss", exchange.issuer)
        c.set("exp", now.addingTimeInterval(options.accessTokenLifetime))
        c.set("nbf", now)
        c.set("aud", audience)
        c.set("sub", issue.user.id)
        applicationClaims(issue, into: &c, newUserAllowed: false)
        c.set("tfp", policyName)
        c.set("nonce", issue.nonce)
        let granted = issue.scopes.permissions.filter { !isDeclined($0, resource: issue.scopes.resource) }
        if !granted.isEmpty { c.set("scp", granted.joined(separator: " ")) }
        c.set("azp", issue.clientID)
        c.set("ver", "1.0")
        c.set("iat", now)
        c.set("auth_time", issue.grant.authTime)
        return c
    }

    /// `client_info`: `uid` is `<oid>-<policy in lower case>`, so MSAL's account id becomes
    /// `<oid>-<policy>.<tenant id>` (one account per policy, as MSAL's B2C samples expect).
    func clientInfo(_ user: DirectoryUser) -> String {
        let json = JSONValue.object([("uid", .string("\(user.id)-\(policyName.lowercased())")), ("utid", .string(exchange.tenantID))]).compactText
        return Base64URL.encode(Array(json.utf8))
    }

    /// `profile_info`: the legacy summary B2C still sends (local accounts say `LocalAccount`).
    func profileInfo(_ user: DirectoryUser) -> String {
        let json = JSONValue.object([
            ("ver", .string("1.0")), ("tid", .string(exchange.tenantID)), ("sub", .null),
            ("name", .string(user.displayName)), ("preferred_username", .null),
            ("idp", .string(identityProvider(of: user) ?? "LocalAccount")),
        ]).compactText
        return Base64URL.encode(Array(json.utf8))
    }

    /// A scenario's declined scopes, named in full (`https://…/helloapi/demo.read`) or by permission.
    func isDeclined(_ permission: String, resource: Resource?) -> Bool {
        directives.declinedScopes.contains { declined in
            declined.caseInsensitiveCompare(permission) == .orderedSame
                || resource.map { declined.caseInsensitiveCompare("\($0.identifierURI)/\(permission)") == .orderedSame } ?? false
        }
    }

    func respond(to issue: B2CTokenIssue, wantsClientInfo: Bool) throws(IdentityError) -> HTTPResponse {
        let access = try accessToken(issue)
        let accessToken = access?.token
        let audience = access?.audience
        let idToken = try issue.scopes.wantsIDToken ? self.idToken(issue) : nil
        let refreshToken = issue.scopes.wantsRefreshToken ? storeRefreshToken(issue.grant) : nil
        let nowSeconds = Int(saturating: now.timeIntervalSince1970)
        let expiresIn: Int? = accessToken == nil ? nil : Int(saturating: options.accessTokenLifetime)

        var body = ClaimSet()
        body.set("access_token", accessToken)
        body.set("id_token", idToken)
        body.set("token_type", "Bearer")
        // Numbers, as B2C's token answers write them (recorded refresh answer on *.b2clogin.com).
        body.set("not_before", nowSeconds)
        if let expiresIn {
            body.set("expires_in", expiresIn)
            body.set("expires_on", Int(saturating: now.timeIntervalSince1970 + options.accessTokenLifetime))
            body.set("resource", audience)
        }
        if idToken != nil { body.set("id_token_expires_in", Int(saturating: options.idTokenLifetime)) }
        body.set("profile_info", profileInfo(issue.user))
        let declined = directives.declinedScopes
        let grantedScope = issue.scopes.scopes.filter { scope in !declined.contains { $0.caseInsensitiveCompare(scope) == .orderedSame } }.joined(separator: " ")
        body.set("scope", grantedScope)
        if let refreshToken {
            body.set("refresh_token", refreshToken.token)
            body.set("refresh_token_expires_in", Int(saturating: refreshTokenWindow))
        }
        if wantsClientInfo { body.set("client_info", clientInfo(issue.user)) }
        exchange.base.receipt.answered(Receipt.Answer(scope: grantedScope, expiresIn: expiresIn, refreshToken: refreshToken?.id))
        return TokenIssuer.success(body)
    }

    /// An app's own token (client credentials): `aud` the API's app id, `sub` the app's service principal,
    /// `azp` the app, `scp` the API's app roles granted to it (the claims the service documents). The answer
    /// names the API as `resource`, in numbers, without scope, refresh or id token, as recorded.
    func respondAppOnly(clientID: String, resource: Resource, roles: [String]) throws(IdentityError) -> HTTPResponse {
        var c = ClaimSet()
        c.set("iss", exchange.issuer)
        c.set("exp", now.addingTimeInterval(options.accessTokenLifetime))
        c.set("nbf", now)
        c.set("aud", resource.appID)
        c.set("sub", TokenIdentifiers.servicePrincipalID(clientID: clientID, tenantID: exchange.tenantID))
        c.set("tfp", policyName)
        if !roles.isEmpty { c.set("scp", roles.joined(separator: " ")) }
        c.set("azp", clientID)
        c.set("ver", "1.0")
        c.set("iat", now)
        c.override(with: directives.accessTokenClaims)
        let expiresIn = Int(saturating: options.accessTokenLifetime)
        var body = ClaimSet()
        body.set("access_token", try signer.sign(c))
        body.set("token_type", "Bearer")
        body.set("not_before", Int(saturating: now.timeIntervalSince1970))
        body.set("expires_in", expiresIn)
        body.set("expires_on", Int(saturating: now.timeIntervalSince1970 + options.accessTokenLifetime))
        body.set("resource", resource.appID)
        exchange.base.receipt.answered(Receipt.Answer(expiresIn: expiresIn))
        return TokenIssuer.success(body)
    }

    /// Refresh tokens keep the grant, and with it the policy they may be redeemed at. The token and its
    /// receipt's `handleID`.
    func storeRefreshToken(_ grant: GrantContext) -> (token: String, id: String) {
        var kept = grant
        kept.isNewUser = false
        let token = B2CGrantToken.make()
        let record = RefreshTokenRecord(grant: kept, familyID: nil, issuedAt: now, expiresAt: now.addingTimeInterval(refreshTokenWindow))
        exchange.service.storeRefreshToken(token, record: record, now: now)
        return (token, exchange.base.receipt.storedRefreshToken(token, record: record))
    }
}
