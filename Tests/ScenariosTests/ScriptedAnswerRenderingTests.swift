import EntraHTTP
import Foundation
import Testing
@testable import Scenarios

/// A rule's answer is rendered by the service the request is for, in that service's format, and only a
/// service that gives such an answer is answered by it.
@Suite struct ScriptedAnswerRenderingTests {
    private func harness(rules: String) throws -> Harness {
        let scenario = try Harness.scenario(#"{"name": "scripted", "description": "x", "rules": \#(rules)}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: scenario.name, to: .server)
        return harness
    }

    @Test func resourceManagerThrottlesInItsOwnCodes() throws {
        let harness = try harness(rules: #"[{"match": {"endpoint": "arm"}, "action": {"serviceError": {"status": 429, "retryAfter": 3}}}]"#)
        let request = HTTPRequest(method: "GET", target: "/subscriptions?api-version=2022-12-01",
                                  headers: ["Host": "management.azure.com", "x-ms-client-request-id": "c-1"])
        let response = harness.send(request)
        #expect(response.status.code == 429)
        #expect(response.headers["Retry-After"] == "3")
        #expect(response.headers["x-ms-correlation-request-id"] == "c-1")
        #expect((Harness.body(response)["error"] as? [String: Any])?["code"] as? String == "SubscriptionRequestsThrottled")
        #expect(response.headers["x-ms-ests-server"] == nil, "not Entra's front end")
    }

    @Test func graphAnswersReachOnlyGraphAndOAuthErrorsOnlyTheIdentityPlatform() throws {
        let harness = try harness(rules: """
            [{"action": {"graphError": {"status": 403, "code": "Authorization_RequestDenied"}}, "times": "always"},
             {"action": {"oauthError": {"code": "AADSTS50076"}}, "times": "always"}]
            """)
        // The token endpoint skips the Graph rule and meets the OAuth error.
        let refused = harness.send(Harness.passwordGrant())
        #expect(refused.status.code == 400)
        #expect(Harness.body(refused)["error_codes"] as? [Int] == [50076])
        // Graph skips the OAuth rule and answers its own error once the token is valid.
        let minted = harness.send(Harness.json("POST", "/_fakeentra/tokens", #"{"user": "\#(Harness.adele)", "scopes": ["User.Read"]}"#))
        let token = try #require(Harness.body(minted)["token"] as? String, "\(minted.bodyText)")
        let denied = harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(token)"]))
        #expect(denied.status.code == 403)
        #expect((Harness.body(denied)["error"] as? [String: Any])?["message"] as? String == "Insufficient privileges to complete the operation.")
        // Without a valid token Graph refuses the token first, as it would.
        let anonymous = harness.send(Harness.get("/v1.0/me"))
        #expect(anonymous.status.code == 401)
        #expect((Harness.body(anonymous)["error"] as? [String: Any])?["code"] as? String == "InvalidAuthenticationToken")
    }
}
