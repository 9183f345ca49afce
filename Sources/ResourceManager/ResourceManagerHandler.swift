import LocatedJSON
import EntraCrypto
package import EntraHTTP
import FoundationGaps
package import ExchangeKernel
package import IdentityPlatform

/// Azure Resource Manager as far as signing in needs it: `az login` lists the tenants the signed-in
/// identity belongs to (`GET /tenants`) and then each tenant's subscriptions (`GET /subscriptions`);
/// `az cloud register` reads `/metadata/endpoints`. Answers follow the recorded ones
/// (Tests/Fidelity/recordings/arm--*): ARM's JSON, `api-version` required, tokens for ARM's audiences only.
package struct ResourceManagerHandler: ExchangeHandler {
    package let service: IdentityService
    package init(service: IdentityService) {
        self.service = service
    }

    /// ARM's accepted audiences, as its metadata and its audience error list them.
    static let audiences: Set<String> = [
        "https://management.core.windows.net/", "https://management.core.windows.net",
        "https://management.azure.com/", "https://management.azure.com",
    ]

    package func handle(_ request: HTTPRequest, route: ResourceManagerRoute, context: ExchangeContext) -> HTTPResponse {
        let correlationID = request.headers["x-ms-client-request-id"] ?? context.requestID
        if let answer = context.directives.answer, let scripted = scripted(answer, correlationID: correlationID, receipt: context.receipt) {
            return scripted
        }
        do {
            return try respond(to: request, route: route, context: context, correlationID: correlationID)
        } catch {
            return error.response(correlationID: correlationID)
        }
    }

    /// A scenario's throttling or outage in Resource Manager's own codes, or a recorded answer as it was;
    /// nil for another service's kind of answer.
    private func scripted(_ answer: ScriptedAnswer, correlationID: String, receipt: ReceiptRecorder) -> HTTPResponse? {
        switch answer {
        case .serviceError(let spec):
            let code = spec.status == 429 ? "SubscriptionRequestsThrottled" : (spec.status == 500 ? "InternalServerError" : "ServiceUnavailable")
            let message = spec.message ?? (spec.status == 429 ? "Number of read requests for this subscription exceeded the limit." : "The service is temporarily unavailable. Please try again later.")
            var response = ResourceManagerError(status: HTTPStatus(spec.status), code: code, message: message)
                .response(correlationID: correlationID)
            if let retryAfter = spec.retryAfterHeader(now: service.clock.now()) { response.headers.set("Retry-After", retryAfter) }
            return response
        case .response(let canned): return canned.response(receipt: receipt)
        case .oauthError, .graphError, .claimsChallenge, .browserRequired: return nil
        }
    }

    private func respond(to request: HTTPRequest, route: ResourceManagerRoute, context: ExchangeContext, correlationID: String) throws(ResourceManagerError) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { throw .methodNotAllowed }
        guard let apiVersion = request.query["api-version"], !apiVersion.isEmpty else { throw .missingAPIVersion }
        let names = route.segments.map { $0.lowercased() }
        let origin = PublicOrigin(request: request, context: context.connection)
        if names == ["metadata", "endpoints"] {
            return ok(ResourceManagerMetadata(login: Self.loginURL(request: request, origin: origin, context: context.connection),
                                              resourceManager: Self.resourceManagerURL(request: request, origin: origin)).document(apiVersion: apiVersion),
                      correlationID: correlationID)
        }
        let directory = service.currentDirectory
        let caller = try authenticate(request, directory: directory)
        let home = directory.tenant(id: caller.tenantID)
        switch names.count {
        case 1 where names[0] == "tenants":
            let tenants = home.map { [$0] } ?? []
            let withDetails = apiVersion >= "2020-01-01"
            return ok(.object([("value", .array(tenants.map { Self.tenantJSON($0, details: withDetails) }))]),
                      correlationID: correlationID)
        case 1 where names[0] == "subscriptions":
            let subscriptions = home?.azureSubscriptions ?? []
            let items = subscriptions.map { Self.subscriptionJSON($0, tenantID: caller.tenantID) }
            var members: [(String, JSONValue)] = [("value", .array(items))]
            // Recorded with 2019-11-01 and 2020-01-01; 2016-06-01 answers the list alone (2019).
            if apiVersion >= "2019-11-01" {
                members.append(("count", .object([("type", .string("Total")), ("value", .int(items.count))])))
            }
            return ok(.object(members), correlationID: correlationID)
        case 2 where names[0] == "subscriptions":
            guard let subscription = home?.azureSubscriptions.first(where: { $0.subscriptionId == names[1] }) else {
                // Another tenant's subscription: the token is from the wrong issuer for it.
                if let owner = directory.tenants.first(where: { $0.azureSubscriptions.contains { $0.subscriptionId == names[1] } }) {
                    throw .wrongTenant(tokenIssuer: caller.issuer, owner: owner.id)
                }
                throw .subscriptionNotFound(route.segments[1])
            }
            return ok(Self.subscriptionJSON(subscription, tenantID: caller.tenantID), correlationID: correlationID)
        default:
            throw .notServed("/" + route.segments.joined(separator: "/"))
        }
    }

    /// The caller's tenant, once its bearer token is one FakeEntra signed, in date, for ARM.
    private func authenticate(_ request: HTTPRequest, directory: Directory) throws(ResourceManagerError) -> BearerAccessToken {
        guard request.headers["Authorization"] != nil else { throw .missingAuthorization }
        let validator = BearerTokenValidator(clockSkew: 300, audiences: Self.audiences)
        switch validator.validate(authorization: request.headers["Authorization"], keys: service.keys.published(at: service.clock.now()), directory: directory, now: service.clock.now()) {
        case .success(let token):
            if token.isCAECapable, let validFrom = token.revokedSince(for: directory.user(id: token.objectID)) { throw .sessionRevoked(notBefore: validFrom) }
            return token
        case .failure(.empty): throw .missingAuthorization
        case .failure(.expired):
            let now = service.clock.now()
            throw .expiredToken(expiredAt: ParsedJWT(Self.bearer(request))?.date("exp") ?? now, now: now)
        case .failure(.invalidAudience): throw .wrongAudience(ParsedJWT(Self.bearer(request))?.string("aud") ?? "")
        case .failure(let rejection): throw .invalidToken(rejection.message)
        }
    }

    private static func bearer(_ request: HTTPRequest) -> String {
        String((request.headers["Authorization"] ?? "").split(separator: " ").last ?? "")
    }

    /// ARM's root as the client reached it: the management host's, or `https://host/arm` on FakeEntra's.
    static func resourceManagerURL(request: HTTPRequest, origin: PublicOrigin) -> String {
        let onOwnHost = request.hostName.map { !ResourceManagerRoute.hostNames.contains($0) } ?? true
        return onOwnHost ? "\(origin.url)/\(ResourceManagerRoute.pathPrefix)/" : "\(origin.url)/"
    }

    /// Where a cloud registered from this document signs in: FakeEntra's own origin. On ARM's host name
    /// every path is ARM's (an openid-configuration there gets ARM's 400), so the document names the
    /// listener itself as `localhost`, a name every FakeEntra certificate carries.
    static func loginURL(request: HTTPRequest, origin: PublicOrigin, context: ConnectionFacts) -> String {
        let onResourceManagerHost = request.hostName.map(ResourceManagerRoute.hostNames.contains) ?? false
        guard onResourceManagerHost else { return origin.url }
        return PublicOrigin(scheme: origin.scheme, authority: "localhost:\(context.localPort)").url
    }

    static func tenantJSON(_ tenant: Tenant, details: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string("/tenants/\(tenant.id)")), ("tenantId", .string(tenant.id)),
        ]
        if details {
            members += [
                ("countryCode", .string("US")), ("displayName", .string(tenant.displayName)), ("domains", .strings(tenant.domains)),
                ("tenantCategory", .string("Home")), ("defaultDomain", .string(tenant.primaryDomain)), ("tenantType", .string("AAD")),
                ("tenantBrandingLogoUrl", .null),
            ]
        } else {
            members.append(("tenantCategory", .string("Home")))
        }
        return .object(members)
    }

    /// A subscription without tags has no `tags` member (recorded 2021-01-01 and 2023; a tagged one lists
    /// them, 2019), and FakeEntra's subscriptions carry none.
    static func subscriptionJSON(_ subscription: AzureSubscription, tenantID: String) -> JSONValue {
        .object([
            ("id", .string("/subscriptions/\(subscription.subscriptionId)")),
            ("authorizationSource", .string("RoleBased")),
            ("managedByTenants", .array([])),
            ("subscriptionId", .string(subscription.subscriptionId)),
            ("tenantId", .string(tenantID)),
            ("displayName", .string(subscription.displayName)),
            ("state", .string(subscription.state)),
            ("subscriptionPolicies", .object([
                ("locationPlacementId", .string("Public_2014-09-01")), ("quotaId", .string("PayAsYouGo_2014-09-01")), ("spendingLimit", .string("Off")),
            ])),
        ])
    }

    private func ok(_ body: JSONValue, correlationID: String) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: Self.standardHeaders(correlationID: correlationID), body: body.bytes)
    }

    /// The headers of every recorded ARM answer that carry meaning to a client.
    static func standardHeaders(correlationID: String) -> HTTPHeaders {
        var headers: HTTPHeaders = [:]
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "no-cache")
        headers.set("Pragma", "no-cache")
        headers.set("Expires", "-1")
        headers.set("X-Content-Type-Options", "nosniff")
        headers.set("x-ms-request-id", correlationID)
        headers.set("x-ms-correlation-request-id", correlationID)
        headers.set("x-ms-routing-request-id", "FAKEENTRA:\(correlationID)")
        headers.set("x-ms-ratelimit-remaining-tenant-reads", "11999")
        return headers
    }
}
