import EntraHTTP
import ExchangeKernel
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

/// Resource Manager evaluates revoked sessions as recorded (2022): a CAE-capable client's token issued
/// before the revocation gets the claims challenge; another client's keeps working until it expires.
@Suite struct ResourceManagerRevocationTests {
    @Test func aRevokedSessionIsChallengedForCapableClientsOnly() throws {
        let harness = Harness()
        func mint(_ claims: String) throws -> String {
            let body = #"{"user": "\#(Harness.adele)", "audience": "https://management.core.windows.net/", "scopes": ["user_impersonation"], "claims": \#(claims)}"#
            return try #require(Harness.body(harness.send(Harness.json("POST", "/_fakeentra/tokens", body)))["token"] as? String)
        }
        let capable = try mint(#"{"xms_cc": ["cp1"]}"#), plain = try mint("{}")
        harness.clock.advance(by: 2)
        #expect(harness.send(Harness.json("POST", "/_fakeentra/users/\(Harness.adele)/revoke", "")).status.code == 200)
        func subscriptions(_ token: String) -> HTTPResponse {
            harness.send(HTTPRequest(method: "GET", target: "/subscriptions?api-version=2020-01-01",
                                     headers: ["Host": "management.azure.com", "Authorization": "Bearer \(token)"]))
        }
        let challenged = subscriptions(capable)
        #expect(challenged.status.code == 401)
        #expect((Harness.body(challenged)["error"] as? [String: Any])?["message"] as? String == "Authentication failed.")
        #expect(challenged.headers["x-ms-failure-cause"] == "gateway")
        let header = try #require(challenged.headers["WWW-Authenticate"])
        #expect(header.hasPrefix(#"Bearer authorization_uri="https://login.windows.net/", error="invalid_token", error_description="User session has been revoked", claims=""#))
        let encoded = try #require(header.split(separator: "\"").last)
        let claims = try #require(Data(base64Encoded: String(encoded)))
        #expect(String(decoding: claims, as: UTF8.self).hasPrefix(#"{"access_token":{"nbf":{"essential":true, "value":""#))
        #expect(subscriptions(plain).status.code == 200, "a client without cp1 keeps its token until it expires")
    }
}
