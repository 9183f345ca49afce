import FoundationGaps
import LocatedJSON

/// `GET /common/userrealm/{user}`: whether a sign-in name is managed by this directory or federated.
/// FakeEntra federates nothing: a known organisation domain is Managed, anything else Unknown.
struct UserRealm {
    let directory: Directory

    func document(for login: String, apiVersion: String) -> ClaimSet {
        let domain = login.split(separator: "@").last.map { String($0).lowercased() } ?? ""
        let tenant = directory.tenants.first { $0.kind == .organization && $0.domains.contains(domain) }
        var d = ClaimSet()
        if apiVersion == "2.0" {
            d.set("NameSpaceType", tenant == nil ? "Unknown" : "Managed")
            d.set("Login", login)
            d.set("DomainName", tenant == nil ? nil : domain)
            d.set("FederationBrandName", tenant?.displayName)
            d.set("TenantBrandingInfo", .null)
            d.set("cloud_instance_name", "microsoftonline.com")
            return d
        }
        d.set("ver", "1.0")
        d.set("account_type", tenant == nil ? "Unknown" : "Managed")
        d.set("domain_name", tenant == nil ? nil : domain)
        d.set("cloud_instance_name", "microsoftonline.com")
        d.set("cloud_audience_urn", "urn:federation:MicrosoftOnline")
        return d
    }
}
