import ExchangeKernel
import EntraCrypto
package import EntraHTTP
import FoundationGaps
import Synchronization

/// `/{tenant}/oauth2/v2.0/authorize` and v1 `/{tenant}/oauth2/authorize`: GET (or POST) with the client's
/// parameters starts a flow; a POST carrying `ctx` continues one from a page.
enum AuthorizeEndpoint {
    static func respond(_ exchange: IdentityExchange, version: EndpointVersion) -> HTTPResponse {
        guard exchange.request.method == "GET" || exchange.request.method == "POST" else {
            return SignInErrorPage(.malformedRequest(), status: .methodNotAllowed, headers: ["Allow": "GET, POST"]).response(in: exchange.trace)
        }
        let form = exchange.request.form
        if exchange.request.method == "POST", let flowID = form[IdentityService.flowFieldName] {
            switch InteractiveFlow.resume(flowID, exchange: exchange) {
            case .success(var flow): return flow.handle(form)
            case .failure(.gone): return SignInErrorPage(.flowExpired()).response(in: exchange.trace)
            case .failure(.invalid(let failure)): return respond(to: failure, exchange: exchange)
            }
        }
        do throws(IdentityError) {
            try ParameterScreen.check(exchange.parameters, version: version)
        } catch {
            // Before the client is known nothing can be sent back to it: the real service shows the error page.
            return SignInErrorPage(error).response(in: exchange.trace)
        }
        var parameters = exchange.parameters.firstValues
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
            return SignInErrorPage(error).response(in: exchange.trace)
        case .reply(let error, .redirect(let uri, let mode, let state)):
            return AuthorizeErrorRedirect(error, redirectURI: uri, mode: mode, state: state).response(in: exchange.trace)
        }
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
        return AuthorizationRequest.parse(parameters, version: version, tenantSegment: tenantSegment, directory: directory, options: service.options).flatMap { request in
            do throws(IdentityError) {
                let pending = try service.newSignInFlow(parameters: parameters, tenantSegment: tenantSegment, version: version, now: exchange.now, expiresAt: expiresAt)
                return .success(InteractiveFlow(exchange: exchange, pending: pending, request: request, directory: directory))
            } catch {
                // Shown, never redirected: the redirect would carry the oversized state back.
                return .failure(.page(error))
            }
        }
    }

    /// The flow a page's post continues; its stored request is validated again before going on.
    static func resume(_ flowID: String, exchange: IdentityExchange) -> Result<InteractiveFlow, ResumeFailure> {
        let service = exchange.service
        guard let pending = service.pendingSignIn(flowID, now: exchange.now) else { return .failure(.gone) }
        let directory = service.currentDirectory
        switch AuthorizationRequest.parse(pending.parameters, version: pending.endpointVersion, tenantSegment: pending.tenantSegment, directory: directory, options: service.options) {
        case .success(let request):
            return .success(InteractiveFlow(exchange: exchange, pending: pending, request: request, directory: directory))
        case .failure(let failure):
            service.forgetSignIn(flowID)
            return .failure(.invalid(failure))
        }
    }
}

extension FormParameters {
    /// The first value of each name, as /authorize reads its parameters (Entra's after ParameterScreen has
    /// refused repeated ones, and B2C's).
    package var firstValues: [String: String] {
        var values: [String: String] = [:]
        for pair in pairs where values[pair.name] == nil { values[pair.name] = pair.value }
        return values
    }
}
