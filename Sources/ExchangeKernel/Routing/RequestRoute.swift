package import EntraHTTP

/// Which part of FakeEntra a request is for, decided once per request by `RouteResolver` and handed down
/// in the `ExchangeContext`. The handlers, the journal and the scenario engine all read this one value, so
/// they cannot disagree about a request (they did: `?p=` on an Entra tenant, Graph's host name).
package enum RequestRoute: Sendable, Equatable {
    /// The web console (`/`, `/_fakeentra/console/…`).
    case console
    /// The rest of `/_fakeentra/…`: health, journal, token mint, scenarios, directory edits, conformance runs.
    case control
    /// A service's endpoint, as the service's own routes read it.
    case service(any ServiceRoute)
    /// None of FakeEntra's endpoints: answered 404.
    case unrouted

    package static func == (lhs: RequestRoute, rhs: RequestRoute) -> Bool {
        switch (lhs, rhs) {
        case (.console, .console), (.control, .control), (.unrouted, .unrouted): true
        case (.service(let left), .service(let right)): left.isEqual(to: right)
        default: false
        }
    }

    /// The service's own route, when the request is that service's.
    package func typed<Route: ServiceRoute>(_ type: Route.Type = Route.self) -> Route? {
        if case .service(let route) = self { return route as? Route }
        return nil
    }

    package var service: ServiceName? {
        if case .service(let route) = self { return type(of: route).service }
        return nil
    }

    /// The tenant segment as written (`common`, a GUID, a domain, a scenario alias); nil off Entra and B2C.
    package var tenantSegment: String? {
        if case .service(let route) = self { return route.pathTenant }
        return nil
    }

    /// The B2C user flow or custom policy as the client wrote it.
    package var policy: String? {
        if case .service(let route) = self { return route.pathPolicy }
        return nil
    }

    package var isB2C: Bool { service == .b2c }

    /// The endpoint's name in the journal (`kind`): Entra endpoints by name, else `graph`, `b2c`, `admin`, `other`.
    package var journalKind: String {
        switch self {
        case .console, .control: "admin"
        case .service(let route): route.journalKind
        case .unrouted: "other"
        }
    }

    /// The kind scenario rules name (`endpoint`).
    package var ruleEndpoint: EndpointKind {
        if case .service(let route) = self { return route.ruleEndpoint }
        return .other
    }
}

/// Works out a request's `RequestRoute`: the console and the control API by their paths, then each
/// service's routes in the application's order (the first to claim a request has it).
package struct RouteResolver: Sendable {
    package static let controlPrefix = "/_fakeentra"
    package static let consolePath = "/_fakeentra/console"

    package var services: [any RouteCollection]

    package init(_ services: [any RouteCollection] = []) {
        self.services = services
    }

    package func route(_ request: HTTPRequest) -> RequestRoute {
        let path = request.rawPath
        if path == Self.consolePath || path.hasPrefix(Self.consolePath + "/") { return .console }
        // Any case: `/_FAKEENTRA/journal` is the journal's too (its handler compares lowercased), and not journaled.
        if path.hasPrefix("/_") {
            let lower = path.fastLowercased
            if lower == Self.controlPrefix || lower.hasPrefix(Self.controlPrefix + "/") { return .control }
        }
        // `/` is the console's, except on a host name a service owns whole (Graph's, Resource Manager's).
        if path == "/", request.method == "GET" || request.method == "HEAD", !services.contains(where: { $0.ownsHost(of: request) }) {
            return .console
        }
        for collection in services {
            if let route = collection.route(request) { return .service(route) }
        }
        return .unrouted
    }
}
