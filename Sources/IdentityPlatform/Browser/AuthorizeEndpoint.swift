import EntraCrypto
import EntraHTTP
import Foundation
import Synchronization

/// `/{tenant}/oauth2/v2.0/authorize` and v1 `/{tenant}/oauth2/authorize`: GET (or POST) with the client's
/// parameters starts a flow; a POST carrying `ctx` continues one from a page.
enum AuthorizeEndpoint {
    static func respond(_ exchange: IdentityExchange, version: EndpointVersion) -> HTTPResponse {
        guard exchange.request.method == "GET" || exchange.request.method == "POST" else {
            return PageLayout.response(Pages.error(.malformedRequest(), trace: exchange.trace), status: .methodNotAllowed, headers: ["Allow": "GET, POST"])
        }
        let form = exchange.request.form
        if exchange.request.method == "POST", let flowID = form[IdentityService.flowFieldName] {
            switch InteractiveFlow.resume(flowID, exchange: exchange) {
            case .success(var flow): return flow.handle(form)
            case .failure(.gone): return PageLayout.response(Pages.error(.flowExpired(), trace: exchange.trace), status: .badRequest)
            case .failure(.invalid(let failure)): return respond(to: failure, exchange: exchange)
            }
        }
        do throws(IdentityError) {
            try ParameterScreen.check(exchange.parameters, version: version)
        } catch {
            // Before the client is known nothing can be sent back to it: the real service shows the error page.
            return PageLayout.response(Pages.error(error, trace: exchange.trace), status: .badRequest)
        }
        var parameters = firstValues(exchange.parameters)
        // Only /devicelogin may tie a flow to a device code.
        parameters.removeValue(forKey: AuthorizationRequest.deviceCodeParameter)
        let lifetime = exchange.service.options.interactiveFlowLifetime
        switch InteractiveFlow.begin(parameters: parameters, version: version, tenantSegment: exchange.route.tenantSegment, expiresAt: exchange.now.addingTimeInterval(lifetime), exchange: exchange) {
        case .success(var flow): return flow.proceed()
        case .failure(let failure): return respond(to: failure, exchange: exchange)
        }
    }

    /// A request that cannot go on: an error page, or an error sent back to the app.
    static func respond(to failure: AuthorizationRequest.Failure, exchange: IdentityExchange) -> HTTPResponse {
        switch failure {
        case .page(let error), .reply(let error, .device):
            return PageLayout.response(Pages.error(error, trace: exchange.trace), status: .badRequest)
        case .reply(let error, .redirect(let uri, let mode, let state)):
            return AuthorizationResponder.deliver(AuthorizationResponder.errorParameters(error, state: state, trace: exchange.trace), uri: uri, mode: mode)
        }
    }

    /// The first value of every parameter (ParameterScreen has already refused repeated ones).
    static func firstValues(_ parameters: FormParameters) -> [String: String] {
        var values: [String: String] = [:]
        for pair in parameters.pairs where values[pair.name] == nil { values[pair.name] = pair.value }
        return values
    }
}

extension InteractiveFlow {
    enum ResumeFailure: Error {
        /// Expired or never existed.
        case gone
        /// The stored request no longer validates (the app or the directory changed).
        case invalid(AuthorizationRequest.Failure)
    }

    /// Validates a new request and stores it server-side (the first page saves it).
    static func begin(parameters: [String: String], version: EndpointVersion, tenantSegment: String, expiresAt: Date, exchange: IdentityExchange) -> Result<InteractiveFlow, AuthorizationRequest.Failure> {
        let service = exchange.service
        let directory = service.currentDirectory
        return AuthorizationRequest.parse(parameters, version: version, tenantSegment: tenantSegment, directory: directory, options: service.options).map { request in
            let pending = PendingAuthorization(
                id: SecureRandom.base64URLString(byteCount: 24), parameters: parameters, tenantSegment: tenantSegment,
                endpointVersion: version, expiresAt: expiresAt
            )
            service.state.withLock { $0.purge(now: exchange.now) }
            return InteractiveFlow(exchange: exchange, pending: pending, request: request, directory: directory)
        }
    }

    /// The flow a page's post continues; its stored request is validated again before going on.
    static func resume(_ flowID: String, exchange: IdentityExchange) -> Result<InteractiveFlow, ResumeFailure> {
        let service = exchange.service
        guard let pending = service.state.withLock({ $0.pendingAuthorizations[flowID] }), pending.expiresAt > exchange.now else {
            service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
            return .failure(.gone)
        }
        let directory = service.currentDirectory
        switch AuthorizationRequest.parse(pending.parameters, version: pending.endpointVersion, tenantSegment: pending.tenantSegment, directory: directory, options: service.options) {
        case .success(let request):
            return .success(InteractiveFlow(exchange: exchange, pending: pending, request: request, directory: directory))
        case .failure(let failure):
            service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
            return .failure(.invalid(failure))
        }
    }
}
