import B2C
import Conformance
import Console
import EntraCrypto
import EntraHTTP
import Foundation
import Graph
import IdentityPlatform
import Scenarios

/// Everything `serve` needs to answer requests, assembled from the modules. The executable only parses
/// arguments and hands them here, so tests can build the same application in-process.
///
/// Order of the layers: the journal sees every exchange (including answers a scenario gives by itself);
/// the scenario engine picks the world a request belongs to (the default one, or a binding's isolated
/// copy) and either answers or passes the request to that world's handler chain.
public struct FakeEntraApplication: Sendable {
    public let service: IdentityService
    public let journal: RequestJournal
    public let engine: ScenarioEngine
    /// The conformance suite's runs (`fakeentra conform`, `/_fakeentra/conformance/…`).
    public let conformance: ConformanceSessions
    public let responder: any HTTPResponder

    public init(
        service: IdentityService, graph: GraphDataset = .embeddedDefault, b2c: B2CConfiguration? = .embeddedDefault,
        scenarios: @autoclosure @escaping @Sendable () -> ScenarioLibrary = ScenarioLibrary(),
        scenarioOptions: ScenarioEngineOptions = .init(), journal: RequestJournal = RequestJournal(),
        console: ConsoleSettings = .init(), startedAt: ContinuousClock.Instant = .now, servedHosts: ServedHosts? = nil
    ) {
        self.service = service
        self.journal = journal
        let health = HealthHandler(version: FakeEntraVersion.current, startedAt: startedAt)
        let journalHandler = JournalHandler(journal: journal, serverVersion: FakeEntraVersion.current)
        engine = ScenarioEngine(service: service, library: scenarios(), options: scenarioOptions)
        let worlds = engine.responder(base: { world in
            var handlers: [any HTTPHandler] = [
                health,
                journalHandler,
                // Graph first: it claims /v1.0, /beta and any request whose Host is graph.microsoft.com.
                GraphHandler(service: world, dataset: graph),
            ]
            // B2C before Entra: it claims policy paths (/tfp/…, /{tenant}/B2C_1_…, ?p=) and *.b2clogin.com.
            if let b2c { handlers.append(B2CHandler(service: world, configuration: b2c)) }
            handlers.append(IdentityHandler(service: world))
            return HandlerChain(handlers, fallback: FakeEntraApplication.notFound)
        })
        // Configured passwords and client secrets are redacted from the journal wherever they appear.
        let directory = service.currentDirectory
        journal.secrets.learnConfigured(
            passwords: directory.users.map(\.password) + (b2c?.localAccounts.map(\.password) ?? []),
            clientSecrets: directory.applications.flatMap { $0.secrets.map(\.value) } + (b2c?.applications.compactMap(\.secret) ?? [])
        )
        conformance = ConformanceSessions(engine: engine, journal: journal, b2c: b2c)
        let withConformance = ConformanceResponder(control: ConformanceControl(sessions: conformance), wrapped: worlds)
        // nil (in-process tests) answers any Host; `serve` passes the certificate's names and bound addresses.
        let served: any HTTPResponder = servedHosts.map { ServedHostResponder(hosts: $0, wrapped: withConformance) } ?? withConformance
        // The console sits in front: its pages and the token mint are not journaled, and it sees every
        // other exchange to remember the tokens the journal redacts.
        responder = ConsoleResponder(wrapping: JournalingResponder(wrapping: served, journal: journal, clock: service.clock),
                                     engine: engine, journal: journal, b2c: b2c, settings: console)
    }

    /// Unknown paths: the control API answers JSON, anything else a short text like the real hosts.
    @Sendable static func notFound(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        if request.rawPath.hasPrefix("/_fakeentra/") {
            let body = "{\"error\":{\"code\":\"not_found\",\"message\":" + JSONFragment.quote("No control endpoint at \(request.rawPath). See GET /_fakeentra/health.") + "}}"
            return HTTPResponse(status: .notFound, text: body, contentType: "application/json")
        }
        return HTTPResponse(status: .notFound, text: "404 Not Found: FakeEntra serves no resource at this path.\n", contentType: "text/plain; charset=utf-8")
    }
}

/// Routes `/_fakeentra/conformance/…` to the conformance runs; everything else to the worlds.
struct ConformanceResponder: HTTPResponder {
    let control: ConformanceControl
    let wrapped: any HTTPResponder

    func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        ConformanceControl.owns(request) ? control.respond(to: request, context: context) : wrapped.respond(to: request, context: context)
    }
}
