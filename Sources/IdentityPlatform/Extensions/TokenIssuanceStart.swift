import EntraCrypto
import FoundationGaps
import ExchangeKernel
package import LocatedJSON

/// OnTokenIssuanceStart: before tokens are issued, each extension whose listener names the client (claims
/// for the id token) or the resource (claims for the access token) is called with the sign-in's context,
/// and the claims it provides go into those tokens through the claims-mapping policy
/// (learn.microsoft.com/entra/identity-platform/custom-claims-provider-reference).
package struct TokenIssuanceStart {
    /// Claims for each token, in the order the mapping names them.
    package struct ProvidedClaims: Sendable, Equatable {
        package var idToken: [(String, JSONValue)] = []
        package var accessToken: [(String, JSONValue)] = []

        package static func == (lhs: ProvidedClaims, rhs: ProvidedClaims) -> Bool {
            lhs.idToken.map { "\($0.0)=\($0.1.compactText)" } == rhs.idToken.map { "\($0.0)=\($0.1.compactText)" }
                && lhs.accessToken.map { "\($0.0)=\($0.1.compactText)" } == rhs.accessToken.map { "\($0.0)=\($0.1.compactText)" }
        }
    }

    /// "The maximum claim size that a claims provider can return is limited to 3KB. This is the sum of all
    /// the key and value pairs returned by the REST API."
    static let largestClaims = 3 * 1024
    /// Claims no claims-mapping policy can set (reference-claims-mapping-policy-type, "Restricted claim set").
    static let restrictedClaims: Set<String> = [
        "aud", "iss", "iat", "nbf", "exp", "azp", "azpacr", "appid", "appidacr", "amr", "acr", "aio", "at_hash", "c_hash",
        "cnf", "idp", "idtyp", "ipaddr", "nonce", "oid", "rh", "roles", "scp", "sid", "sub", "tid", "uti", "ver", "xms_cc",
    ]

    let issuer: TokenIssuer

    package init(issuer: TokenIssuer) { self.issuer = issuer }

    /// The claims the listening extensions provide for `issue`'s tokens; a failed callout fails the
    /// issue with AADSTS1100001, as it fails the sign-in at the service.
    package func claims(for issue: TokenIssue) throws(IdentityError) -> ProvidedClaims {
        let resourceAppID = issue.scopeRequest.resource?.appID
        let listening = issue.tenant.extensions(at: .tokenIssuanceStart).filter {
            (issue.user != nil && $0.listens(to: issue.clientID)) || $0.listens(to: resourceAppID)
        }
        var provided = ProvidedClaims()
        guard !listening.isEmpty else { return provided }
        let callout = ExtensionCallout(transport: issuer.service.extensionTransport, strict: issuer.service.options.strict)
        for ext in listening {
            let payload = ExtensionCallout.envelope(ext, tenantID: issue.tenant.id, sourceAppID: issue.clientID,
                                                    data: [("authenticationContext", authenticationContext(issue))])
            let outcome = callout.call(ext, payload: payload, bearer: ExtensionBearer.token(for: ext, tenant: issue.tenant, issuer: issuer),
                                       record: { issuer.receipt?.calledExtension($0) }, reading: { action, _ in Self.claims(of: action) })
            let claims: [(String, JSONValue)]
            switch outcome {
            case .success(let returned): claims = mapped(returned, by: ext)
            case .failure: throw .customExtensionFailed()
            }
            if issue.user != nil, ext.listens(to: issue.clientID) { provided.idToken += claims }
            if ext.listens(to: resourceAppID) { provided.accessToken += claims }
        }
        return provided
    }

    /// The provideClaimsForToken action's `claims`: strings and arrays of strings, 3 KB in all.
    static func claims(of action: JSONValue) -> Result<[(String, JSONValue)], ExtensionFailure> {
        guard let bag = action["claims"], !bag.isNull else { return .failure(ExtensionFailure(.nullClaims, "no \"claims\" in provideClaimsForToken")) }
        guard let members = bag.members else { return .failure(ExtensionFailure(.invalidResponseBody, "\"claims\" is not an object")) }
        var size = 0
        for member in members {
            guard !member.key.trimmingCharacters(in: .whitespaces).isEmpty else { return .failure(ExtensionFailure(.emptyClaimKey, "a claim named \"\(member.key)\"")) }
            let isText = member.value.string != nil
            let isTexts = member.value.array.map { $0.allSatisfy { $0.string != nil } } ?? false
            guard isText || isTexts else {
                return .failure(ExtensionFailure(.invalidResponseBody, "claim \"\(member.key)\" is neither a string nor an array of strings (the supported types)"))
            }
            size += member.key.utf8.count + (member.value.string?.utf8.count ?? member.value.array!.reduce(0) { $0 + ($1.string?.utf8.count ?? 0) })
        }
        guard size <= largestClaims else { return .failure(ExtensionFailure(.claimsTooLarge, "\(size) bytes of claims; at most \(largestClaims)")) }
        return .success(members.map { ($0.key, $0.value) })
    }

    /// The returned claims the app's policy maps, under their token names; restricted names never.
    func mapped(_ returned: [(String, JSONValue)], by ext: CustomAuthenticationExtension) -> [(String, JSONValue)] {
        let mapping = ext.claimsMapping ?? (issuer.service.options.strict ? [] : returned.map { .init(id: $0.0) })
        return mapping.compactMap { entry in
            guard let value = returned.first(where: { $0.0 == entry.id })?.1, !Self.restrictedClaims.contains(entry.tokenClaimName.lowercased()) else { return nil }
            return (entry.tokenClaimName, value.string.map(JSONValue.string) ?? .strings(value.array?.compactMap(\.string) ?? []))
        }
    }

    /// The callout's `authenticationContext` (custom-claims-provider-reference, "Request to the external
    /// REST API"): members the directory does not hold are left out, as the SDK's recorded request leaves
    /// them out.
    func authenticationContext(_ issue: TokenIssue) -> JSONValue {
        var members = ExtensionContext.members(tenantID: issue.tenant.id, clientAddress: issue.clientAddress,
                                               client: issue.client.application, resource: issue.scopeRequest.resource)
        if let user = issue.user { members.append(("user", ExtensionContext.user(user))) }
        return .object(members)
    }
}

