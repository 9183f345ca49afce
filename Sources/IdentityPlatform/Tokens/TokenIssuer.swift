package import ExchangeKernel
import EntraCrypto
package import EntraHTTP
package import FoundationGaps
import Synchronization
import LocatedJSON

/// Turns a `TokenIssue` into signed tokens, a stored refresh token and the token endpoint's JSON answer.
package struct TokenIssuer: Sendable {
    package let service: IdentityService
    package let origin: String
    package let now: Date
    /// What an active scenario changes (lifetimes, claims); empty for the console's mint.
    package let directives: ScenarioDirectives
    /// Where each token signed or refresh token stored is noted; nil for the console's mint.
    package let receipt: ReceiptRecorder?

    package init(service: IdentityService, origin: String, now: Date, directives: ScenarioDirectives = .init(), receipt: ReceiptRecorder? = nil) {
        self.service = service
        self.origin = origin
        self.now = now
        self.directives = directives
        self.receipt = receipt
    }

    /// The issuer of one exchange: its scenario directives and its receipt.
    package init(exchange: IdentityExchange, origin: String) {
        self.init(service: exchange.service, origin: origin, now: exchange.now, directives: exchange.directives, receipt: exchange.receipt)
    }

    /// The service's options with the lifetimes an active scenario imposes.
    package var options: IdentityOptions {
        var options = service.options
        if let v = directives.accessTokenLifetime { options.accessTokenLifetime = v }
        if let v = directives.idTokenLifetime { options.idTokenLifetime = v }
        if let v = directives.refreshTokenLifetime { options.refreshTokenInactivity = v }
        return options
    }

    var claims: TokenClaimsBuilder { TokenClaimsBuilder(origin: origin, now: now, options: options) }

    /// Signs a payload with the current key (header `typ`, `alg`, `x5t`, `kid`, as Entra's tokens), or
    /// forges it as a scenario's `forgeTokens` asks. `kind` names the token in the exchange's receipt.
    package func sign(_ payload: ClaimSet, kind: Receipt.IssuedToken.Kind = .access) throws(IdentityError) -> String {
        var claims = payload
        return try sign(&claims, kind: kind, forgery: kind == .id ? directives.idTokenForgery : directives.accessTokenForgery)
    }

    /// `sign`, with the forgery given; `claims` become what the token says (a forgery may change them).
    package func sign(_ claims: inout ClaimSet, kind: Receipt.IssuedToken.Kind, forgery: TokenForgery?) throws(IdentityError) -> String {
        let credential = service.keys.current
        do {
            let token: String, sha256: [UInt8], keyID: String?
            if let forgery {
                forgery.forge(&claims, now: now)
                (token, keyID) = try forgery.sign(claims.bytes, credential: credential)
                sha256 = Digest.sha256(Array(token.utf8))
            } else {
                (token, sha256) = try JWS.signJWTWithDigest(payloadJSON: claims.bytes, credential: credential)
                keyID = credential.keyID
            }
            var issued = Receipt.IssuedToken(kind: kind, sha256: sha256, claims: claims, keyID: keyID)
            issued.forgery = forgery
            receipt?.issued(issued, secret: token, sha256: sha256)
            return token
        } catch {
            throw IdentityError.signingFailed(error)
        }
    }

    /// Issues every token the issue calls for and renders the response.
    /// `wantsClientInfo`: the request said `client_info=1`.
    package func respond(to issue: TokenIssue, wantsClientInfo: Bool) throws(IdentityError) -> HTTPResponse {
        let options = self.options
        let provided = try TokenIssuanceStart(issuer: self).claims(for: issue)
        let groups = GroupClaims(issue: issue, directory: issue.client.application.groupMembershipClaims == nil ? nil : service.currentDirectory)
        var accessClaims = claims.accessTokenClaims(issue)
        groups.add(to: &accessClaims)
        for (name, value) in provided.accessToken { accessClaims.override(name, value) }
        accessClaims.override(with: directives.accessTokenClaims)
        let accessToken = try sign(accessClaims)
        let wantsIDToken = issue.user != nil && (issue.scopeRequest.wantsIDToken || issue.endpointVersion == .v1)
        var idToken: String?
        if wantsIDToken, var idClaims = claims.idTokenClaims(issue) {
            groups.add(to: &idClaims)
            for (name, value) in provided.idToken { idClaims.override(name, value) }
            idClaims.override(with: directives.idTokenClaims)
            idToken = try sign(idClaims, kind: .id)
        }
        var refreshToken: String?
        var refreshTokenID: String?
        if issue.user != nil, issue.scopeRequest.wantsRefreshToken, let grant = issue.grant {
            let stored = storeRefreshToken(grant: grant, familyID: issue.client.application.familyID)
            refreshToken = stored.token
            refreshTokenID = stored.id
        }
        let scopes = issue.user == nil
            ? issue.scopeRequest.scopes.filter { ReservedScope(scope: $0) == nil }
            // The answer's `scope` leaves out `offline_access` even when a refresh token comes with it
            // (recorded device-code, password, refresh and on-behalf-of answers).
            : issue.scopeRequest.responseScopes(granted: issue.permissions).filter { ReservedScope(scope: $0) != .offlineAccess }
        let expiresIn = Int(saturating: options.accessTokenLifetime)
        let extExpiresIn = Int(saturating: options.accessTokenLifetime + options.accessTokenExtension)
        // An app-only answer names no scope (recorded client-credentials answers of v2.0 have none).
        let grantedScope: String? = if issue.user == nil {
            nil
        } else if issue.endpointVersion == .v1 {
            issue.permissions.joined(separator: " ")
        } else {
            scopes.count == 1 ? scopes[0] : scopes.joined(separator: " ")   // one scope: no new string
        }
        var refreshIn: Int?

        var body = ClaimSet(capacity: 10)
        body.set("token_type", "Bearer")
        if issue.endpointVersion == .v1 {
            // The v1 endpoint writes its numbers as strings (ADAL and MSAL Python cope with both).
            body.set("scope", grantedScope)
            body.set("expires_in", String(expiresIn))
            body.set("ext_expires_in", String(extExpiresIn))
            body.set("expires_on", String(Int(saturating: now.timeIntervalSince1970 + options.accessTokenLifetime)))
            body.set("not_before", String(Int(saturating: now.timeIntervalSince1970)))
            body.set("resource", issue.scopeRequest.resourceName)
        } else {
            if let grantedScope { body.set("scope", grantedScope) }
            body.set("expires_in", expiresIn)
            body.set("ext_expires_in", extExpiresIn)
            // Entra advises refreshing half-way through long-lived tokens only.
            refreshIn = directives.refreshIn.map { Int(saturating: $0) } ?? (expiresIn >= 7200 ? expiresIn / 2 : nil)
            if let refreshIn { body.set("refresh_in", refreshIn) }
        }
        body.set("access_token", accessToken)
        body.set("refresh_token", refreshToken)
        body.set("id_token", idToken)
        if let user = issue.user, wantsClientInfo {
            body.set("client_info", TokenIdentifiers.clientInfo(objectID: user.id, tenantID: issue.tenant.id))
        }
        if refreshToken != nil, issue.client.application.familyID != nil { body.set("foci", issue.client.application.familyID) }
        receipt?.answered(Receipt.Answer(scope: grantedScope, expiresIn: expiresIn, refreshIn: refreshIn, refreshToken: refreshTokenID))
        return Self.success(body)
    }

    /// A 200 JSON answer with the caching headers every token response carries.
    package static func success(_ body: ClaimSet) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        headers.reserveCapacity(8)   // these, and the ones the service and the server add
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "no-store, no-cache")
        headers.set("Pragma", "no-cache")
        headers.set("Expires", "-1")
        // The success's telemetry line (code 0), as recorded on token answers.
        headers.set("x-ms-clitelem", "1,0,0,,")
        return HTTPResponse(status: .ok, headers: headers, body: body.bytes)
    }

    /// The token, and its receipt's `handleID` (nil without a receipt).
    func storeRefreshToken(grant: GrantContext, familyID: String?) -> (token: String, id: String?) {
        let token = TokenIdentifiers.refreshToken()
        // A single-page app's token ends at its fixed end, which rotation does not move.
        let inactivityEnd = now.addingTimeInterval(options.refreshTokenInactivity)
        let record = RefreshTokenRecord(
            grant: grant, familyID: familyID, issuedAt: now,
            expiresAt: grant.spaRefreshExpiresAt.map { min($0, inactivityEnd) } ?? inactivityEnd
        )
        service.storeRefreshToken(token, record: record, now: now)
        return (token, receipt?.storedRefreshToken(token, record: record))
    }
}
