package import B2C
package import ExchangeKernel
import Graph
import IdentityPlatform
import ManagedIdentity
import ResourceManager

/// The order in which the application's services claim requests: Graph (which owns every path on its own
/// host names), Resource Manager, the managed identity endpoints, B2C's policy authorities, then Entra.
package enum ApplicationRoutes {
    /// `b2c` nil: no B2C is served, and policy paths are nobody's.
    package static func resolver(graphHosts: Set<String> = GraphOptions().graphHosts, b2c: B2CRoutes? = nil) -> RouteResolver {
        var services: [any RouteCollection] = [GraphRoutes(hosts: graphHosts), ResourceManagerRoutes(), ManagedIdentityRoutes()]
        if let b2c { services.append(b2c) }
        services.append(EntraRoutes())
        return RouteResolver(services)
    }

    /// For recordings of the real service, where `?p=` with a policy name is always B2C.
    package static let forRecordings = resolver(b2c: B2CRoutes(isB2CTenant: { _ in true }))
}
