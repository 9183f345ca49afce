import IdentityFixtures
@testable import Journal
@testable import ControlPlane
import Graph
import EntraHTTP
import ExchangeKernel
@testable import IdentityPlatform

/// The journal's two sides as the application stacks them: the recorder on top, the control plane's
/// access rule and journal reads under it, then Entra; `other` answers any other route.
enum JournalStack {
    static func make(journal: RequestJournal, service: IdentityService, serverVersion: String = "dev", entra: (any ExchangeHandler<EntraRoute>)? = nil,
                     other: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { _ in HTTPResponse(status: .notFound) }) -> ExchangeStack {
        ExchangeStack([
            JournalRecorder(journal: journal, clock: service.clock),
            JournalReads(endpoint: JournalEndpoint(journal: journal, serverVersion: serverVersion)),
            Other(answer: other),
            WorldRouter([entra ?? EntraHandler(service: service)]),
        ], routes: RouteResolver([GraphRoutes(), EntraRoutes()]))
    }

    struct JournalReads: ExchangeLayer {
        let endpoint: JournalEndpoint

        func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
            guard case .control = context.route else { return next(request, context) }
            return ControlAccess(secret: nil).refusal(request, context: context.connection) ?? endpoint.respond(to: request, context: context.connection)
        }
    }

    struct Other: ExchangeLayer {
        let answer: @Sendable (HTTPRequest) -> HTTPResponse

        func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
            if context.route.service == .entra { return next(request, context) }
            return answer(request)
        }
    }
}
