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

/// The application as the server sees it: the layers in order, top first. The request is routed once,
/// here, and its `ExchangeContext` made here; every layer reads that one context. The last layer answers
/// (a layer below it that is not there is a 404).
package struct ExchangeStack: HTTPResponder {
    package let layers: [any ExchangeLayer]
    package let routes: RouteResolver

    package init(_ layers: [any ExchangeLayer], routes: RouteResolver) {
        self.layers = layers
        self.routes = routes
    }

    package func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        Next(stack: self, index: 0)(request, ExchangeContext(request: request, connection: context, routes: routes))
    }

    /// The first layer with an opinion decides; with none, the request goes to a worker.
    package func answersOnLoop(_ request: HTTPRequest) -> Bool {
        let route = routes.route(request)
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
        package func exchange(_ request: HTTPRequest, connection: RequestContext) -> (response: HTTPResponse, receipt: Receipt) {
            let context = ExchangeContext(request: request, connection: connection, routes: stack.routes)
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
/// kind of route: a request goes straight to the handler of the route the edge worked out. As a layer
/// it is a last one (a stack without scenarios: tests, benchmarks).
package struct WorldRouter: ExchangeLayer {
    package var entra: (any ExchangeHandler)?
    package var graph: (any ExchangeHandler)?
    package var b2c: (any ExchangeHandler)?
    package var resourceManager: (any ExchangeHandler)?
    package var managedIdentity: (any ExchangeHandler)?

    package init(entra: (any ExchangeHandler)? = nil, graph: (any ExchangeHandler)? = nil, b2c: (any ExchangeHandler)? = nil,
                resourceManager: (any ExchangeHandler)? = nil, managedIdentity: (any ExchangeHandler)? = nil) {
        self.entra = entra
        self.graph = graph
        self.b2c = b2c
        self.resourceManager = resourceManager
        self.managedIdentity = managedIdentity
    }

    package func handler(for route: RequestRoute) -> (any ExchangeHandler)? {
        switch route {
        case .entra: entra
        case .graph: graph
        case .b2c: b2c
        case .resourceManager: resourceManager
        case .managedIdentity: managedIdentity
        case .console, .control, .unrouted: nil
        }
    }

    package func respond(to request: HTTPRequest, context: ExchangeContext) -> HTTPResponse {
        handler(for: context.route)?.handle(request, context: context) ?? Self.notFound(request, context)
    }

    package func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        respond(to: request, context: context)
    }

    /// Whether this world's handler of `route` answers `request` in bounded time without writing.
    package func answersOnLoop(_ request: HTTPRequest, route: RequestRoute) -> Bool? {
        (handler(for: route) as? any BoundedAnswers)?.answersOnLoop(request, route: route) ?? false
    }

    /// What no service serves: a short text, like the real hosts.
    @Sendable package static func notFound(_ request: HTTPRequest, _ context: ExchangeContext) -> HTTPResponse {
        HTTPResponse(status: .notFound, text: "404 Not Found: FakeEntra serves no resource at this path.\n", contentType: "text/plain; charset=utf-8")
    }
}

/// A handler that can tell which of its requests cost no more than a TLS handshake, write nothing and
/// wait for no long-held lock: those the event loop may answer itself.
package protocol BoundedAnswers {
    func answersOnLoop(_ request: HTTPRequest, route: RequestRoute) -> Bool
}
