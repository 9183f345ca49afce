package import EntraHTTP
package import ExchangeKernel
import IdentityPlatform

extension ScenarioEngine {
    /// Why a request whose change could not be written to `--state` (disk full, the file deleted or
    /// replaced) is refused, in every format that answers it.
    package static func notDurableMessage(_ reason: String) -> String {
        "The service is temporarily unavailable: FakeEntra could not keep this change on disk (\(reason))."
    }

    /// A service's answer to such a request: 503 in the endpoint's own format, so the client retries
    /// instead of trusting what a restart would lose.
    package func notDurableAnswer(to request: HTTPRequest, context: ExchangeContext, reason: String) -> HTTPResponse {
        var outage = context
        outage.directives.answer = .serviceError(ServiceErrorSpec(status: 503, retryAfter: 5, message: Self.notDurableMessage(reason)))
        return baseRouter.respond(to: request, context: outage)
    }
}
