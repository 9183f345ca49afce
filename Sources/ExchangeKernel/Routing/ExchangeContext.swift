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
}

/// One service's answers in a world (Entra, Graph, B2C, Resource Manager, managed identity): the
/// requests of its route, nil for any other. The world router asks only the handler of the route the
/// edge worked out.
package protocol ExchangeHandler: Sendable {
    func handle(_ request: HTTPRequest, context: ExchangeContext) -> HTTPResponse?
}
