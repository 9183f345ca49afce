package import ExchangeKernel
import EntraCrypto
package import EntraHTTP
package import FoundationGaps

/// One request to an Entra endpoint, with what every endpoint needs to answer it.
package struct IdentityExchange: Sendable {
    package let request: HTTPRequest
    /// The exchange's context: route, scenario directives, request id, receipt.
    package let context: ExchangeContext
    package let route: EntraRoute
    package let service: IdentityService
    package let origin: PublicOrigin
    package let trace: TraceContext
    /// Read once per request so every time in one answer agrees.
    package let now: Date

    package init(request: HTTPRequest, context: ExchangeContext, route: EntraRoute, service: IdentityService) {
        self.request = request
        self.context = context
        self.route = route
        self.service = service
        self.origin = PublicOrigin(request: request, context: context.connection)
        self.now = service.clock.now()
        let correlation = request.headers["client-request-id"] ?? request.query["client-request-id"] ?? SecureRandom.guid()
        let grantType: String? = if case .token = route.endpoint { request.form["grant_type"] } else { nil }
        self.trace = TraceContext(traceID: context.requestID, correlationID: correlation, timestamp: now, origin: origin.url,
                                  endpointVersion: route.endpoint.version, grantType: grantType)
    }

    package var connection: ConnectionFacts { context.connection }
    /// What an active scenario changes for this request.
    package var directives: ScenarioDirectives { context.directives }
    package var receipt: ReceiptRecorder { context.receipt }

    /// Body parameters for POST, query parameters otherwise.
    package var parameters: FormParameters {
        request.method == "POST" ? request.form : request.query
    }

    /// Runs an endpoint whose errors are answered as the token endpoint's JSON.
    package func answeringErrorsAsJSON(_ endpoint: (IdentityExchange) throws(IdentityError) -> HTTPResponse) -> HTTPResponse {
        do {
            return try endpoint(self)
        } catch {
            return error.tokenEndpointResponse(in: trace)
        }
    }

    package func tenantSelector(directory: Directory) throws(IdentityError) -> TenantSelector {
        try TenantSelector(segment: route.tenantSegment, directory: directory)
    }
}

/// Answers Entra ID requests (v1 and v2) at their endpoints and adds the headers every answer carries.
package struct EntraHandler: ExchangeHandler {
    package let service: IdentityService
    /// False when the service keeps its state on disk (`--state`): its writes wait for SQLite.
    private let keepsStateInMemory: Bool

    package init(service: IdentityService) {
        self.service = service
        keepsStateInMemory = service.keepsStateInMemory
    }

    /// A registered app's client-credentials token while the state is kept in memory. Such a token costs
    /// about one RSA signature, what a TLS handshake already costs the loop, and handing it to a worker
    /// and being woken with the answer added two thread switches to every token (about 5 % of its CPU).
    /// It writes nothing: no code, no refresh token, and a registered app is not registered again (the
    /// lenient mode registers unknown client ids). The other grants write state.
    package func answersOnLoop(_ request: HTTPRequest, route: EntraRoute) -> Bool {
        guard keepsStateInMemory, request.method == "POST", case .token = route.endpoint else { return false }
        let form = request.form
        guard form["grant_type"] == "client_credentials", let clientID = form["client_id"] else { return false }
        // A custom claims provider may be called for an app-only token: a worker waits for it, not the loop.
        let directory = service.currentDirectory
        return directory.hasApplication(clientID: clientID) && !directory.tenants.contains { $0.customAuthenticationExtensions?.isEmpty == false }
    }

    package func handle(_ request: HTTPRequest, route: EntraRoute, context: ExchangeContext) -> HTTPResponse {
        let exchange = IdentityExchange(request: request, context: context, route: route, service: service)
        var response = if let answer = context.directives.answer,
                          let scripted = ScriptedIdentityAnswer(exchange, endpoint: Self.scriptedEndpoint(route.endpoint)).render(answer) {
            scripted
        } else {
            respond(to: exchange)
        }
        Self.addStandardHeaders(to: &response, request: request, parameters: exchange.parameters, trace: exchange.trace)
        return response
    }

    private func respond(to exchange: IdentityExchange) -> HTTPResponse {
        switch exchange.route.endpoint {
        case .instanceDiscovery, .openIDConfiguration, .keys, .userRealm:
            DiscoveryEndpoints.respond(exchange)
        case .token(let version):
            TokenEndpoint.respond(exchange, version: version)
        case .deviceCode(let version):
            DeviceAuthorizationEndpoint.respond(exchange, version: version)
        case .authorize, .logout, .deviceLogin, .errorLookup:
            BrowserEndpoints.respond(exchange)
        case .nativeAuth(let endpoint):
            NativeAuthEndpoints.respond(exchange, endpoint: endpoint)
        case .nativeAuthV2(let step):
            NativeAuthV2.respond(exchange, step: step)
        }
    }

    /// How `endpoint` answers a scenario's error: a redirect, a page, or JSON.
    private static func scriptedEndpoint(_ endpoint: EntraRoute.Endpoint) -> ScriptedIdentityAnswer.Endpoint {
        switch endpoint {
        case .authorize: .authorize
        case .logout, .deviceLogin: .page
        case .token: .token
        case .nativeAuthV2(let step) where step != .authorizeChallenge: .nativeAuthV2Step
        case .instanceDiscovery, .openIDConfiguration, .keys, .userRealm, .deviceCode, .errorLookup, .nativeAuth, .nativeAuthV2: .other
        }
    }

    /// Every Entra answer carries `x-ms-request-id`, and `client-request-id` when the client sent one,
    /// whoever produced the answer: the service echoes it even to `return-client-request-id: false`
    /// (MSAL for Go's password and device-code grants, recorded 2025-02, kubelogin's cassettes). And the
    /// headers the service's front end adds to all of them (recorded on metadata, keys, token and error
    /// answers): `x-ms-ests-server` (MSAL logs it), `x-ms-srs` (`1.P` on every token-endpoint answer
    /// recorded since 2024), `P3P`, `X-Content-Type-Options` and `X-XSS-Protection`.
    /// Not `Strict-Transport-Security`: a browser would then refuse plain http://localhost to every other
    /// development server on the machine.
    package static func addStandardHeaders(to response: inout HTTPResponse, request: HTTPRequest, parameters: FormParameters, trace: TraceContext) {
        response.headers.set("x-ms-request-id", trace.traceID)
        response.headers.set("x-ms-ests-server", estsServer)
        response.headers.set("x-ms-srs", "1.P")
        response.headers.set("P3P", "CP=\"DSP CUR OTPi IND OTRi ONL FIN\"")
        if response.headers["X-Content-Type-Options"] == nil { response.headers.set("X-Content-Type-Options", "nosniff") }
        if response.headers["X-XSS-Protection"] == nil { response.headers.set("X-XSS-Protection", "0") }
        if let id = request.headers["client-request-id"] ?? parameters["client-request-id"] {
            response.headers.set("client-request-id", id)
        }
    }

    /// The service's build and slice, in its `x-ms-ests-server` form (`2.1.14059.12 - SCUS ProdSlices`).
    static let estsServer = "2.1.0.0 - FakeEntra"
}
