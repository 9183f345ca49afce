package import EntraHTTP

/// Which part of FakeEntra a request is for, decided once per request by `RouteResolver` and handed down
/// in the `ExchangeContext`. The handlers, the journal and the scenario engine all read this one value, so
/// they cannot disagree about a request (they did: `?p=` on an Entra tenant, Graph's host name).
package enum RequestRoute: Sendable, Equatable {
    /// The web console (`/`, `/_fakeentra/console/…`).
    case console
    /// The rest of `/_fakeentra/…`: health, journal, token mint, scenarios, directory edits, conformance runs.
    case control
    case graph(GraphRoute)
    /// Azure Resource Manager's tenants, subscriptions and metadata.
    case resourceManager(ResourceManagerRoute)
    /// A managed identity's token endpoint (IMDS, App Service).
    case managedIdentity(ManagedIdentityRoute)
    /// A B2C policy authority.
    case b2c(B2CRoute)
    /// An Entra ID v1 or v2 endpoint.
    case entra(IdentityRoute)
    /// None of FakeEntra's endpoints: answered 404.
    case unrouted

    /// The tenant segment as written (`common`, a GUID, a domain, a scenario alias); nil off Entra and B2C.
    package var tenantSegment: String? {
        switch self {
        case .entra(let route): route.tenantSegment
        case .b2c(let route): route.tenantSegment
        default: nil
        }
    }

    /// The B2C user flow or custom policy as the client wrote it.
    package var policy: String? {
        if case .b2c(let route) = self { return route.policySegment }
        return nil
    }

    package var isB2C: Bool {
        if case .b2c = self { return true }
        return false
    }

    /// The endpoint's name in the journal (`kind`): Entra endpoints by name, else `graph`, `b2c`, `admin`, `other`.
    package var journalKind: String {
        switch self {
        case .console, .control: "admin"
        case .graph: "graph"
        case .resourceManager: "arm"
        case .managedIdentity: "managed_identity"
        case .b2c: "b2c"
        case .unrouted: "other"
        case .entra(let route):
            switch route.endpoint {
            case .instanceDiscovery: "instance_discovery"
            case .openIDConfiguration: "openid_configuration"
            case .keys: "keys"
            case .authorize: "authorize"
            case .token: "token"
            case .deviceCode: "device_code"
            case .logout: "logout"
            case .userRealm: "user_realm"
            case .deviceLogin: "device_login"
            case .errorLookup: "error_lookup"
            case .nativeAuth, .nativeAuthV2: "native_auth"
            }
        }
    }
}

/// Works out a request's `RequestRoute`. It knows what the served application knows: the host names that
/// make a request Graph's (a hosts-file override of `graph.microsoft.com`) and which tenants are B2C ones,
/// which decides whether `/{tenant}/oauth2/v2.0/authorize?p=B2C_1_…` is B2C's or Entra's.
package struct RouteResolver: Sendable {
    package static let controlPrefix = "/_fakeentra"
    package static let consolePath = "/_fakeentra/console"

    package var graphHosts: Set<String>
    /// nil when no B2C is served: policy paths are then nobody's.
    package var isB2CTenant: (@Sendable (String) -> Bool)?

    package init(graphHosts: Set<String> = ["graph.microsoft.com"], isB2CTenant: (@Sendable (String) -> Bool)? = nil) {
        self.graphHosts = graphHosts
        self.isB2CTenant = isB2CTenant
    }

    /// In the order the application answers: the console and control API, Graph (which owns every path on
    /// its own host name), B2C policy authorities, then Entra.
    package func route(_ request: HTTPRequest) -> RequestRoute {
        let path = request.rawPath
        if path == Self.consolePath || path.hasPrefix(Self.consolePath + "/") { return .console }
        // Any case: `/_FAKEENTRA/journal` is the journal's too (its handler compares lowercased), and not journaled.
        if path.hasPrefix("/_") {
            let lower = path.fastLowercased
            if lower == Self.controlPrefix || lower.hasPrefix(Self.controlPrefix + "/") { return .control }
        }
        let onGraphHost = request.hostName.map(graphHosts.contains) ?? false   // the host name is lower-cased already
        if let graph = GraphRoute.parse(request, graphHost: onGraphHost) { return .graph(graph) }
        let onResourceManagerHost = request.hostName.map(ResourceManagerRoute.hostNames.contains) ?? false
        if let arm = ResourceManagerRoute.parse(request, onResourceManagerHost: onResourceManagerHost) { return .resourceManager(arm) }
        if let identity = ManagedIdentityRoute.parse(request) { return .managedIdentity(identity) }
        if path == "/", request.method == "GET" || request.method == "HEAD" { return .console }
        if let isB2CTenant, let b2c = B2CRoute.parse(request, isB2CTenant: isB2CTenant) { return .b2c(b2c) }
        if let entra = IdentityRoute.parse(request) { return .entra(entra) }
        return .unrouted
    }
}
