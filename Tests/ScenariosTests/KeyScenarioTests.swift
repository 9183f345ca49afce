import EntraCrypto
import EntraHTTP
import ExchangeKernel
import Foundation
import IdentityPlatform
import Testing
@testable import Scenarios

/// The signing key as scenarios change it: a rollover that keeps the old key published for a while, and
/// tokens forged on purpose (`forgeTokens`).
@Suite struct KeyScenarioTests {
    static func kids(_ harness: Harness) -> [String] {
        let jwks = Harness.body(harness.send(Harness.get("/common/discovery/v2.0/keys")))
        return (jwks["keys"] as? [[String: Any]])?.compactMap { $0["kid"] as? String } ?? []
    }

    @Test func aGracefulRolloverKeepsTheOldKeyPublishedForItsGraceThenDropsIt() throws {
        let scenario = try #require(ShippedScenarioTests.library["signing-key-graceful-rollover"])
        let harness = Harness(scenarios: [scenario])
        let binding = try harness.engine.bind(scenario: scenario.name, to: .server)
        let first = Harness.body(harness.send(Harness.passwordGrant()))
        let firstToken = try #require(first["access_token"] as? String)
        let oldKid = try #require(JWS.decode(firstToken)?.keyID)
        let second = Harness.body(harness.send(Harness.refreshGrant(try #require(first["refresh_token"] as? String))))
        let secondToken = try #require(second["access_token"] as? String)
        let newKid = try #require(JWS.decode(secondToken)?.keyID)
        #expect(newKid != oldKid)
        #expect(Self.kids(harness) == [newKid, oldKid], "both keys are published during the grace")
        // A Graph call with the old key's token still works during the grace.
        let graph = harness.send(Harness.get("/v1.0/me", headers: ["Host": "graph.microsoft.com", "Authorization": "Bearer \(firstToken)"]))
        #expect(graph.status.code == 200)
        let advanced = harness.send(Harness.json("POST", "/_fakeentra/clock/advance", #"{"seconds": 3601, "binding": "\#(binding.id)"}"#))
        #expect(advanced.status.code == 200, "\(advanced.bodyText)")
        #expect(Self.kids(harness) == [newKid], "the old key leaves once its grace is over")
    }

    @Test func forgedTokensAreForgedAsTheRuleSaysAndOnlyThose() throws {
        let scenario = try Harness.scenario(#"""
        {"name": "forge-id", "description": "The id token is unsigned.", "rules": [{"match": {"endpoint": "token"}, "action": {"forgeTokens": {"idToken": "algNone"}}}]}
        """#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "forge-id", to: .server)
        let body = Harness.body(harness.send(Harness.passwordGrant()))
        let idToken = try #require(body["id_token"] as? String), accessToken = try #require(body["access_token"] as? String)
        let id = try #require(JWS.decode(idToken))
        #expect(id.algorithm == "none")
        let access = try #require(JWS.decode(accessToken))
        #expect(JWS.verifyRS256(access, key: Harness.credential.privateKey.publicKey), "the access token is left alone")
        let again = Harness.body(harness.send(Harness.passwordGrant()))
        #expect(JWS.decode(again["id_token"] as? String ?? "")?.algorithm == "RS256", "once, as every rule by default")
    }

    @Test func anUnknownForgeryIsALocatedError() {
        do {
            _ = try Harness.scenario(#"{"name": "bad", "description": "A forgery that does not exist.", "rules": [{"match": {"endpoint": "token"}, "action": {"forgeTokens": "slightlyOff"}}]}"#)
            Issue.record("an unknown forgery loaded")
        } catch {
            #expect("\(error)".contains("inline.json:1:") && "\(error)".contains("badSignature"), "\(error)")
        }
    }

    @Test func theKeyRingPublishesARetiredKeyUntilItsTime() throws {
        let first = Harness.credential
        let ring = SigningKeyRing(current: first)
        let second = try SigningCredential.generate()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        ring.roll(to: second, keepingPreviousFor: 60, now: now)
        #expect(ring.current.keyID == second.keyID)
        #expect(ring.published(at: now).map(\.keyID) == [second.keyID, first.keyID])
        #expect(ring.published(at: now.addingTimeInterval(60)).map(\.keyID) == [second.keyID])
        // A key past its grace leaves at the next roll; the one that signed until then gets the new grace.
        let third = try SigningCredential.generate()
        ring.roll(to: third, keepingPreviousFor: 100, now: now.addingTimeInterval(100))
        #expect(ring.published(at: now.addingTimeInterval(100)).map(\.keyID) == [third.keyID, second.keyID])
        ring.roll(to: first)
        #expect(ring.published(at: now).map(\.keyID) == [first.keyID], "an abrupt roll drops every earlier key")
    }
}
