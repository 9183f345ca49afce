import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import IdentityPlatform
import Synchronization

/// `…/{policy}/oauth2/v2.0/authorize`: a request with `client_id` starts a user flow; a page's post (or
/// link) carrying `ctx` continues one.
enum B2CAuthorizeEndpoint {
    static func respond(_ exchange: B2CExchange) -> HTTPResponse {
        let request = exchange.request
        guard request.method == "GET" || request.method == "POST" else {
            return SignInErrorPage(.b2cRequestFailed(), status: .methodNotAllowed, headers: ["Allow": "GET, POST"]).response(in: exchange.trace)
        }
        var parameters = request.query
        if request.method == "POST" { for (name, value) in request.form.pairs { parameters.append(name, value) } }
        if let flowID = parameters[IdentityService.flowFieldName], parameters["client_id"] == nil {
            return continueFlow(flowID, parameters: parameters, exchange: exchange)
        }
        return start(parameters: parameters.firstValues, exchange: exchange)
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
        // The flow's own bookkeeping lives among these parameters: a client cannot set it.
        let stored = parameters.filter { $0.key != "p" && !$0.key.hasPrefix(B2CFlow.internalPrefix) }
        let pending: PendingAuthorization
        do throws(IdentityError) {
            pending = try service.newSignInFlow(parameters: stored, tenantSegment: exchange.route.tenantSegment, version: .v2, policy: exchange.policy.name,
                                                now: exchange.now, expiresAt: exchange.now.addingTimeInterval(service.options.interactiveFlowLifetime))
        } catch {
            return SignInErrorPage(error).response(in: exchange.trace)
        }
        var flow = B2CFlow(exchange: exchange, pending: pending, request: request, directory: directory)
        return flow.begin()
    }

    /// The flow id names the stored request, which is validated again before going on; a flow of another
    /// policy, or one that expired, cannot be continued.
    static func continueFlow(_ flowID: String, parameters: FormParameters, exchange: B2CExchange) -> HTTPResponse {
        let service = exchange.service
        let policyName = exchange.policy.name
        guard let pending = service.pendingSignIn(flowID, now: exchange.now, where: { $0.policy?.caseInsensitiveCompare(policyName) == .orderedSame }) else {
            return SignInErrorPage(.b2cLostState()).response(in: exchange.trace)
        }
        let directory = service.currentDirectory
        let request: B2CAuthorizationRequest
        do throws(B2CAuthorizationRequest.Failure) {
            request = try B2CAuthorizationRequest.parse(pending.parameters, exchange: exchange, directory: directory)
        } catch {
            service.forgetSignIn(flowID)
            return respond(to: error, exchange: exchange)
        }
        var flow = B2CFlow(exchange: exchange, pending: pending, request: request, directory: directory)
        let action = parameters["action"] ?? ""
        // Links (GET) only move between pages; anything carrying credentials or changes must be a form post.
        guard exchange.request.method == "POST" || B2CFlow.linkActions.contains(action) else {
            return SignInErrorPage(.b2cLostState()).response(in: exchange.trace)
        }
        return flow.perform(action, input: parameters)
    }

    static func respond(to failure: B2CAuthorizationRequest.Failure, exchange: B2CExchange) -> HTTPResponse {
        switch failure {
        case .page(let error):
            return SignInErrorPage(error).response(in: exchange.trace)
        case .reply(let error, let uri, let mode, let state):
            return AuthorizeErrorRedirect(error, redirectURI: uri, mode: mode, state: state).response(in: exchange.trace)
        }
    }
}
