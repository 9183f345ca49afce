import EntraCrypto
package import EntraHTTP

/// What one request carries down the layers besides its bytes, as a value (Hummingbird's typed request
/// context): the connection, the route worked out once at the top, the directives of the scenario rules
/// that fired, a request id, and the recorder the handlers write their `Receipt` into.
package struct ExchangeContext: Sendable {
    package var connection: RequestContext
    package let route: RequestRoute
    /// What an active scenario changes for this request; empty outside a scenario (the engine sets it).
    package var directives: ScenarioDirectives
    /// A random GUID: the `x-ms-request-id` an Entra or B2C answer carries.
    package let requestID: String
    package let startedAt: ContinuousClock.Instant
    package let receipt: ReceiptRecorder

    package init(connection: RequestContext, route: RequestRoute, directives: ScenarioDirectives = .init(),
                requestID: String = SecureRandom.guid(), startedAt: ContinuousClock.Instant = .now,
                receipt: ReceiptRecorder = ReceiptRecorder()) {
        self.connection = connection
        self.route = route
        self.directives = directives
        self.requestID = requestID
        self.startedAt = startedAt
        self.receipt = receipt
    }

    /// The context of a request arriving from the server: routed once, here.
    package init(request: HTTPRequest, connection: RequestContext, routes: RouteResolver) {
        self.init(connection: connection, route: routes.route(request))
    }

    /// The same exchange for `request` after a layer rewrote its Host header (served host names): the
    /// route is the rewritten request's; id, receipt and directives stay.
    package func rerouted(_ request: HTTPRequest, routes: RouteResolver) -> ExchangeContext {
        ExchangeContext(connection: connection, route: routes.route(request), directives: directives,
                        requestID: requestID, startedAt: startedAt, receipt: receipt)
    }
}

/// A handler that reads the exchange's context. It still answers plain `HTTPHandler` calls (a handler used
/// on its own, as in unit tests) by routing the request itself with its own `routes`.
package protocol ExchangeHandler: HTTPHandler {
    var routes: RouteResolver { get }
    func handle(_ request: HTTPRequest, context: ExchangeContext) -> HTTPResponse?
}

extension ExchangeHandler {
    package func handle(_ request: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        handle(request, context: ExchangeContext(request: request, connection: context, routes: routes))
    }
}

/// A responder that reads the exchange's context; the server calls its plain `HTTPResponder` side, which
/// is where a request is routed, once.
package protocol ExchangeResponder: HTTPResponder {
    var routes: RouteResolver { get }
    func respond(to request: HTTPRequest, context: ExchangeContext) -> HTTPResponse
}

extension ExchangeResponder {
    package func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        respond(to: request, context: ExchangeContext(request: request, connection: context, routes: routes))
    }

    /// The response and what the platform did to produce it.
    package func answer(_ request: HTTPRequest, context: ExchangeContext) -> (response: HTTPResponse, receipt: Receipt) {
        let response = respond(to: request, context: context)
        return (response, context.receipt.current)
    }
}

/// `HandlerChain` for exchanges: handlers in order, the first answer wins, each reading the one context.
/// Plain `HTTPHandler`s (health, journal reads) get the connection.
package struct ExchangeChain: ExchangeResponder {
    private enum Link: Sendable {
        case exchange(any ExchangeHandler)
        case plain(any HTTPHandler)
    }

    private let links: [Link]
    package let routes: RouteResolver
    package let fallback: @Sendable (HTTPRequest, RequestContext) -> HTTPResponse

    package init(_ handlers: [any HTTPHandler], routes: RouteResolver = .init(),
                fallback: @escaping @Sendable (HTTPRequest, RequestContext) -> HTTPResponse) {
        links = handlers.map { handler in
            if let exchange = handler as? any ExchangeHandler { .exchange(exchange) } else { .plain(handler) }
        }
        self.routes = routes
        self.fallback = fallback
    }

    package func respond(to request: HTTPRequest, context: ExchangeContext) -> HTTPResponse {
        for link in links {
            let answer = switch link {
            case .exchange(let handler): handler.handle(request, context: context)
            case .plain(let handler): handler.handle(request, context: context.connection)
            }
            if let answer { return answer }
        }
        return fallback(request, context.connection)
    }
}
