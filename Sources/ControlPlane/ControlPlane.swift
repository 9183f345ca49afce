package import Conformance
package import EntraHTTP
package import ExchangeKernel
package import Journal
import IdentityPlatform
import Scenarios

/// Every `/_fakeentra/…` endpoint but the console's pages, behind one access rule: health (open to
/// all), then `ControlAccess` for the journal, the token mint, the conformance runs and the control
/// API proper (scenarios, bindings, reset, clock, directory edits). Requests of other routes go on.
package struct ControlPlane: ExchangeLayer {
    package let access: ControlAccess
    package let commands: ControlCommands
    let health: HealthEndpoint
    let journal: JournalEndpoint
    let conformance: ConformanceEndpoints

    package init(access: ControlAccess, commands: ControlCommands, health: HealthEndpoint, journal: RequestJournal,
                conformance: ConformanceSessions, serverVersion: String) {
        self.access = access
        self.commands = commands
        self.health = health
        self.journal = JournalEndpoint(journal: journal, serverVersion: serverVersion)
        self.conformance = ConformanceEndpoints(sessions: conformance)
    }

    package func serves(_ route: RequestRoute) -> Bool { route == .control }

    package func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        let segments = request.pathSegments.dropFirst()
        // `/_FAKEENTRA/Journal` is the journal's too: the route is decided case-insensitively.
        let endpoint = segments.first?.fastLowercased
        let connection = context.connection
        if endpoint == "health", segments.count == 1 { return health.respond(to: request) }
        if let refusal = access.refusal(request, context: connection) { return refusal }
        switch endpoint {
        case "journal" where segments.count == 1:
            return journal.respond(to: request, context: connection)
        case "tokens" where segments.count == 1:
            return TokenMintEndpoint(commands: commands).respond(to: request, context: connection)
        case "conformance":
            return conformance.respond(to: request, context: connection)
        default:
            return ControlAPI(commands: commands).respond(to: request) ?? ScenarioEngineError.noControlEndpoint(request.rawPath).response
        }
    }
}
