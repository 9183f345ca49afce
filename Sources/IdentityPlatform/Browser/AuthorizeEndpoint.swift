import EntraCrypto
import EntraHTTP
import Foundation

/// `/{tenant}/oauth2/v2.0/authorize` and v1 `/{tenant}/oauth2/authorize`: GET (or POST) with the client's
/// parameters starts a flow; a POST carrying `ctx` continues one from a page.
enum AuthorizeEndpoint {
    static func respond(_ exchange: IdentityExchange, version: EndpointVersion) -> HTTPResponse {
        guard exchange.request.method == "GET" || exchange.request.method == "POST" else {
            return PageLayout.response(Pages.error(.malformedRequest(), trace: exchange.trace), status: .methodNotAllowed, headers: ["Allow": "GET, POST"])
        }
        let form = exchange.request.form
        if exchange.request.method == "POST", let flowID = form[IdentityService.flowFieldName] {
            return continueFlow(flowID, form: form, exchange: exchange)
        }
        var parameters = firstValues(exchange.parameters)
        // Only /devicelogin may tie a flow to a device code.
        parameters.removeValue(forKey: AuthorizationRequest.deviceCodeParameter)
        return start(parameters: parameters, version: version, tenantSegment: exchange.route.tenantSegment, exchange: exchange)
    }

    /// Validates the request, stores it server-side and takes the first step.
    static func start(parameters: [String: String], version: EndpointVersion, tenantSegment: String, exchange: IdentityExchange) -> HTTPResponse {
        let service = exchange.service
        let directory = service.currentDirectory
        let request: AuthorizationRequest
        switch AuthorizationRequest.parse(parameters, version: version, tenantSegment: tenantSegment, directory: directory, options: service.options) {
        case .success(let parsed): request = parsed
        case .failure(let failure): return respond(to: failure, exchange: exchange, appName: nil)
        }
        let now = exchange.now
        let pending = PendingAuthorization(
            id: SecureRandom.base64URLString(byteCount: 24), parameters: parameters, tenantSegment: tenantSegment,
            endpointVersion: version, expiresAt: now.addingTimeInterval(service.options.interactiveFlowLifetime)
        )
        service.state.withLock { state in
            state.purge(now: now)
            state.dropOldestPendingAuthorizations(keeping: maximumPendingFlows - 1)
        }
        var flow = InteractiveFlow(exchange: exchange, pending: pending, request: request, directory: directory)
        return flow.proceed()
    }

    /// A page's post: the flow id names the stored request, which is validated again before going on.
    static func continueFlow(_ flowID: String, form: FormParameters, exchange: IdentityExchange) -> HTTPResponse {
        let service = exchange.service
        let now = exchange.now
        guard let pending = service.state.withLock({ $0.pendingAuthorizations[flowID] }), pending.expiresAt > now else {
            service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
            return PageLayout.response(Pages.error(.flowExpired(), trace: exchange.trace), status: .badRequest)
        }
        let directory = service.currentDirectory
        switch AuthorizationRequest.parse(pending.parameters, version: pending.endpointVersion, tenantSegment: pending.tenantSegment, directory: directory, options: service.options) {
        case .success(let request):
            var flow = InteractiveFlow(exchange: exchange, pending: pending, request: request, directory: directory)
            return flow.handle(form)
        case .failure(let failure):
            service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
            return respond(to: failure, exchange: exchange, appName: nil)
        }
    }

    static func respond(to failure: AuthorizationRequest.Failure, exchange: IdentityExchange, appName: String?) -> HTTPResponse {
        switch failure {
        case .page(let error):
            return PageLayout.response(Pages.error(error, trace: exchange.trace, appName: appName), status: .badRequest)
        case .reply(let error, .redirect(let uri, let mode, let state)):
            return AuthorizationResponder.deliver(AuthorizationResponder.errorParameters(error, state: state, trace: exchange.trace), uri: uri, mode: mode)
        case .reply(let error, .device):
            return PageLayout.response(Pages.error(error, trace: exchange.trace, appName: appName), status: .badRequest)
        }
    }

    /// Abandoned sign-ins expire after `interactiveFlowLifetime`; this bounds them in between.
    static let maximumPendingFlows = 10_000

    /// The first value of every parameter, as the service reads repeated parameters.
    static func firstValues(_ parameters: FormParameters) -> [String: String] {
        var values: [String: String] = [:]
        for pair in parameters.pairs where values[pair.name] == nil { values[pair.name] = pair.value }
        return values
    }
}
