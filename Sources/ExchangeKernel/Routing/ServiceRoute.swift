package import EntraHTTP

/// The services FakeEntra answers for, each by its own handler in a world.
package enum ServiceName: String, Sendable, CaseIterable {
    case entra, graph, b2c, resourceManager, managedIdentity
}

/// A service's reading of a request it claims, declared in the service's own module (Graph's resources,
/// Entra's endpoints): the service's handler receives it typed, and the layers above read only what this
/// protocol says of it.
package protocol ServiceRoute: Sendable, Equatable {
    /// The service whose handler answers the route.
    static var service: ServiceName { get }
    /// The journal's `kind` (`token`, `graph`, `b2c`…).
    var journalKind: String { get }
    /// The kind scenario rules name (`"endpoint": "token"`): a B2C endpoint counts as the Entra one it mirrors.
    var ruleEndpoint: EndpointKind { get }
    /// The tenant segment as the path wrote it; nil for services without one in their paths.
    var pathTenant: String? { get }
    /// The B2C policy as the request wrote it; nil elsewhere.
    var pathPolicy: String? { get }
    /// The resource's name scenario rules match (`graphResource`: `me`, `events`…); nil elsewhere.
    var resourceName: String? { get }
    /// A step of native authentication that can hand its journey to the browser (`ScriptedAnswer.browserRequired`).
    var handsJourneyToBrowser: Bool { get }
}

extension ServiceRoute {
    package var pathTenant: String? { nil }
    package var pathPolicy: String? { nil }
    package var resourceName: String? { nil }
    package var handsJourneyToBrowser: Bool { false }

    func isEqual(to other: any ServiceRoute) -> Bool {
        (other as? Self) == self
    }
}

/// The routes a service declares (Hummingbird's `RouteCollection` is the model): the application lists
/// each service's collection in the order it answers, and `RouteResolver` asks them in turn.
package protocol RouteCollection: Sendable {
    /// The service's route for `request`; nil when the request is not this service's.
    func route(_ request: HTTPRequest) -> (any ServiceRoute)?
    /// Whether every path on the request's host name is this service's (Graph's and Resource Manager's own
    /// host names, reached through a hosts-file override): `/` there is not the console.
    func ownsHost(of request: HTTPRequest) -> Bool
}

extension RouteCollection {
    package func ownsHost(of request: HTTPRequest) -> Bool { false }
}

/// The kinds of request a rule can name. `b2c` is any request to a B2C policy endpoint.
package enum EndpointKind: String, Sendable, CaseIterable, Codable {
    case discovery, metadata, keys, authorize, token, devicecode, devicelogin, logout, userrealm, graph, arm, managedidentity, b2c, nativeauth, other
}