/// What every callout's `authenticationContext` holds, whatever the event.
enum ExtensionContext {
    static func members(tenantID: String, clientAddress: String?, client: Application, resource: Resource?) -> [(String, JSONValue)] {
        func principal(appID: String, name: String) -> JSONValue {
            .object([
                ("id", .string(TokenIdentifiers.servicePrincipalID(clientID: appID, tenantID: tenantID))),
                ("appId", .string(appID)), ("appDisplayName", .string(name)), ("displayName", .string(name)),
            ])
        }
        var members: [(String, JSONValue)] = [
            ("correlationId", .string(SecureRandom.guid())),
            ("client", .object([("ip", .string(clientAddress ?? "127.0.0.1")), ("locale", .string("en-us")), ("market", .string("en-us"))])),
            ("protocol", .string("OAUTH2.0")),
            ("clientServicePrincipal", principal(appID: client.clientID, name: client.displayName)),
        ]
        if let resource { members.append(("resourceServicePrincipal", principal(appID: resource.appID, name: resource.displayName))) }
        return members
    }

    /// The signed-in user as every event's context shows it, without the members the directory does not hold.
    static func user(_ user: DirectoryUser) -> JSONValue {
        .object(omittingNil: [
            "displayName": .string(user.displayName), "givenName": user.givenName.map(JSONValue.string), "id": .string(user.id),
            "mail": user.mail.map(JSONValue.string), "preferredLanguage": user.preferredLanguage.map(JSONValue.string),
            "surname": user.surname.map(JSONValue.string), "userPrincipalName": .string(user.userPrincipalName), "userType": .string("Member"),
        ])
    }
}

/// The token the service authenticates to an extension with: an app-only v2 token from the tenant for the
/// extension's API app, issued to "Azure AD Authentication Extensions" (custom-extension-overview,
/// "Protect your REST API": `azp` 99045fe1-…, `aud` the API app, `iss` the tenant's v2.0 issuer).
enum ExtensionBearer {
    static func token(for ext: CustomAuthenticationExtension, tenant: Tenant, issuer: TokenIssuer) -> Result<String, ExtensionFailure> {
        token(for: ext, tenant: tenant, service: issuer.service, origin: issuer.origin, now: issuer.now)
    }

    /// Minted as any app-only token of the tenant (signed with its published key, so the endpoint validates
    /// it against FakeEntra's JWKS), by an issuer of its own: it is not the client's, so not in its receipt.
    static func token(for ext: CustomAuthenticationExtension, tenant: Tenant, service: IdentityService, origin: String, now: Date) -> Result<String, ExtensionFailure> {
        var request = TokenMintRequest()
        request.clientID = CustomAuthenticationExtension.callerAppID
        request.tenant = tenant.id
        request.scopes = [ext.resourceID + "/.default"]
        request.audience = ext.resourceAppID
        request.version = 2
        // The service authenticates with a certificate.
        request.extraClaims = [("azpacr", .string("2"))]
        do {
            return .success(try TokenIssuer(service: service, origin: origin, now: now).mint(request).token)
        } catch {
            return .failure(ExtensionFailure(.connectionError, "no token to call it with: \(error.message)"))
        }
    }
}
