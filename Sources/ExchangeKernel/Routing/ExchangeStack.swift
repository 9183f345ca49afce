package import EntraHTTP

/// One layer of the application: it answers a request itself, or hands it to the layers below through
/// `next` and may look at or change their answer (the journal records it, the console notes its tokens).
package protocol ExchangeLayer: Sendable {
    /// Whether requests of `route` pass through this layer at all; the others skip it.
    func serves(_ route: RequestRoute) -> Bool
    func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse
    /// Whether the event loop may answer `request` itself (`HTTPResponder.answersOnLoop`): true or false
    /// decides, nil leaves it to the layers below. A layer that answers a request slowly, or that lets
    /// something below take unbounded time, says false for it.
    func answersOnLoop(_ request: HTTPRequest, route: RequestRoute) -> Bool?
}

extension ExchangeLayer {
    package func serves(_ route: RequestRoute) -> Bool { true }
    package func answersOnLoop(_ request: HTTPRequest, route: RequestRoute) -> Bool? { nil }
}

/// The application as the server sees it: the layers in order, top first. The server routes a request
/// once, through `route(_:)`, as soon as it is read; the stack makes its `ExchangeContext` from that route
/// and every layer reads that one context. The last layer answers (a layer below it that is not there is
/// a 404).
package struct ExchangeStack: HTTPResponder {
    package let layers: [any ExchangeLayer]
    package let routes: RouteResolver

    package init(_ layers: [any ExchangeLayer], routes: RouteResolver) {
        self.layers = layers
        self.routes = routes
    }

    package func route(_ request: HTTPRequest) -> RequestRoute {
        routes.route(request)
    }

    package func respond(to request: HTTPRequest, route: RequestRoute, context: ConnectionFacts) -> HTTPResponse {
        Next(stack: self, index: 0)(request, ExchangeContext(connection: context, route: route))
    }

    /// The first layer with an opinion decides; with none, the request goes to a worker.
    package func answersOnLoop(_ request: HTTPRequest, route: RequestRoute) -> Bool {
        for layer in layers where layer.serves(route) {
            if let decision = layer.answersOnLoop(request, route: route) { return decision }
        }
        return false
    }

    /// The layers below the one holding it.
    package struct Next: Sendable {
        let stack: ExchangeStack
        let index: Int

        /// A request of its own sent to the layers below (the console's "Try it" acting as a client): routed
        /// here, with a context of its own, as the edge would route it. The answer and what the platform did.
        package func exchange(_ request: HTTPRequest, connection: ConnectionFacts) -> (response: HTTPResponse, receipt: Receipt) {
            let context = ExchangeContext(connection: connection, route: stack.route(request))
            return (self(request, context), context.receipt.current)
        }

        package func callAsFunction(_ request: HTTPRequest, _ context: ExchangeContext) -> HTTPResponse {
            var index = index
            while index < stack.layers.count, !stack.layers[index].serves(context.route) { index += 1 }
            guard index < stack.layers.count else { return WorldRouter.notFound(request, context) }
            return stack.layers[index].respond(to: request, context: context, next: Next(stack: stack, index: index + 1))
        }
    }
}

/// The services of one world (the default one, or a scenario binding's isolated copy), one handler per
/// service: a request goes straight to the handler of the service its route names, which receives that
/// route typed and never matches it again. Once a service answered, its receipt is complete: the service
/// wrote every secret it created into it, so the layers above need not scan the body for them, and the
/// error its answer states is copied into it here.
/// As a layer it is a last one (a stack without scenarios: tests, benchmarks).
package struct WorldRouter: ExchangeLayer {
    private let handlers: [ServiceName: any ExchangeHandler]

    /// One handler per service; a later one for the same service replaces an earlier one.
    package init(_ handlers: [any ExchangeHandler]) {
        var byService: [ServiceName: any ExchangeHandler] = [:]
        for handler in handlers { byService[handler.service] = handler }
        self.handlers = byService
    }

    package func respond(to request: HTTPRequest, context: ExchangeContext) -> HTTPResponse {
        guard case .service(let route) = context.route,
              let answer = handlers[type(of: route).service]?.handle(request, anyRoute: route, context: context) else {
            return Self.notFound(request, context)
        }
        if let stated = answer.statedError { context.receipt.stated(stated) }
        // A recorded answer's body is not the service's: readers scan it for the secrets it carries.
        if case .response? = context.directives.answer { return answer }
        context.receipt.update { $0.isComplete = true }
        return answer
    }

    package func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        respond(to: request, context: context)
    }

    /// Whether this world's handler of `route` answers `request` in bounded time without writing.
    package func answersOnLoop(_ request: HTTPRequest, route: RequestRoute) -> Bool? {
        guard case .service(let route) = route else { return false }
        return handlers[type(of: route).service]?.answersOnLoop(request, anyRoute: route) ?? false
    }

    /// What no service serves: a short text, like the real hosts.
    @Sendable package static func notFound(_ request: HTTPRequest, _ context: ExchangeContext) -> HTTPResponse {
        HTTPResponse(status: .notFound, text: "404 Not Found: FakeEntra serves no resource at this path.\n", contentType: "text/plain; charset=utf-8")
    }
}
