import IdentityFixtures
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
@testable import IdentityPlatform

@Suite struct DiscoveryTests {
    typealias F = TokenFixtures

    func metadata(_ path: String) -> [String: Any] {
        let (service, _) = F.service()
        let response = F.send(F.get(path), to: service)
        #expect(response.status.code == 200)
        return F.json(response)
    }

    @Test func v2MetadataForCommonUsesTheTenantPlaceholder() {
        let m = metadata("/common/v2.0/.well-known/openid-configuration")
        #expect(m["issuer"] as? String == "\(F.origin)/{tenantid}/v2.0")
        #expect(m["authorization_endpoint"] as? String == "\(F.origin)/common/oauth2/v2.0/authorize")
        #expect(m["token_endpoint"] as? String == "\(F.origin)/common/oauth2/v2.0/token")
        #expect(m["device_authorization_endpoint"] as? String == "\(F.origin)/common/oauth2/v2.0/devicecode")
        #expect(m["end_session_endpoint"] as? String == "\(F.origin)/common/oauth2/v2.0/logout")
        #expect(m["jwks_uri"] as? String == "\(F.origin)/common/discovery/v2.0/keys")
        #expect(m["userinfo_endpoint"] as? String == "\(F.origin)/oidc/userinfo")
        #expect(m["response_modes_supported"] as? [String] == ["query", "fragment", "form_post"])
        #expect(m["http_logout_supported"] as? Bool == true && m["request_uri_parameter_supported"] as? Bool == false)
        #expect(m["tenant_region_scope"] is NSNull)
        #expect(m["cloud_instance_name"] as? String == "microsoftonline.com")
        #expect((m["claims_supported"] as? [String])?.contains("preferred_username") == true)
    }

    @Test func namedTenantsResolveToTheirGUID() {
        for segment in [F.contoso, "contoso.onmicrosoft.com", "CONTOSO.COM"] {
            let m = metadata("/\(segment)/v2.0/.well-known/openid-configuration")
            #expect(m["issuer"] as? String == "\(F.origin)/\(F.contoso)/v2.0")
            #expect(m["token_endpoint"] as? String == "\(F.origin)/\(F.contoso)/oauth2/v2.0/token")
            #expect(m["tenant_region_scope"] as? String == "WW")
        }
        let consumers = metadata("/consumers/v2.0/.well-known/openid-configuration")
        #expect(consumers["issuer"] as? String == "\(F.origin)/\(Tenant.consumersTenantID)/v2.0")
        #expect(consumers["token_endpoint"] as? String == "\(F.origin)/consumers/oauth2/v2.0/token")
    }

    @Test func v1Metadata() {
        let m = metadata("/\(F.contoso)/.well-known/openid-configuration")
        // The v1 issuer is the STS's host whatever host answered (recorded v1 metadata and tokens).
        #expect(m["issuer"] as? String == "https://sts.windows.net/\(F.contoso)/")
        #expect(m["token_endpoint"] as? String == "\(F.origin)/\(F.contoso)/oauth2/token")
        #expect(m["jwks_uri"] as? String == "\(F.origin)/\(F.contoso)/discovery/keys")
    }

    @Test func unknownTenantIs90002() {
        let (service, _) = F.service()
        let response = F.send(F.get("/fabrikam.example/v2.0/.well-known/openid-configuration"), to: service)
        #expect(response.status.code == 400 && F.errorCode(response) == 90002)
        #expect(F.json(response)["error"] as? String == "invalid_tenant")
    }

    @Test func keysPublishTheSigningKeyWithIssuer() throws {
        let (service, _) = F.service()
        let body = F.json(F.send(F.get("/common/discovery/v2.0/keys"), to: service))
        let key = try #require((body["keys"] as? [[String: Any]])?.first)
        #expect(key["kid"] as? String == F.credential.keyID && key["kty"] as? String == "RSA" && key["use"] as? String == "sig")
        #expect(key["issuer"] as? String == "\(F.origin)/{tenantid}/v2.0")
        #expect((key["x5c"] as? [String])?.count == 1)
        // The v1 set names the v1 issuer, as the route's version says.
        let v1 = F.json(F.send(F.get("/\(F.contoso)/discovery/keys"), to: service))
        #expect(((v1["keys"] as? [[String: Any]])?.first)?["issuer"] as? String == "https://sts.windows.net/\(F.contoso)/")
    }

    @Test func instanceDiscoveryPointsAtItself() throws {
        let (service, _) = F.service()
        let target = "/common/discovery/instance?api-version=1.1&authorization_endpoint=" + FormCoding.encodeComponent("https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize")
        let body = F.json(F.send(F.get(target), to: service))
        #expect(body["tenant_discovery_endpoint"] as? String == "\(F.origin)/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration")
        #expect(body["api-version"] as? String == "1.1")
        let entry = try #require((body["metadata"] as? [[String: Any]])?.first)
        #expect(entry["preferred_network"] as? String == "login.fake.test" && entry["aliases"] as? [String] == ["login.fake.test"])
        let missing = F.send(F.get("/common/discovery/instance?api-version=1.1"), to: service)
        #expect(F.errorCode(missing) == 50049)
    }

    @Test func userRealm() {
        let (service, _) = F.service()
        let managed = F.json(F.send(F.get("/common/userrealm/adele.vance@contoso.com?api-version=1.0"), to: service))
        #expect(managed["account_type"] as? String == "Managed" && managed["domain_name"] as? String == "contoso.com")
        #expect(managed["federation_protocol"] == nil)
        let unknown = F.json(F.send(F.get("/common/userrealm/someone@elsewhere.example?api-version=1.0"), to: service))
        #expect(unknown["account_type"] as? String == "Unknown")
        let v2 = F.json(F.send(F.get("/common/userrealm/adele.vance@contoso.onmicrosoft.com?api-version=2.0"), to: service))
        #expect(v2["NameSpaceType"] as? String == "Managed" && v2["Login"] as? String == "adele.vance@contoso.onmicrosoft.com")
    }
}
