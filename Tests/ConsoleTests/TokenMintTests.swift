import EntraCrypto
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing

@Suite struct TokenMintTests {
    func claims(of token: String) throws -> [String: Any] {
        let decoded = try #require(JWS.decode(token))
        #expect(JWS.verifyRS256(decoded, key: ConsoleHarness.credential.privateKey.publicKey))
        return try #require(try JSONSerialization.jsonObject(with: Data(decoded.payloadJSON)) as? [String: Any])
    }

    @Test func userAccessTokenHasTheScopesRolesLifetimeAndClaimsAskedFor() throws {
        let harness = ConsoleHarness()
        let response = harness.postJSON("/_fakeentra/tokens", """
        {"user": "adele.vance@contoso.onmicrosoft.com", "clientId": "0a1b2c3d-0000-4000-8000-000000000abc", "scopes": ["api://orders-api/Orders.Read", "api://orders-api/Orders.Write"],
         "roles": ["Orders.Admin"], "lifetime": 600, "claims": {"groups": ["g1", "g2"], "ctry": "NZ"}}
        """)
        #expect(response.status.code == 201)
        let body = ConsoleHarness.json(response)
        let token = try #require(body["token"] as? String)
        let c = try claims(of: token)
        #expect(c["aud"] as? String == "api://orders-api")
        #expect(c["iss"] as? String == "https://login.fake.test/4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70/v2.0")
        #expect(c["scp"] as? String == "Orders.Read Orders.Write")
        #expect(c["roles"] as? [String] == ["Orders.Admin"])
        #expect(c["preferred_username"] as? String == ConsoleHarness.adele)
        #expect(c["azp"] as? String == "0a1b2c3d-0000-4000-8000-000000000abc")
        #expect(c["groups"] as? [String] == ["g1", "g2"])
        #expect(c["ctry"] as? String == "NZ")
        #expect((c["exp"] as? Int ?? 0) - (c["iat"] as? Int ?? 0) == 600)
        #expect(body["expiresOn"] as? Int == c["exp"] as? Int)
        #expect((body["claims"] as? [String: Any])?["oid"] as? String == c["oid"] as? String)
    }

    @Test func appOnlyGraphAndIDTokens() throws {
        let harness = ConsoleHarness()
        let app = ConsoleHarness.json(harness.postJSON("/_fakeentra/tokens", #"{"scopes": "https://graph.microsoft.com/.default", "roles": ["User.Read.All"], "tenant": "contoso.onmicrosoft.com"}"#))
        let appClaims = try claims(of: try #require(app["token"] as? String))
        #expect(appClaims["idtyp"] as? String == "app")
        #expect(appClaims["roles"] as? [String] == ["User.Read.All"])
        #expect(appClaims["aud"] as? String == "00000003-0000-0000-c000-000000000000")
        #expect(appClaims["appid"] as? String == "04b07795-8ddb-461a-bbee-02f9e1bf7b46")

        let id = ConsoleHarness.json(harness.postJSON("/_fakeentra/tokens", #"{"type": "id", "user": "alex.wilber@contoso.onmicrosoft.com", "clientId": "c1", "audience": "my-spa"}"#))
        let idClaims = try claims(of: try #require(id["token"] as? String))
        #expect(idClaims["aud"] as? String == "my-spa")
        #expect(idClaims["preferred_username"] as? String == ConsoleHarness.alex)
        #expect(idClaims["ver"] as? String == "2.0")

        let v1 = ConsoleHarness.json(harness.postJSON("/_fakeentra/tokens", #"{"user": "adele.vance@contoso.onmicrosoft.com", "scopes": ["api://orders-api/read"], "version": 1}"#))
        #expect(try claims(of: try #require(v1["token"] as? String))["ver"] as? String == "1.0")

        // The minted token is decoded in the console like any other.
        #expect(harness.get("/_fakeentra/console").status.code == 200)
    }

    /// A token minted in a binding's world is that world's: Graph judges it by that world's clock.
    @Test func aTokenMintedInABindingsWorldIsAnsweredByThatWorld() throws {
        let harness = ConsoleHarness()
        let binding = ConsoleHarness.json(harness.postJSON("/_fakeentra/bindings", #"{"scenario": "happy-path", "clientId": "5c0ffee0-0000-4000-8000-000000000001"}"#))
        let id = try #require(binding["id"] as? String)
        let minted = ConsoleHarness.json(harness.postJSON("/_fakeentra/tokens", #"{"user": "adele.vance@contoso.onmicrosoft.com", "scopes": ["https://graph.microsoft.com/User.Read"], "lifetime": 600, "binding": "\#(id)"}"#))
        let token = try #require(minted["token"] as? String)
        let bearer: HTTPHeaders = ["Authorization": "Bearer \(token)"]
        #expect(harness.get("/v1.0/me", headers: bearer).status.code == 200)
        #expect(harness.postJSON("/_fakeentra/clock/advance", #"{"seconds": 3600, "binding": "\#(id)"}"#).status.code == 200)
        // An hour later in the binding's world (beyond Graph's five minutes of skew): expired there.
        #expect(harness.get("/v1.0/me", headers: bearer).status.code == 401)
    }

    @Test func badRequestsAreClearErrors() {
        let harness = ConsoleHarness()
        func error(_ body: String) -> (Int, String?, String?) {
            let response = harness.postJSON("/_fakeentra/tokens", body)
            let e = ConsoleHarness.json(response)["error"] as? [String: Any]
            return (response.status.code, e?["code"] as? String, e?["message"] as? String)
        }
        #expect(error(#"{"user": "nobody@contoso.onmicrosoft.com"}"#).1 == "unknown_user")
        #expect(error(#"{"user": "nobody@contoso.onmicrosoft.com"}"#).0 == 404)
        #expect(error(#"{"type": "id"}"#).0 == 400)
        #expect(error(#"{"scopes": 5}"#).2?.contains("\"scopes\"") == true)
        #expect(error(#"{"scope": ["a/x", "b/y"]}"#).0 == 400)
        #expect(error(#"{"lifetime": -1}"#).0 == 400)
        #expect(error(#"{"lifetmie": 60}"#).2?.contains("unknown member \"lifetmie\"") == true)
        #expect(error("[1]").0 == 400)
        #expect(error("{").0 == 400)
        #expect(error(#"{"binding": "b9"}"#).1 == "unknown_binding")
        #expect(error(#"{"user": "ben@fabrikam.test"}"#).0 == 400)
        #expect(harness.get("/_fakeentra/tokens").status.code == 405)
    }

    @Test func sameAccessRuleAsTheControlAPI() {
        #expect(ConsoleHarness().postJSON("/_fakeentra/tokens", "{}", from: "192.0.2.1").status.code == 403)
        let guarded = ConsoleHarness(secret: "s3cret")
        #expect(guarded.postJSON("/_fakeentra/tokens", "{}").status.code == 401)
        #expect(guarded.postJSON("/_fakeentra/tokens", "{}", headers: ["Authorization": "Bearer s3cret"], from: "192.0.2.1").status.code == 201)
    }
}
