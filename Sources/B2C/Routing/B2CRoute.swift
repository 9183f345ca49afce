package import ExchangeKernel
package import EntraHTTP
import IdentityPlatform

/// Which B2C endpoint a request names, in any of the authority forms clients use:
/// `/tfp/{tenant}/{policy}/…`, `/{tenant}/{policy}/…` (policy recognised by its `B2C_1_`/`B2C_1A_`
/// prefix, any case) and `/{tenant}/…?p={policy}`; the same paths on `{t}.b2clogin.com`.
package struct B2CRoute: Sendable, Equatable {
    package enum Endpoint: Sendable, Equatable { case metadata, keys, authorize, token, logout }

    package enum Form: Sendable, Equatable {
        /// `/tfp/{tenant}/{policy}/…`: the form MSAL for iOS/macOS recognises as B2C.
        case trustFrameworkPolicy
        /// `/{tenant}/{policy}/…`.
        case policyPath
        /// `/{tenant}/…?p={policy}`.
        case policyQuery
    }

    /// As written in the path (a domain, a tenant GUID, or on b2clogin.com the bare tenant name).
    package var tenantSegment: String
    /// As written by the client; matched against the configuration ignoring case.
    package var policySegment: String
    package var endpoint: Endpoint
    package var form: Form

    package init(tenantSegment: String, policySegment: String, endpoint: Endpoint, form: Form) {
        self.tenantSegment = tenantSegment
        self.policySegment = policySegment
        self.endpoint = endpoint
        self.form = form
    }

    /// nil when the request is not a B2C one. `isB2CTenant` decides whether `/{tenant}/…?p=` belongs to
    /// B2C: on an Entra tenant the same path is Entra's and must fall through to its handler.
    package static func parse(_ request: HTTPRequest, isB2CTenant: (String) -> Bool) -> B2CRoute? {
        let segments = request.pathSegments
        guard segments.count >= 2 else { return nil }
        if segments[0].fastLowercased == "tfp", segments.count >= 4, let endpoint = endpoint(segments.dropFirst(3)) {
            return B2CRoute(tenantSegment: segments[1], policySegment: segments[2], endpoint: endpoint, form: .trustFrameworkPolicy)
        }
        if segments.count >= 3, B2CRoute.isPolicyName(segments[1]), let endpoint = endpoint(segments.dropFirst(2)) {
            return B2CRoute(tenantSegment: segments[0], policySegment: segments[1], endpoint: endpoint, form: .policyPath)
        }
        if let policy = request.query["p"], B2CRoute.isPolicyName(policy), isB2CTenant(segments[0]),
           let endpoint = endpoint(segments.dropFirst(1)) {
            return B2CRoute(tenantSegment: segments[0], policySegment: policy, endpoint: endpoint, form: .policyQuery)
        }
        return nil
    }

    /// `B2C_1_…` (user flow) or `B2C_1A_…` (custom policy), in any case.
    package static func isPolicyName(_ text: String) -> Bool {
        let lower = text.fastLowercased
        return lower.count > 6 && lower.hasPrefix("b2c_1_") || lower.count > 7 && lower.hasPrefix("b2c_1a_")
    }

    private static func endpoint(_ rest: ArraySlice<String>) -> Endpoint? {
        switch rest.map({ $0.fastLowercased }) {
        case ["v2.0", ".well-known", "openid-configuration"], [".well-known", "openid-configuration"]: .metadata
        case ["discovery", "v2.0", "keys"], ["discovery", "keys"]: .keys
        case ["oauth2", "v2.0", "authorize"], ["oauth2", "authorize"]: .authorize
        case ["oauth2", "v2.0", "token"], ["oauth2", "token"]: .token
        case ["oauth2", "v2.0", "logout"], ["oauth2", "logout"]: .logout
        default: nil
        }
    }

    /// The absolute URL of `endpoint` in this route's authority form, as the metadata document lists
    /// them (the service writes the policy in lower case).
    package func url(of endpoint: Endpoint, origin: String, tenant: String) -> String {
        let policy = policySegment.fastLowercased
        let path = switch endpoint {
        case .metadata: "v2.0/.well-known/openid-configuration"
        case .keys: "discovery/v2.0/keys"
        case .authorize: "oauth2/v2.0/authorize"
        case .token: "oauth2/v2.0/token"
        case .logout: "oauth2/v2.0/logout"
        }
        let encodedTenant = FormCoding.encodeComponent(tenant)
        return switch form {
        case .trustFrameworkPolicy: "\(origin)/tfp/\(encodedTenant)/\(FormCoding.encodeComponent(policy))/\(path)"
        case .policyPath: "\(origin)/\(encodedTenant)/\(FormCoding.encodeComponent(policy))/\(path)"
        case .policyQuery: "\(origin)/\(encodedTenant)/\(path)?p=\(FormCoding.encodeComponent(policy))"
        }
    }
}

extension B2CRoute: ServiceRoute {
    package static var service: ServiceName { .b2c }
    package var journalKind: String { "b2c" }
    package var pathTenant: String? { tenantSegment }
    package var pathPolicy: String? { policySegment }

    package var ruleEndpoint: EndpointKind {
        switch endpoint {
        case .metadata: .metadata
        case .keys: .keys
        case .authorize: .authorize
        case .token: .token
        case .logout: .logout
        }
    }
}

/// B2C's policy authorities, asked before Entra's routes: `isB2CTenant` decides whether
/// `/{tenant}/…?p=B2C_1_…` is B2C's (on an Entra tenant the same path is Entra's).
package struct B2CRoutes: RouteCollection {
    package var isB2CTenant: @Sendable (String) -> Bool

    package init(isB2CTenant: @escaping @Sendable (String) -> Bool) {
        self.isB2CTenant = isB2CTenant
    }

    package func route(_ request: HTTPRequest) -> (any ServiceRoute)? { B2CRoute.parse(request, isB2CTenant: isB2CTenant) }
}

extension B2CRoute {
    /// The Entra endpoint this one is, under its policy: what the platform's shared steps read of the
    /// exchange (the tenant segment, the protocol version, a token request's grant type).
    var platformRoute: EntraRoute {
        let platformEndpoint: EntraRoute.Endpoint = switch endpoint {
        case .metadata: .openIDConfiguration(.v2)
        case .keys: .keys(.v2)
        case .authorize: .authorize(.v2)
        case .token: .token(.v2)
        case .logout: .logout(.v2)
        }
        return EntraRoute(tenantSegment: tenantSegment, endpoint: platformEndpoint)
    }
}
