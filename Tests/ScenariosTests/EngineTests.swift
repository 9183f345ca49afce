import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
@testable import Scenarios

@Suite struct EngineTests {
    @Test func passwordGrantWorksThroughTheEngineWithoutScenarios() throws {
        let harness = Harness()
        let response = harness.send(Harness.passwordGrant())
        #expect(response.status.code == 200, "\(response.bodyText)")
        #expect(Harness.body(response)["refresh_token"] is String)
    }

    @Test func nthErrorOnTheRefreshGrantThenNormalService() throws {
        let scenario = try Harness.scenario("""
        {"name": "second-refresh-fails", "description": "x",
         "rules": [{"match": {"endpoint": "token", "grantType": "refresh_token", "nth": 2},
                    "action": {"oauthError": {"code": "AADSTS700082"}}}]}
        """)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: scenario.name, to: .server)
        let first = harness.send(Harness.passwordGrant())
        let rt = try #require(Harness.body(first)["refresh_token"] as? String)
        let refresh1 = harness.send(Harness.refreshGrant(rt))
        #expect(refresh1.status.code == 200, "\(refresh1.bodyText)")
        let rt2 = try #require(Harness.body(refresh1)["refresh_token"] as? String)
        let refresh2 = harness.send(Harness.refreshGrant(rt2))
        #expect(refresh2.status.code == 400)
        let error = Harness.body(refresh2)
        #expect(error["error"] as? String == "invalid_grant")
        #expect(error["error_codes"] as? [Int] == [700082])
        #expect((error["error_description"] as? String)?.hasPrefix("AADSTS700082: The refresh token has expired due to inactivity.") == true)
        let refresh3 = harness.send(Harness.refreshGrant(rt2))
        #expect(refresh3.status.code == 200, "\(refresh3.bodyText)")
    }
}
