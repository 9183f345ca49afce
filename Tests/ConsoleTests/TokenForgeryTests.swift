import EntraCrypto
import EntraHTTP
import ExchangeKernel
import Foundation
import IdentityPlatform
import LocatedJSON
import Scenarios
import Testing

/// Tokens broken on purpose (`forge`): each is what its name says, and Graph, which validates like a web
/// API, refuses every one while it takes the unforged token.
@Suite struct TokenForgeryTests {
    static func mint(_ harness: ConsoleHarness, forge: String?) throws -> (token: String, header: [String: Any], claims: [String: Any]) {
        let forgeMember = forge.map { #", "forge": "\#($0)""# } ?? ""
        let response = harness.postJSON("/_fakeentra/tokens", #"{"user": "adele.vance@contoso.onmicrosoft.com", "scopes": ["User.Read"]\#(forgeMember)}"#)
        #expect(response.status.code == 201, "\(response.bodyText)")
        let body = ConsoleHarness.json(response)
        return (try #require(body["token"] as? String), try #require(body["header"] as? [String: Any]), try #require(body["claims"] as? [String: Any]))
    }

    @Test func eachForgeryBreaksWhatItNamesAndGraphRefusesIt() throws {
        let harness = ConsoleHarness()
        let now = 1_900_000_000
        let key = ConsoleHarness.credential
        let honest = try Self.mint(harness, forge: nil)
        #expect(harness.get("/v1.0/me", headers: ["Host": "graph.microsoft.com", "Authorization": "Bearer \(honest.token)"]).status == .ok)

        for forgery in TokenForgery.allCases {
            let forged = try Self.mint(harness, forge: forgery.rawValue)
            let decoded = try #require(JWS.decode(forged.token), "\(forgery)")
            let verifies = JWS.verifyRS256(decoded, key: key.privateKey.publicKey)
            switch forgery {
            case .badSignature:
                #expect(!verifies && forged.header["kid"] as? String == key.keyID && forged.claims["aud"] as? String == honest.claims["aud"] as? String)
            case .algNone:
                #expect(forged.header["alg"] as? String == "none" && forged.token.hasSuffix(".") && forged.header["kid"] == nil)
            case .unknownKeyId:
                #expect(!verifies && (forged.header["kid"] as? String).map { $0 != key.keyID } == true)
            case .futureNotBefore:
                #expect(verifies && forged.claims["nbf"] as? Int == now + 3600)
            case .expired:
                #expect(verifies && forged.claims["exp"] as? Int == now - 3600)
            case .wrongAudience:
                #expect(verifies && forged.claims["aud"] as? String == TokenForgery.otherAudience)
            case .wrongIssuer:
                #expect(verifies && (forged.claims["iss"] as? String)?.hasPrefix(TokenForgery.otherIssuerOrigin + "/") == true)
            case .wrongTenant:
                #expect(verifies && forged.claims["tid"] as? String == TokenForgery.otherTenantID)
                #expect((forged.claims["iss"] as? String)?.contains(TokenForgery.otherTenantID) == true)
            }
            // Graph takes any host in `iss` (its tenant must be `tid`'s): it cannot know every name FakeEntra
            // answers to, and a token issued at 127.0.0.1 is sent to graph.microsoft.com.
            if forgery == .wrongIssuer { continue }
            let answer = harness.get("/v1.0/me", headers: ["Host": "graph.microsoft.com", "Authorization": "Bearer \(forged.token)"])
            #expect(answer.status.code == 401, "Graph took a token forged with \(forgery): \(answer.bodyText)")
        }
    }

    /// B2C's tokens name their tenant in `iss` only: `wrongTenant` changes it there.
    @Test func wrongTenantReachesAnIssuerWithoutTid() {
        var claims = ClaimSet()
        claims.set("iss", "https://fabrikamb2c.b2clogin.com/b6c1a7d2-4e3f-4a5b-9c8d-7e6f5a4b3c21/v2.0/")
        TokenForgery.wrongTenant.forge(&claims, now: Date())
        let forged = LocatedJSON.object(body: claims.bytes)
        #expect(forged?["iss"]?.string == "https://fabrikamb2c.b2clogin.com/\(TokenForgery.otherTenantID)/v2.0/")
        #expect(forged?["tid"] == nil, "no tid is added where the service writes none")
    }

    @Test func aForgedTokensExpiryIsWhatItSays() throws {
        let body = ConsoleHarness.json(ConsoleHarness().postJSON("/_fakeentra/tokens", #"{"user": "adele.vance@contoso.onmicrosoft.com", "forge": "expired"}"#))
        #expect(body["expiresOn"] as? Int == 1_900_000_000 - 3600)
    }

    @Test func anUnknownForgeryIsRefusedWithTheNames() {
        let response = ConsoleHarness().postJSON("/_fakeentra/tokens", #"{"forge": "slightlyOff"}"#)
        #expect(response.status.code == 400 && response.bodyText.contains("badSignature, algNone"))
    }

    /// The scenario schema's list of forgeries is the server's.
    @Test func theScenarioSchemaNamesEveryForgery() throws {
        let schema = try #require(LocatedJSON.parse(body: Array(ScenarioSchema.text.utf8)))
        let names = schema["$defs"]?["tokenForgery"]?["enum"]?.array?.compactMap { (value: JSONValue) in value.string }
        #expect(names == TokenForgery.allCases.map(\.rawValue))
    }
}
