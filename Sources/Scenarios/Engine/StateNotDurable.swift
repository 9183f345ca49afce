package import EntraHTTP
package import ExchangeKernel
import IdentityPlatform

extension ScenarioEngine {
    /// The answer to a request whose change could not be written to `--state` (disk full, the file
    /// deleted or replaced): 503 in the endpoint's own format, so the client retries instead of trusting
    /// what a restart would lose. The control API and the console answer the control API's error JSON.
    package func notDurableAnswer(to request: HTTPRequest, context: ExchangeContext, reason: String) -> HTTPResponse {
        let message = "The service is temporarily unavailable: FakeEntra could not keep this change on disk (\(reason))."
        switch context.route {
        case .control, .console:
            var response = ScenarioEngineError(status: 503, code: "state_not_durable", message: message).response
            response.headers.set("Retry-After", "5")
            return response
        default: break
        }
        var outage = context
        outage.directives.answer = .serviceError(ServiceErrorSpec(status: 503, retryAfter: 5, message: message))
        return baseRouter.respond(to: request, context: outage)
    }
}
