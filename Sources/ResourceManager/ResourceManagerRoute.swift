package import ExchangeKernel
package import EntraHTTP

/// A request for Azure Resource Manager, which `az login` asks for the signed-in user's tenants and
/// subscriptions: every path on ARM's own host names (`management.azure.com`,
/// `management.core.windows.net`), and `/arm/…` on FakeEntra's host (the resource manager endpoint a custom
/// cloud names, `az cloud register --endpoint-resource-manager https://host/arm/`).
package struct ResourceManagerRoute: Sendable, Equatable {
    /// The path below ARM's root, as segments (`["subscriptions", "{id}"]`).
    package var segments: [String]

    package static let pathPrefix = "arm"
    package static let hostNames: Set<String> = ["management.azure.com", "management.core.windows.net"]

    package static func parse(_ request: HTTPRequest, onResourceManagerHost: Bool) -> ResourceManagerRoute? {
        let segments = request.pathSegments
        if onResourceManagerHost { return ResourceManagerRoute(segments: segments) }
        guard let first = segments.first, first.equalsIgnoringASCIICase(pathPrefix) else { return nil }
        return ResourceManagerRoute(segments: Array(segments.dropFirst()))
    }
}

extension ResourceManagerRoute: ServiceRoute {
    package static var service: ServiceName { .resourceManager }
    package var journalKind: String { "arm" }
    package var ruleEndpoint: EndpointKind { .arm }
}

/// Resource Manager's routes: every path on its own host names, `/arm/…` on FakeEntra's.
package struct ResourceManagerRoutes: RouteCollection {
    package init() {}

    package func ownsHost(of request: HTTPRequest) -> Bool {
        request.hostName.map(ResourceManagerRoute.hostNames.contains) ?? false   // the host name is lower-cased already
    }

    package func route(_ request: HTTPRequest) -> (any ServiceRoute)? {
        ResourceManagerRoute.parse(request, onResourceManagerHost: ownsHost(of: request))
    }
}
