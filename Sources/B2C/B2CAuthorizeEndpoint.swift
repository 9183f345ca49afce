import EntraCrypto
import EntraHTTP
import Foundation
import IdentityPlatform
import Synchronization

/// `…/{policy}/oauth2/v2.0/authorize`: a request with `client_id` starts a user flow; a page's post (or
/// link) carrying `ctx` continues one.
enum B2CAuthorizeEndpoint {
    static func respond(_ exchange: B2CExchange) -> HTTPResponse {
        let request = exchange.request
        guard request.method == "GET" || request.method == "POST" else {
            return SharedPages.response(SharedPages.error(.b2cRequestFailed(), trace: exchange.trace), status: .methodNotAllowed, headers: ["Allow": "GET, POST"])
        }
        var parameters = request.query
        if request.method == "POST" { for (name, value) in request.form.pairs { parameters.append(name, value) } }
        if let flowID = parameters[IdentityService.flowFieldName], parameters["client_id"] == nil {
            return continueFlow(flowID, parameters: parameters, exchange: exchange)
        }
        return start(parameters: firstValues(parameters), exchange: exchange)
    }

    static func start(parameters: [String: String], exchange: B2CExchange) -> HTTPResponse {
        let service = exchange.service
        let directory = service.currentDirectory
        let request: B2CAuthorizationRequest
        do throws(B2CAuthorizationRequest.Failure) {
            request = try B2CAuthorizationRequest.parse(parameters, exchange: exchange, directory: directory)
        } catch {
            return respond(to: error, exchange: exchange)
        }
        let now = exchange.now
        // The flow's own bookkeeping lives among these parameters: a client cannot set it.
        let stored = parameters.filter { $0.key != "p" && !$0.key.hasPrefix(B2CFlow.internalPrefix) }
        let pending = PendingAuthorization(
            id: SecureRandom.base64URLString(byteCount: 24), parameters: stored, tenantSegment: exchange.route.tenantSegment,
            endpointVersion: .v2, policy: exchange.policy.name, expiresAt: now.addingTimeInterval(service.options.interactiveFlowLifetime)
        )
        service.state.withLock { $0.purge(now: now) }
        var flow = B2CFlow(exchange: exchange, pending: pending, request: request, directory: directory)
        return flow.begin()
    }

    /// The flow id names the stored request, which is validated again before going on; a flow of another
    /// policy, or one that expired, cannot be continued.
    static func continueFlow(_ flowID: String, parameters: FormParameters, exchange: B2CExchange) -> HTTPResponse {
        let service = exchange.service
        let stored = service.state.withLock { $0.pendingAuthorizations[flowID] }
        guard let pending = stored, pending.expiresAt > exchange.now,
              pending.policy?.caseInsensitiveCompare(exchange.policy.name) == .orderedSame else {
            service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
            return SharedPages.response(SharedPages.error(.b2cLostState(), trace: exchange.trace), status: .badRequest)
        }
        let directory = service.currentDirectory
        let request: B2CAuthorizationRequest
        do throws(B2CAuthorizationRequest.Failure) {
            request = try B2CAuthorizationRequest.parse(pending.parameters, exchange: exchange, directory: directory)
        } catch {
            service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
            return respond(to: error, exchange: exchange)
        }
        var flow = B2CFlow(exchange: exchange, pending: pending, request: request, directory: directory)
        let action = parameters["action"] ?? ""
        // Links (GET) only move between pages; anything carrying credentials or changes must be a form post.
        guard exchange.request.method == "POST" || B2CFlow.linkActions.contains(action) else {
            return SharedPages.response(SharedPages.error(.b2cLostState(), trace: exchange.trace), status: .badRequest)
        }
        return flow.perform(action, input: parameters)
    }

    static func respond(to failure: B2CAuthorizationRequest.Failure, exchange: B2CExchange) -> HTTPResponse {
        switch failure {
        case .page(let error):
            return SharedPages.response(SharedPages.error(error, trace: exchange.trace), status: .badRequest)
        case .reply(let error, let uri, let mode, let state):
            return SharedRedirect.deliver(SharedRedirect.errorParameters(error, state: state, trace: exchange.trace), uri: uri, responseMode: mode)
        }
    }

    /// The first value of each parameter, as the service reads a query.
    static func firstValues(_ parameters: FormParameters) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in parameters.pairs where values[name] == nil { values[name] = value }
        return values
    }
}
