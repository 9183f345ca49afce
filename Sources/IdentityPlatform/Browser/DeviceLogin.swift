import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import Synchronization

/// `/devicelogin` (the device flow's `verification_uri`): the person types the user code, confirms the
/// app, then goes through the same sign-in and consent pages as /authorize. Approving or declining is
/// recorded on the `DeviceCodeRecord` that the token endpoint's polling reads.
enum DeviceLogin {
    static let path = "/devicelogin"
    static let invalidMessage = "That code didn't work. Check the code and try again."
    static let expiredMessage = "That code has expired. Go back to your device and request a new code."

    static func respond(_ exchange: IdentityExchange) -> HTTPResponse {
        let request = exchange.request
        switch request.method {
        case "GET":
            return PageLayout.response(Pages.deviceCodeEntry(action: path, code: request.query["otc"] ?? request.query["code"], message: nil))
        case "POST":
            let form = request.form
            if let flowID = form[IdentityService.flowFieldName] { return continueFlow(flowID, form: form, exchange: exchange) }
            return enterCode(form["otc"] ?? "", exchange: exchange)
        default:
            return SignInErrorPage(.malformedRequest(), status: .methodNotAllowed, headers: ["Allow": "GET, POST"]).response(in: exchange.trace)
        }
    }

    /// Finds the device code the user code names and starts a flow for it with the device's request.
    static func enterCode(_ typed: String, exchange: IdentityExchange) -> HTTPResponse {
        let code = typed.filter { !$0.isWhitespace && $0 != "-" }
        let now = exchange.now
        let service = exchange.service
        let record: DeviceCodeRecord? = service.state.withLock { state in
            let key = state.userCodes[code] ?? state.userCodes[code.uppercased()]
            return key.flatMap { state.deviceCodes[$0.deviceCode] }
        }
        guard !code.isEmpty, let record else {
            return PageLayout.response(Pages.deviceCodeEntry(action: path, code: typed, message: invalidMessage), status: .badRequest)
        }
        guard record.expiresAt > now, record.status == .pending else {
            return PageLayout.response(Pages.deviceCodeEntry(action: path, code: typed, message: expiredMessage), status: .badRequest)
        }
        let expiry = min(record.expiresAt, now.addingTimeInterval(service.options.interactiveFlowLifetime))
        switch InteractiveFlow.begin(parameters: flowParameters(for: record), version: record.endpointVersion, tenantSegment: record.tenantSegment, expiresAt: expiry, exchange: exchange) {
        case .success(var flow): return flow.show(.deviceConfirm, Pages.deviceConfirm(form: flow.form, appName: flow.appName))
        case .failure(let failure): return AuthorizeEndpoint.respond(to: failure, exchange: exchange)
        }
    }

    /// The device's request as /authorize parameters: its scopes (v2) or its resource (v1).
    static func flowParameters(for record: DeviceCodeRecord) -> [String: String] {
        var parameters = ["client_id": record.clientID, AuthorizationRequest.deviceCodeParameter: record.deviceCode]
        switch record.endpointVersion {
        case .v2:
            parameters["scope"] = record.requestedScopes.joined(separator: " ")
        case .v1:
            let named = record.requestedScopes.first { ReservedScope(scope: $0) == nil }
            if let named { parameters["resource"] = named.hasSuffix("/.default") ? String(named.dropLast("/.default".count)) : named }
            parameters["scope"] = record.requestedScopes.filter { ReservedScope(scope: $0) != nil }.joined(separator: " ")
        }
        return parameters
    }

    static func continueFlow(_ flowID: String, form: FormParameters, exchange: IdentityExchange) -> HTTPResponse {
        let expired = PageLayout.response(Pages.deviceCodeEntry(action: path, code: nil, message: expiredMessage), status: .badRequest)
        switch InteractiveFlow.resume(flowID, exchange: exchange) {
        case .failure(.gone): return expired
        case .failure(.invalid(let failure)): return AuthorizeEndpoint.respond(to: failure, exchange: exchange)
        case .success(var flow):
            guard case .device(let deviceCode) = flow.request.reply else { return expired }
            let stillPending = exchange.service.state.withLock { state in
                state.deviceCodes[deviceCode].map { $0.status == .pending && $0.expiresAt > exchange.now } ?? false
            }
            guard stillPending else {
                exchange.service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
                return expired
            }
            if form["action"]?.lowercased() == "continue" { return flow.proceed() }
            return flow.handle(form)
        }
    }
}
