package import EntraHTTP
import FoundationGaps
import EntraCrypto
package import ExchangeKernel
package import IdentityPlatform

/// Azure AD B2C policy authorities on FakeEntra's host: metadata, keys, authorize (with its pages),
/// token and logout per policy: the requests `RouteResolver` routes `.b2c` (which `/{tenant}/…?p=B2C_1_…`
/// paths are B2C's and which Entra's is the resolver's decision, by the B2C tenant).
package struct B2CHandler: ExchangeHandler {
    package let service: IdentityService
    package let configuration: B2CConfiguration
    /// Installs the B2C tenant, accounts and apps into the service's directory when they are not there yet.
    package init(service: IdentityService, configuration: B2CConfiguration = .embeddedDefault) {
        self.service = service
        self.configuration = configuration
        service.directory.withLock { configuration.install(into: &$0) }
    }

    package func handle(_ request: HTTPRequest, route: B2CRoute, context: ExchangeContext) -> HTTPResponse {
        let base = IdentityExchange(request: request, context: context, route: route.platformRoute, service: service)
        var response = if let answer = context.directives.answer,
                          let scripted = ScriptedIdentityAnswer(base, endpoint: Self.scriptedEndpoint(route.endpoint), family: .aadb2c, policy: route.policySegment)
                              .render(answer) {
            scripted
        } else {
            answer(route: route, base: base)
        }
        response.headers.set("x-ms-request-id", base.trace.traceID)
        Self.addFrontEndHeaders(to: &response, discovery: route.endpoint == .metadata || route.endpoint == .keys)
        let wantsEcho = (request.headers["return-client-request-id"] ?? base.parameters["return-client-request-id"])?.lowercased() == "true"
        if wantsEcho, let id = request.headers["client-request-id"] ?? base.parameters["client-request-id"] {
            response.headers.set("client-request-id", id)
        }
        return response
    }

    /// How `endpoint` answers a scenario's error: a redirect, a page, or JSON.
    private static func scriptedEndpoint(_ endpoint: B2CRoute.Endpoint) -> ScriptedIdentityAnswer.Endpoint {
        switch endpoint {
        case .authorize: .authorize
        case .logout: .page
        case .token: .token
        case .metadata, .keys: .other
        }
    }

    /// What B2C's front end adds to its answers, as recorded with their headers (a user flow's keys, 2017; a
    /// ROPC refusal on b2clogin.com, 2019): its gateway's request id and the browser hardening headers, and
    /// `Cache-Control: private` on the metadata and keys (FakeEntra's token answers keep `no-store`, which
    /// RFC 6749 §5.1 requires of an answer carrying tokens).
    package static func addFrontEndHeaders(to response: inout HTTPResponse, discovery: Bool) {
        response.headers.set("x-ms-gateway-requestid", SecureRandom.guid())
        for (name, value) in [("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"), ("X-XSS-Protection", "1; mode=block")]
        where response.headers[name] == nil {
            response.headers.set(name, value)
        }
        if discovery, response.status == .ok { response.headers.set("Cache-Control", "private") }
    }

    private func answer(route: B2CRoute, base: IdentityExchange) -> HTTPResponse {
        let failure: IdentityError
        if !configuration.matchesTenant(route.tenantSegment) {
            failure = .b2cTenantNotFound(route.tenantSegment)
        } else if let policy = configuration.policy(named: route.policySegment) {
            let exchange = B2CExchange(base: base, route: route, configuration: configuration, policy: policy)
            return switch route.endpoint {
            case .metadata: B2CDiscovery.metadata(exchange)
            case .keys: B2CDiscovery.keys(exchange)
            case .authorize: B2CAuthorizeEndpoint.respond(exchange)
            case .token: B2CTokenEndpoint.respond(exchange)
            case .logout: B2CLogoutEndpoint.respond(exchange)
            }
        } else {
            failure = .b2cPolicyNotFound(route.policySegment, tenant: configuration.tenant.domain)
        }
        switch route.endpoint {
        case .authorize, .logout:
            return SignInErrorPage(failure, status: HTTPStatus(failure.status)).response(in: base.trace)
        case .metadata, .keys, .token:
            return failure.tokenEndpointResponse(in: base.trace)
        }
    }
}

extension B2CConfiguration {
    /// B2C's routes with this configuration's tenant as B2C's (`/{tenant}/…?p=B2C_1_…`).
    package var routes: B2CRoutes {
        let configuration = self
        return B2CRoutes(isB2CTenant: { configuration.matchesTenant($0) })
    }

    /// The tenant's GUID, domain, bare name (`fabrikamb2c`) or login host name, ignoring case.
    package func matchesTenant(_ segment: String) -> Bool {
        let wanted = segment.lowercased()
        return wanted == tenant.id || wanted == tenant.domain || wanted == tenant.shortName || wanted == "\(tenant.shortName).b2clogin.com"
    }
}

/// One B2C request with the policy it names resolved, and what every endpoint reads.
struct B2CExchange {
    let base: IdentityExchange
    let route: B2CRoute
    let configuration: B2CConfiguration
    let policy: B2CConfiguration.Policy

    var request: HTTPRequest { base.request }
    var service: IdentityService { base.service }
    var options: IdentityOptions { service.options }
    var trace: TraceContext { base.trace }
    var now: Date { base.now }
    var origin: String { base.origin.url }
    var tenantID: String { configuration.tenant.id }

    /// The B2C single sign-on cookie (`x-ms-cpim-sso_<tenant>`), separate from Entra's.
    var sessionCookie: SessionCookie { SessionCookie(name: "x-ms-cpim-sso_\(configuration.tenant.shortName)") }

    /// `https://<host>/<tenant id>/v2.0/`: B2C's issuer, trailing slash included.
    var issuer: String { Issuer.b2c(origin: origin, tenantID: tenantID) }

    func url(of endpoint: B2CRoute.Endpoint) -> String {
        route.url(of: endpoint, origin: origin, tenant: route.tenantSegment.lowercased())
    }

    /// Where the pages post back to: the /authorize URL of this authority, path only.
    var authorizeAction: String {
        let full = url(of: .authorize)
        return String(full.dropFirst(origin.count))
    }
}
