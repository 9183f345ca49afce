import EntraCrypto
import EntraHTTP
import Foundation
import Graph
import IdentityPlatform

/// Everything `serve` needs to answer requests, assembled from the modules. The executable only parses
/// arguments and hands them here, so tests can build the same application in-process.
public struct FakeEntraApplication: Sendable {
    public let service: IdentityService
    public let journal: RequestJournal
    public let responder: any HTTPResponder

    public init(service: IdentityService, graph: GraphDataset = .embeddedDefault, journal: RequestJournal = RequestJournal(), startedAt: ContinuousClock.Instant = .now) {
        self.service = service
        self.journal = journal
        let handlers: [any HTTPHandler] = [
            HealthHandler(version: FakeEntraVersion.current, startedAt: startedAt),
            JournalHandler(journal: journal),
            // Graph first: it claims /v1.0, /beta and any request whose Host is graph.microsoft.com.
            GraphHandler(service: service, dataset: graph),
            IdentityHandler(service: service),
        ]
        responder = JournalingResponder(
            wrapping: HandlerChain(handlers, fallback: FakeEntraApplication.notFound),
            journal: journal, clock: service.clock)
    }

    /// Unknown paths: the control API answers JSON, anything else a short text like the real hosts.
    @Sendable static func notFound(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        if request.rawPath.hasPrefix("/_fakeentra/") {
            let body = "{\"error\":\"not_found\",\"message\":\"No control endpoint at \(request.rawPath). See GET /_fakeentra/health.\"}"
            return HTTPResponse(status: .notFound, text: body, contentType: "application/json")
        }
        return HTTPResponse(status: .notFound, text: "404 Not Found: FakeEntra serves no resource at this path.\n", contentType: "text/plain; charset=utf-8")
    }
}
