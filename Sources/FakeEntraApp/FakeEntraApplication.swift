package import B2C
package import Conformance
package import Console
import ControlPlane
import EntraCrypto
import EntraHTTP
import FoundationGaps
package import Graph
package import ExchangeKernel
package import Journal
package import IdentityPlatform
import ManagedIdentity
import ResourceManager
package import Scenarios

/// Everything `serve` needs to answer requests, assembled from the modules. The executable only parses
/// arguments and hands them here, so tests can build the same application in-process.
///
/// The whole stack is `layers`, top first (docs/architecture.md draws a request's path through it).
package struct FakeEntraApplication: Sendable {
    package let service: IdentityService
    package let journal: RequestJournal
    package let engine: ScenarioEngine
    /// The conformance suite's runs (`fakeentra conform`, `/_fakeentra/conformance/…`).
    package let conformance: ConformanceSessions
    /// What the server calls: the layers below, each request routed once at the top.
    package let responder: ExchangeStack
    /// How every request is routed (Graph's host names, the B2C tenant): worked out once per request.
    package var routes: RouteResolver { responder.routes }

    package init(
        service: IdentityService, graph: GraphDataset = .embeddedDefault, b2c: B2CConfiguration? = .embeddedDefault,
        scenarios: @autoclosure @escaping @Sendable () -> ScenarioLibrary = ScenarioLibrary(),
        scenarioOptions: ScenarioEngineOptions = .init(), journal: RequestJournal = RequestJournal(),
        console: ConsoleSettings = .init(), startedAt: ContinuousClock.Instant = .now, servedHosts: ServedHosts? = nil
    ) {
        self.service = service
        self.journal = journal
        // The one resolver: it knows the Graph host names Graph serves and which tenants are B2C's.
        let graphOptions = GraphOptions()
        let routes = ApplicationRoutes.resolver(graphHosts: graphOptions.graphHosts, b2c: b2c?.routes)
        engine = ScenarioEngine(service: service, library: scenarios(), options: scenarioOptions) { world in
            WorldRouter([EntraHandler(service: world), GraphHandler(service: world, dataset: graph, options: graphOptions),
                         ResourceManagerHandler(service: world), ManagedIdentityHandler(service: world)]
                        + (b2c.map { [B2CHandler(service: world, configuration: $0)] } ?? []))
        }
        // Configured passwords and client secrets are redacted from the journal wherever they appear.
        let directory = service.currentDirectory
        journal.secrets.learnConfigured(
            passwords: directory.users.map(\.password) + (b2c?.localAccounts.map(\.password) ?? []),
            clientSecrets: directory.applications.flatMap { $0.secrets.map(\.value) } + (b2c?.applications.compactMap(\.secret) ?? [])
        )
        conformance = ConformanceSessions(engine: engine, journal: journal, b2c: b2c)
        let health = HealthEndpoint(version: FakeEntraVersion.current, startedAt: startedAt, durability: service.durability)
        let control = ControlPlane(access: ControlAccess(secret: scenarioOptions.controlSecret),
                                   commands: ControlCommands(engine: engine, ledger: TokenLedger()), health: health,
                                   journal: journal, conformance: conformance, serverVersion: FakeEntraVersion.current)
        var layers: [any ExchangeLayer] = [HealthProbe(health)]
        // servedHosts nil (this package's in-process tests) answers any Host; `serve` passes the certificate's
        // names and bound addresses, FakeEntraTesting the loopback names its listener answers as.
        if let servedHosts { layers.append(servedHosts) }
        layers += [
            CrossSiteGuard(),
            PageSecurityHeaders(),
            DurableWrites(engine: engine),
            // Its pages are not journaled, and it sees every other exchange to remember the tokens the journal redacts.
            ConsoleLayer(control: control, journal: journal, b2c: b2c, settings: console),
            JournalRecorder(journal: journal, clock: service.clock),
            control,
            ScenarioLayer(engine: engine),
        ]
        responder = ExchangeStack(layers, routes: routes)
    }
}

/// A write this request caused that `--state` could not make: not acknowledged (503 in the endpoint's
/// own format, the control API's error JSON for the control API and the console), so the client retries
/// instead of trusting what a restart would lose.
struct DurableWrites: ExchangeLayer {
    let engine: ScenarioEngine

    func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        let durability = engine.base.durability
        let failuresBefore = durability.failures
        let response = next(request, context)
        if durability.failures != failuresBefore, let reason = durability.degradedReason {
            switch context.route {
            case .control, .console: return ScenarioEngineError.stateNotDurable(reason).response
            default: return engine.notDurableAnswer(to: request, context: context, reason: reason)
            }
        }
        return response
    }
}

