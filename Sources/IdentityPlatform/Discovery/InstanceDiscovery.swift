import ExchangeKernel
import FoundationGaps
import LocatedJSON

/// `GET /common/discovery/instance`: tells MSAL which host to use (`preferred_network`) and where the
/// tenant's metadata is. FakeEntra names only itself, so every later request comes back here.
struct InstanceDiscovery {
    let origin: PublicOrigin
    /// The segment to write for a tenant segment (a scenario's alias stands for its tenant).
    var writtenSegment: (String) -> String = { $0 }

    func document(apiVersion: String, authorizationEndpoint: String) throws(IdentityError) -> ClaimSet {
        guard let url = URLComponents(string: authorizationEndpoint), url.host != nil,
              let tenant = url.path.split(separator: "/").first.map(String.init) else { throw .invalidInstance() }
        let isV2 = url.path.lowercased().contains("/v2.0/")
        var d = ClaimSet()
        d.set("tenant_discovery_endpoint", "\(origin.url)/\(writtenSegment(tenant))\(isV2 ? "/v2.0" : "")/.well-known/openid-configuration")
        d.set("api-version", apiVersion)
        var entry = ClaimSet()
        entry.set("preferred_network", origin.authority)
        entry.set("preferred_cache", origin.authority)
        entry.set("aliases", [origin.authority])
        d.set("metadata", .array([.object(entry.members)]))
        return d
    }
}
