import LocatedJSON
import ExchangeKernel
import FoundationGaps

/// The OpenID Connect discovery document of one tenant segment, v2 or v1, with every endpoint on
/// FakeEntra's own origin.
struct OpenIDMetadata {
    let origin: PublicOrigin
    let segment: String
    let selector: TenantSelector
    let version: EndpointVersion
    /// A scenario's alias for the named tenant, written in endpoint URLs instead of its GUID (not in `issuer`).
    var pathAlias: String?
    /// A scenario's `discoveryIssuer`: the document names this issuer instead of the tenant's (keys and
    /// tokens keep the real one).
    var servedIssuer: String?

    /// Path segment in endpoint URLs: a named tenant is shown by its GUID, the aliases as written.
    var pathTenant: String {
        switch selector {
        case .specific(let tenant): pathAlias ?? tenant.id
        case .common: "common"
        case .organizations: "organizations"
        case .consumers: segment.lowercased() == "consumers" ? "consumers" : Tenant.consumersTenantID
        }
    }

    /// `{tenantid}` for the multi-tenant aliases (clients substitute the token's `tid`).
    var issuerTenant: String {
        switch selector {
        case .specific(let tenant): tenant.id
        case .consumers: Tenant.consumersTenantID
        case .common, .organizations: "{tenantid}"
        }
    }

    var issuer: String {
        guard version == .v2 else { return Issuer.v1(tenantID: issuerTenant) }
        if case .specific(let tenant) = selector { return tenant.issuerV2(origin: origin.url) }
        return Issuer.v2(origin: origin.url, tenant: issuerTenant)
    }

    /// The `issuer` the document names.
    var documentIssuer: String { servedIssuer ?? issuer }

    var regionScope: String? {
        // "WW" (worldwide) for an organisation, as both recorded tenants' documents say; null for the aliases.
        if case .specific(let tenant) = selector, tenant.kind == .organization { return "WW" }
        return nil
    }

    /// The v1 and v2.0 documents differ in more than their paths, as recorded (Tests/Fidelity/recordings,
    /// metadata--v1-common and metadata--v2-*): v1 names PKCE methods, the `token` response types, only
    /// `openid` as a scope and its own userinfo endpoint; v2.0 points userinfo at Graph. The real v1 document
    /// also names `check_session_iframe`; FakeEntra serves no OpenID Connect session-management iframe, so
    /// it names none (Tests/Fidelity/differences.json).
    func document() -> ClaimSet {
        let base = "\(origin.url)/\(pathTenant)"
        let oauth = version == .v2 ? "\(base)/oauth2/v2.0" : "\(base)/oauth2"
        var d = ClaimSet()
        d.set("token_endpoint", "\(oauth)/token")
        d.set("token_endpoint_auth_methods_supported", ["client_secret_post", "private_key_jwt", "client_secret_basic"])
        d.set("jwks_uri", version == .v2 ? "\(base)/discovery/v2.0/keys" : "\(base)/discovery/keys")
        d.set("response_modes_supported", ["query", "fragment", "form_post"])
        d.set("subject_types_supported", ["pairwise"])
        d.set("id_token_signing_alg_values_supported", ["RS256"])
        if version == .v2 {
            d.set("response_types_supported", ["code", "id_token", "code id_token", "id_token token"])
            d.set("scopes_supported", ["openid", "profile", "email", "offline_access"])
        } else {
            d.set("response_types_supported", ["code", "id_token", "code id_token", "token id_token", "token"])
            d.set("scopes_supported", ["openid"])
        }
        d.set("issuer", documentIssuer)
        if version == .v1 {
            d.set("microsoft_multi_refresh_token", true)
            d.set("code_challenge_methods_supported", ["plain", "S256"])
            d.set("userinfo_endpoint", "\(base)/openid/userinfo")
        } else {
            d.set("request_uri_parameter_supported", false)
            d.set("userinfo_endpoint", "\(origin.url)/oidc/userinfo")
        }
        d.set("authorization_endpoint", "\(oauth)/authorize")
        d.set("device_authorization_endpoint", "\(oauth)/devicecode")
        d.set("http_logout_supported", true)
        d.set("frontchannel_logout_supported", true)
        d.set("end_session_endpoint", "\(oauth)/logout")
        d.set("claims_supported", version == .v2
            ? ["sub", "iss", "cloud_instance_name", "cloud_instance_host_name", "cloud_graph_host_name", "msgraph_host", "aud", "exp", "iat", "auth_time", "acr", "nonce", "preferred_username", "name", "tid", "ver", "at_hash", "c_hash", "email"]
            : ["sub", "iss", "cloud_instance_name", "cloud_instance_host_name", "cloud_graph_host_name", "msgraph_host", "aud", "exp", "iat", "auth_time", "acr", "amr", "nonce", "email", "given_name", "family_name", "nickname"])
        d.set("kerberos_endpoint", "\(base)/kerberos")
        d.set("tenant_region_scope", regionScope.map { .string($0) } ?? .null)
        d.set("cloud_instance_name", "microsoftonline.com")
        d.set("cloud_graph_host_name", "graph.windows.net")
        d.set("msgraph_host", origin.authority)
        d.set("rbac_url", "https://pas.windows.net")
        return d
    }
}
