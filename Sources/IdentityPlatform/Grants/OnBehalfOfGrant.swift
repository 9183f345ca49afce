import EntraCrypto
import EntraHTTP
import FoundationGaps
import LocatedJSON

/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` with `requested_token_use=on_behalf_of`:
/// a web API trades the user access token it received for a token to a downstream resource.
enum OnBehalfOfGrant {
    static func redeem(_ request: TokenRequest) throws(IdentityError) -> HTTPResponse {
        let use = try request.required("requested_token_use")
        guard use == "on_behalf_of" else { throw .unsupportedRequestedTokenUse(use) }
        let assertion = try request.required("assertion")
        let client = try request.authenticateClient(requireCredential: true)
        let scopes = try request.scopeRequest()
        let incoming = try validate(assertion, for: client.application, request: request)
        guard let oid = incoming.string("oid"), let user = request.directory.user(id: oid) else { throw .oboAssertionInvalid("The assertion does not identify a user of this directory.") }
        try GrantRedemption.checkAccountUsable(user)
        if let validFrom = user.tokensValidFrom, let issuedAt = incoming.date("iat"), validFrom > issuedAt {
            throw .grantRevoked(issuedAt: issuedAt, validFrom: validFrom)
        }
        let methods = incoming.strings("amr")
        try request.checkMultiFactor(user, methods: methods.isEmpty ? ["pwd"] : methods, resource: scopes.resource)
        guard let tenant = request.directory.tenant(id: user.tenantID) else { throw .invalidGrant() }
        // The middle tier cannot show a consent page: its configured permissions count as admin-consented.
        let permissions = try request.delegatedPermissions(scopes, client: client.application, user: user, allowed: request.configuredPermissions(scopes, client: client.application))
        var grant = GrantContext(
            clientID: client.application.clientID, userID: user.id, tenantID: tenant.id, scopes: scopes.scopes,
            resourceAppID: scopes.resource?.appID, endpointVersion: request.version,
            authTime: incoming.date("iat") ?? request.now, authenticationMethods: methods.isEmpty ? ["pwd"] : methods,
            clientCapabilities: try request.clientCapabilities(carrying: incoming.strings("xms_cc"))
        )
        grant.sourceSubject = incoming.string("sub")
        // The exchange answers a refresh token whether or not `offline_access` was asked (recorded 2021:
        // azure-identity's own OBO request, which names only the resource's scope).
        var issued = scopes
        if !issued.reserved.contains(.offlineAccess) { issued.reserved.append(.offlineAccess) }
        return try request.issue(client: client, tenant: tenant, user: user, scopes: issued, permissions: permissions, grant: grant)
    }

    /// The assertion must be a user access token FakeEntra signed, in date, whose audience is the
    /// presenting app (its app id or one of its identifier URIs).
    static func validate(_ assertion: String, for app: Application, request: TokenRequest) throws(IdentityError) -> ParsedJWT {
        guard let jwt = ParsedJWT(assertion) else { throw .oboAssertionInvalid("JWT token is invalid or malformed.") }
        let verifier = JWTVerifier.userAssertion
        let named = JWTVerifier.named(by: jwt, among: request.service.keys.published(at: request.now))
        guard let key = named.first else { throw .oboAssertionKeyNotFound(appID: app.clientID) }
        guard verifier.isSigned(jwt, byOneOf: named.map(\.privateKey.publicKey)) else {
            throw .oboAssertionSignatureInvalid(thumbprint: Hex.uppercase(key.certificate.sha1Thumbprint),
                                                keyStart: key.certificate.notBefore, keyEnd: key.certificate.notAfter)
        }
        do { try verifier.checkValidity(of: jwt, now: request.now) } catch {
            guard case .outOfRange(let expiry, _, _) = error else { throw .oboAssertionInvalid("The assertion must contain an 'exp' claim.") }
            throw .oboAssertionExpired(now: request.now, expiry: expiry)
        }
        let audience = jwt.string("aud") ?? ""
        let expected = [app.clientID] + app.identifierURIs
        guard expected.contains(where: { $0.namesSameResource(as: audience) }) else {
            throw .oboAudienceMismatch(audience: audience, expected: app.clientID)
        }
        // An app-only token (no `scp`) is refused as an application on-behalf-of call (recorded 2026).
        guard jwt.claims["scp"] != nil else { throw .applicationOnBehalfOf(clientID: app.clientID) }
        return jwt
    }
}
