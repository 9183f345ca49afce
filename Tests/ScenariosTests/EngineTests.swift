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
        // The token was just issued, but the rule says it outlived its window: the sentence says so, never "00:00:00".
        #expect((error["error_description"] as? String)?.contains("was inactive for 90.00:00:00.") == true, "\(refresh2.bodyText)")
        let refresh3 = harness.send(Harness.refreshGrant(rt2))
        #expect(refresh3.status.code == 200, "\(refresh3.bodyText)")
    }
}

@Suite struct RobustnessTests {
    /// Odd requests never crash the engine and get an answer in some endpoint's format.
    @Test func oddRequestsGetAnswers() throws {
        let scenario = try Harness.scenario(#"{"name": "all", "description": "d", "rules": [{"match": {"user": "x@y.z", "tenant": "t", "policy": "B2C_1_x", "scopes": ["a"]}, "action": {"delay": 1}}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "all", to: .server)
        let targets = ["/", "//", "/tfp", "/tfp/x", "/x/B2C_1_y", "/%ZZ/oauth2/v2.0/token", "/v1.0", "/beta/me?$select=%", "/common/userrealm/",
                       "/_fakeentra", "/_fakeentra/bindings/", "/_fakeentra/users/%2F/revoke", "/organizations/oauth2/v2.0/authorize?p=B2C_1_a&login_hint=%"]
        for target in targets {
            for method in ["GET", "POST", "DELETE", "PATCH"] {
                var request = Harness.json(method, target, "{\"scenario\": 1, \"seconds\": \"x\"")
                request.headers.set("Authorization", "Bearer not.a.jwt")
                request.headers.set("Cookie", "fakeentra_binding=b1; fakeentra_binding=zz")
                let response = harness.send(request)
                #expect(response.status.code >= 200 && response.status.code < 600, "\(method) \(target)")
            }
        }
        let garbage = HTTPRequest(method: "POST", target: "/common/oauth2/v2.0/token", headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic !!!"], body: [0xFF, 0xFE, 0x26, 0x3D])
        #expect(harness.send(garbage).status.code == 400)
    }

    @Test func summariesAreTheFirstSentence() throws {
        let scenario = try Harness.scenario(#"{"name": "s", "description": "The service fails. Then it works.", "rules": []}"#)
        #expect(scenario.summary == "The service fails.")
    }
}

@Suite struct PageFlowTests {
    /// A page posted back continues its /authorize: rules see that request's client, scopes and
    /// parameters, and an error redirect goes to its redirect_uri with its state.
    @Test func pagePostsCarryTheirAuthorizeRequestsFacts() throws {
        var options = IdentityOptions()
        options.autoLogin = false
        let scenario = try Harness.scenario(#"""
        {"name": "decline-on-post", "description": "d",
         "rules": [{"match": {"endpoint": "authorize", "method": "POST", "clientId": "\#(Harness.nativeApp)", "scopes": ["User.Read"], "parameters": {"state": "s-1"}},
                    "action": {"oauthError": {"code": "AADSTS65004"}}}]}
        """#)
        let harness = Harness(scenarios: [scenario], identityOptions: options)
        try harness.engine.bind(scenario: scenario.name, to: .server)
        let page = harness.send(Harness.authorize())
        #expect(page.status.code == 200)
        let ctx = try #require(page.bodyText.range(of: "name=\"ctx\" value=\"[^\"]+\"", options: .regularExpression).map { String(page.bodyText[$0].dropFirst(18).dropLast()) })
        let posted = harness.send(Harness.post("/organizations/oauth2/v2.0/authorize", [("ctx", ctx), ("action", "signin"), ("login", Harness.adele), ("passwd", Directory.demoPassword)]))
        #expect(posted.status.code == 302)
        #expect(posted.headers["Location"]?.hasPrefix(Harness.redirect + "?error=access_denied") == true)
        #expect(Harness.redirectParameters(posted)["state"] == "s-1")
    }
}
