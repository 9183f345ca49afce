package import B2C
package import Conformance
package import Console
import EntraCrypto
package import EntraHTTP
import Foundation
package import Graph
package import IdentityPlatform
import ManagedIdentity
import ResourceManager
package import Scenarios
import Synchronization

/// Everything `serve` needs to answer requests, assembled from the modules. The executable only parses
/// arguments and hands them here, so tests can build the same application in-process.
///
/// Order of the layers: the journal sees every exchange (including answers a scenario gives by itself);
/// the scenario engine picks the world a request belongs to (the default one, or a binding's isolated
/// copy) and either answers or passes the request to that world's handler chain.
package struct FakeEntraApplication: Sendable {
    package let service: IdentityService
    package let journal: RequestJournal
    package let engine: ScenarioEngine
    /// The conformance suite's runs (`fakeentra conform`, `/_fakeentra/conformance/…`).
    package let conformance: ConformanceSessions
    package let responder: any HTTPResponder
    /// How every request is routed (Graph's host names, the B2C tenant): worked out once per request.
    package let routes: RouteResolver

    package init(
        service: IdentityService, graph: GraphDataset = .embeddedDefault, b2c: B2CConfiguration? = .embeddedDefault,
        scenarios: @autoclosure @escaping @Sendable () -> ScenarioLibrary = ScenarioLibrary(),
        scenarioOptions: ScenarioEngineOptions = .init(), journal: RequestJournal = RequestJournal(),
        console: ConsoleSettings = .init(), startedAt: ContinuousClock.Instant = .now, servedHosts: ServedHosts? = nil
    ) {
        self.service = service
        self.journal = journal
        let health = HealthHandler(version: FakeEntraVersion.current, startedAt: startedAt, durability: service.durability)
        let journalHandler = JournalHandler(journal: journal, serverVersion: FakeEntraVersion.current)
        engine = ScenarioEngine(service: service, library: scenarios(), options: scenarioOptions)
        // The one resolver: it knows the Graph host names Graph serves and which tenants are B2C's. Every
        // request is routed once, by the outermost responder, and the route travels in its ExchangeContext.
        let graphOptions = GraphOptions()
        let routes = b2c?.routes(graphHosts: graphOptions.graphHosts) ?? graphOptions.routes
        self.routes = routes
        let worlds = engine.responder(base: { world in
            var handlers: [any HTTPHandler] = [
                health,
                journalHandler,
                GraphHandler(service: world, dataset: graph, options: graphOptions),
                ResourceManagerHandler(service: world, routes: routes),
                ManagedIdentityHandler(service: world, routes: routes),
            ]
            if let b2c { handlers.append(B2CHandler(service: world, configuration: b2c)) }
            handlers.append(IdentityHandler(service: world, routes: routes))
            return ExchangeChain(handlers, routes: routes, fallback: FakeEntraApplication.notFound)
        }, routes: routes)
        // Configured passwords and client secrets are redacted from the journal wherever they appear.
        let directory = service.currentDirectory
        journal.secrets.learnConfigured(
            passwords: directory.users.map(\.password) + (b2c?.localAccounts.map(\.password) ?? []),
            clientSecrets: directory.applications.flatMap { $0.secrets.map(\.value) } + (b2c?.applications.compactMap(\.secret) ?? [])
        )
        conformance = ConformanceSessions(engine: engine, journal: journal, b2c: b2c)
        let withConformance = ConformanceResponder(control: ConformanceControl(sessions: conformance), wrapped: worlds)
        // The console sits in front: its pages and the token mint are not journaled, and it sees every
        // other exchange to remember the tokens the journal redacts.
        // servedHosts nil (in-process tests) answers any Host; `serve` passes the certificate's names and bound addresses.
        responder = ApplicationResponder(health: health, engine: engine, routes: routes, servedHosts: servedHosts,
                                         answersTokensOnLoop: service.state.withLock { $0.persistence == nil }, wrapped: ConsoleResponder(
            wrapping: JournalingResponder(wrapping: withConformance, journal: journal, clock: service.clock),
            engine: engine, journal: journal, b2c: b2c, settings: console))
    }

    /// Unknown paths: the control API answers JSON, anything else a short text like the real hosts.
    @Sendable static func notFound(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        if request.rawPath.hasPrefix("/_fakeentra/") {
            return ScenarioEngineError.noControlEndpoint(request.rawPath).response
        }
        return HTTPResponse(status: .notFound, text: "404 Not Found: FakeEntra serves no resource at this path.\n", contentType: "text/plain; charset=utf-8")
    }
}

/// The application as the server sees it: every request goes through the whole stack (console, journal,
/// served hosts, conformance, scenarios) except health probes. A probe's answer is a constant-time JSON
/// object that no scenario rule, world or Host changes and the journal does not keep (a control route):
/// it is answered at once. Probes, and a registered app's client-credentials token requests while no
/// scenario is bound and no `--state` is kept, are answered on the event loop (see `answersOnLoop`);
/// everything else on a worker.
struct ApplicationResponder: HTTPResponder {
    let health: HealthHandler
    let engine: ScenarioEngine
    let routes: RouteResolver
    let servedHosts: ServedHosts?
    /// False when the default world keeps its state on disk (`--state`): its writes wait for SQLite.
    let answersTokensOnLoop: Bool
    let wrapped: any HTTPResponder

    func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        if HealthHandler.isProbe(request), let probe = health.handle(request, context: context) { return probe }
        if let refusal = servedHosts?.refusal(request) ?? CrossSiteGuard.refusal(request) { return refusal }
        // A write this request caused that `--state` could not make: not acknowledged (503).
        let durability = engine.base.durability
        let failuresBefore = durability.failures
        var response = wrapped.respond(to: request, context: context)
        if durability.failures != failuresBefore, let reason = durability.degradedReason {
            response = engine.notDurableAnswer(to: request, connection: context, routes: routes, reason: reason)
        }
        PageSecurityHeaders.apply(to: &response)
        return response
    }

    /// Health probes; and client-credentials token requests of a registered app while no scenario is
    /// bound and no `--state` is kept. Such a token costs about one RSA signature, what a TLS handshake
    /// already costs the loop, and handing it to a worker and being woken with the answer added two
    /// thread switches to every token (about 5 % of its CPU). It writes nothing: no code, no refresh
    /// token, and a registered app is not registered again (the lenient mode registers unknown client
    /// ids). The other grants write state, and a bound scenario's rules can delay an answer or make a key
    /// on the spot: those requests go to the workers.
    func answersOnLoop(_ request: HTTPRequest) -> Bool {
        if HealthHandler.isProbe(request) { return true }
        guard answersTokensOnLoop, IdentityRoute.isTokenPost(request), !engine.hasBindings else { return false }
        let form = request.form
        guard form["grant_type"] == "client_credentials", let clientID = form["client_id"] else { return false }
        return engine.base.currentDirectory.hasApplication(clientID: clientID)
    }
}

/// Routes `/_fakeentra/conformance/…` to the conformance runs; everything else to the worlds.
struct ConformanceResponder: ExchangeResponder {
    let control: ConformanceControl
    let wrapped: any ExchangeResponder

    var routes: RouteResolver { wrapped.routes }

    func respond(to request: HTTPRequest, context: ExchangeContext) -> HTTPResponse {
        ConformanceControl.owns(request) ? control.respond(to: request, context: context.connection) : wrapped.respond(to: request, context: context)
    }
}
