import EntraCrypto
import FakeEntraTesting
import Foundation
import IdentityPlatform
import Testing

/// `POST /_fakeentra/tokens` through FakeEntraTesting, in process and over TLS: the token carries what was
/// asked for and is signed by a key the tenant's JWKS publishes; a binding's token is that world's; bad
/// requests are clear errors.
@Suite struct TokenMintTests {
    /// The token's claims, once its signature is checked against the key its `kid` names in the tenant's JWKS.
    static func verifiedClaims(_ token: String, _ client: FakeEntraClient) async throws -> [String: Any] {
        let decoded = try #require(JWS.decode(token))
        let key = try #require(try await Contoso.publishedKey(decoded.keyID, client), "the JWKS publishes the key that signed it")
        #expect(JWS.verifyRS256(decoded, key: key))
        return try #require(try JSONSerialization.jsonObject(with: Data(decoded.payloadJSON)) as? [String: Any])
    }

    static func mint(_ client: FakeEntraClient, _ json: [String: any Sendable]) async throws -> [String: Any] {
        let response = try await client.execute(.post, "/_fakeentra/tokens", json: json)
        #expect(response.status == 201, "\(response.text)")
        return try response.json()
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func userAccessTokenHasTheScopesRolesLifetimeAndClaimsAskedFor(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let body = try await Self.mint(client, [
                "user": Contoso.adele, "clientId": "0a1b2c3d-0000-4000-8000-000000000abc",
                "scopes": ["api://orders-api/Orders.Read", "api://orders-api/Orders.Write"], "roles": ["Orders.Admin"], "lifetime": 600,
                "claims": ["groups": ["g1", "g2"], "ctry": "NZ"] as [String: any Sendable],
            ])
            let token = try #require(body["token"] as? String)
            let c = try await Self.verifiedClaims(token, client)
            #expect(c["aud"] as? String == "api://orders-api")
            #expect(c["iss"] as? String == "\(client.baseURL)/\(Directory.contosoTenantID)/v2.0")
            #expect(c["scp"] as? String == "Orders.Read Orders.Write")
            #expect(c["roles"] as? [String] == ["Orders.Admin"])
            #expect(c["preferred_username"] as? String == Contoso.adele)
            #expect(c["azp"] as? String == "0a1b2c3d-0000-4000-8000-000000000abc")
            #expect(c["groups"] as? [String] == ["g1", "g2"])
            #expect(c["ctry"] as? String == "NZ")
            #expect((c["exp"] as? Int ?? 0) - (c["iat"] as? Int ?? 0) == 600)
            #expect(body["expiresOn"] as? Int == c["exp"] as? Int)
            #expect((body["claims"] as? [String: Any])?["oid"] as? String == c["oid"] as? String)
        }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func appOnlyGraphAndIDTokens(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let app = try await Self.mint(client, ["scopes": "https://graph.microsoft.com/.default", "roles": ["User.Read.All"], "tenant": "contoso.onmicrosoft.com"])
            let appToken = try #require(app["token"] as? String)
            let appClaims = try await Self.verifiedClaims(appToken, client)
            #expect(appClaims["idtyp"] as? String == "app")
            #expect(appClaims["roles"] as? [String] == ["User.Read.All"])
            #expect(appClaims["aud"] as? String == "00000003-0000-0000-c000-000000000000")
            #expect(appClaims["appid"] as? String == "04b07795-8ddb-461a-bbee-02f9e1bf7b46")
            #expect(try await client.execute(.get, "/v1.0/users", headers: ["Authorization": "Bearer \(appToken)"]).status == 200, "Graph accepts it")

            let id = try await Self.mint(client, ["type": "id", "user": "alex.wilber@contoso.onmicrosoft.com", "clientId": "c1", "audience": "my-spa"])
            let idClaims = try await Self.verifiedClaims(try #require(id["token"] as? String), client)
            #expect(idClaims["aud"] as? String == "my-spa")
            #expect(idClaims["preferred_username"] as? String == "alex.wilber@contoso.onmicrosoft.com")
            #expect(idClaims["ver"] as? String == "2.0")

            let v1 = try await Self.mint(client, ["user": Contoso.adele, "scopes": ["api://orders-api/read"], "version": 1])
            #expect(try await Self.verifiedClaims(try #require(v1["token"] as? String), client)["ver"] as? String == "1.0")
        }
    }

    /// A token minted in a binding's world is that world's: Graph judges it by that world's clock.
    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func aTokenMintedInABindingsWorldIsAnsweredByThatWorld(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let binding = try await client.bind(scenario: "happy-path", to: .client(Contoso.newClientID()))
            let minted = try await Self.mint(client, ["user": Contoso.adele, "scopes": ["https://graph.microsoft.com/User.Read"], "lifetime": 600, "binding": binding.id])
            let token = try #require(minted["token"] as? String)
            func me() async throws -> Int { try await client.execute(.get, "/v1.0/me", headers: ["Authorization": "Bearer \(token)"]).status }
            #expect(try await me() == 200)
            _ = try await client.advanceClock(by: 3600, in: binding)
            // An hour later in the binding's world (beyond Graph's five minutes of skew): expired there.
            #expect(try await me() == 401)
        }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func badRequestsAreClearErrors(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            func error(_ body: String) async throws -> (Int, String?, String?) {
                let response = try await client.execute(.post, "/_fakeentra/tokens", headers: ["Content-Type": "application/json"], body: Array(body.utf8))
                let e = (try? response.json())?["error"] as? [String: Any]
                return (response.status, e?["code"] as? String, e?["message"] as? String)
            }
            let unknown = try await error(#"{"user": "nobody@contoso.onmicrosoft.com"}"#)
            #expect(unknown.0 == 404 && unknown.1 == "unknown_user")
            #expect(try await error(#"{"type": "id"}"#).0 == 400)
            #expect(try await error(#"{"scopes": 5}"#).2?.contains("\"scopes\"") == true)
            #expect(try await error(#"{"scope": ["a/x", "b/y"]}"#).0 == 400)
            #expect(try await error(#"{"lifetime": -1}"#).0 == 400)
            #expect(try await error(#"{"lifetmie": 60}"#).2?.contains("unknown member \"lifetmie\"") == true)
            #expect(try await error("[1]").0 == 400)
            #expect(try await error("{").0 == 400)
            #expect(try await error(#"{"binding": "b9"}"#).1 == "unknown_binding")
            #expect(try await error(#"{"user": "ben@fabrikam.test"}"#).0 == 400)
            #expect(try await client.execute(.get, "/_fakeentra/tokens").status == 405)
        }
    }
}
