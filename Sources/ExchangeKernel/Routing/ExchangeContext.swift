import EntraCrypto
package import EntraHTTP

/// What one request carries down the layers besides its bytes, as a value (Hummingbird's typed request
/// context): the connection, the route worked out once at the top, the directives of the scenario rules
/// that fired, a request id, and the recorder the handlers write their `Receipt` into.
package struct ExchangeContext: Sendable {
    package var connection: ConnectionFacts
    package let route: RequestRoute
    /// What an active scenario changes for this request; empty outside a scenario (the engine sets it).
    package var directives: ScenarioDirectives
    /// A random GUID: the `x-ms-request-id` an Entra or B2C answer carries.
    package let requestID: String
    package let startedAt: ContinuousClock.Instant
    package let receipt: ReceiptRecorder

    package init(connection: ConnectionFacts, route: RequestRoute, directives: ScenarioDirectives = .init(),
                requestID: String = SecureRandom.guid(), startedAt: ContinuousClock.Instant = .now,
                receipt: ReceiptRecorder = ReceiptRecorder()) {
        self.connection = connection
        self.route = route
        self.directives = directives
        self.requestID = requestID
        self.startedAt = startedAt
        self.receipt = receipt
    }
}

/// One service's answers in a world (Entra, Graph, B2C, Resource Manager, managed identity): it receives
/// the requests of its own kind of route, with that route typed, from the world router.
package protocol ExchangeHandler<Route>: Sendable {
    associatedtype Route: ServiceRoute
    func handle(_ request: HTTPRequest, route: Route, context: ExchangeContext) -> HTTPResponse
    /// Whether `request` costs no more than a TLS handshake, writes nothing and waits for no long-held
    /// lock: such requests the event loop may answer itself (`HTTPResponder.answersOnLoop`).
    func answersOnLoop(_ request: HTTPRequest, route: Route) -> Bool
}

extension ExchangeHandler {
    package func answersOnLoop(_ request: HTTPRequest, route: Route) -> Bool { false }

    /// The service this handler answers for.
    var service: ServiceName { Route.service }

    /// `route` handled when it is this handler's kind of route; nil otherwise.
    func handle(_ request: HTTPRequest, anyRoute: any ServiceRoute, context: ExchangeContext) -> HTTPResponse? {
        guard let route = anyRoute as? Route else { return nil }
        return handle(request, route: route, context: context)
    }

    func answersOnLoop(_ request: HTTPRequest, anyRoute: any ServiceRoute) -> Bool {
        guard let route = anyRoute as? Route else { return false }
        return answersOnLoop(request, route: route)
    }
}
