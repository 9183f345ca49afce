import EntraHTTP
import Foundation
import ExchangeKernel
import IdentityPlatform
import Testing
import LocatedJSON
@testable import Scenarios

/// What the conformance catalogue added to the engine: Retry-After as an HTTP-date, `refresh_in`
/// in token responses, a forged redirect `state`, the device flow's polling interval, another issuer
/// in discovery, and the answering world named in each receipt.
@Suite struct ConformanceExtensionTests {
    @Test func retryAfterAsHTTPDateIsThatManySecondsAheadOfTheWorldsClock() throws {
        let scenario = try Harness.scenario(#"{"name": "dated", "description": "d", "rules": [{"match": {"endpoint": "token"}, "action": {"serviceError": {"status": 429, "retryAfter": 3, "retryAfterFormat": "httpDate"}}, "times": 2}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "dated", to: .server)
        let response = harness.send(Harness.passwordGrant())
        #expect(response.status.code == 429)
        // The harness clock is frozen at 1_900_000_000 (a whole second): the date is 3 s later.
        #expect(response.headers["Retry-After"] == HTTPDate.format(secondsSince1970: 1_900_000_003))
        #expect(response.headers["Retry-After"]?.hasSuffix(" GMT") == true)
    }

    @Test func retryAfterInSecondsStaysTheDefault() throws {
        let scenario = try Harness.scenario(#"{"name": "plain", "description": "d", "rules": [{"match": {"endpoint": "token"}, "action": {"serviceError": {"status": 503, "retryAfter": 2}}}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "plain", to: .server)
        #expect(harness.send(Harness.passwordGrant()).headers["Retry-After"] == "2")
    }

    @Test func anUnknownRetryAfterFormatIsRefusedWithItsLocation() {
        let text = #"{"name": "bad", "description": "d", "rules": [{"action": {"serviceError": {"status": 429, "retryAfter": 3, "retryAfterFormat": "minutes"}}}]}"#
        guard case .failure(let problems) = ScenarioLibrary.parse(Array(text.utf8), file: "bad.json") else {
            Issue.record("accepted an unknown format")
            return
        }
        #expect(problems.description.contains("bad.json:1:"))
        #expect(problems.description.contains("retryAfterFormat"))
    }

    @Test func refreshInIsSetByTheScenario() throws {
        let scenario = try Harness.scenario(#"{"name": "soon", "description": "d", "rules": [{"match": {"endpoint": "token"}, "action": {"tokenLifetimes": {"refreshIn": 2}}, "times": "always"}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "soon", to: .server)
        let body = Harness.body(harness.send(Harness.passwordGrant()))
        #expect(body["refresh_in"] as? Int == 2)
        #expect((body["expires_in"] as? Int ?? 0) > 2, "the token itself stays valid")
    }

    @Test func withoutTheDirectiveOnlyLongTokensCarryRefreshIn() {
        let harness = Harness()
        #expect(Harness.body(harness.send(Harness.passwordGrant()))["refresh_in"] == nil)
    }

    @Test func redirectStateReplacesTheClientsState() throws {
        let scenario = try Harness.scenario(#"{"name": "forged", "description": "d", "rules": [{"match": {"endpoint": "authorize"}, "action": {"redirectState": "forged-state"}}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "forged", to: .server)
        let forged = Harness.redirectParameters(harness.send(Harness.authorize()))
        #expect(forged["state"] == "forged-state")
        #expect(forged["code"] != nil)
        let honest = Harness.redirectParameters(harness.send(Harness.authorize()))
        #expect(honest["state"] == "s-1", "the rule fired once")
    }

    @Test func receiptsNameTheBindingWorldThatAnsweredThem() throws {
        let scenario = try Harness.scenario(#"{"name": "bound", "description": "d", "rules": []}"#)
        let harness = Harness(scenarios: [scenario])
        let binding = try harness.engine.bind(scenario: "bound", to: .client(id: Harness.otherApp))
        func world(_ request: HTTPRequest) -> String? {
            let connection = ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 443)
            let context = ExchangeContext(connection: connection, route: Harness.routes.route(request))
            _ = harness.engine.answer(request, context: context)
            return context.receipt.current.world
        }
        #expect(world(Harness.passwordGrant(client: Harness.otherApp)) == binding.id)
        #expect(world(Harness.passwordGrant()) == nil, "the default world is not named")
    }

    @Test func deviceCodeIntervalIsTheAnswersIntervalAndTheTokenEndpointEnforcesIt() throws {
        let scenario = try Harness.scenario(#"{"name": "quick", "description": "d", "rules": [{"match": {"endpoint": "devicecode"}, "action": {"deviceCodeInterval": 1}, "times": "always"}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "quick", to: .client(id: Harness.nativeApp))
        let start = Harness.body(harness.send(Harness.post("/organizations/oauth2/v2.0/devicecode", [("client_id", Harness.nativeApp), ("scope", "User.Read offline_access")])))
        #expect(start["interval"] as? Int == 1)
        let deviceCode = try #require(start["device_code"] as? String)
        func poll() -> String? {
            Harness.body(harness.send(Harness.post("/organizations/oauth2/v2.0/token", [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("client_id", Harness.nativeApp), ("device_code", deviceCode)])))["error"] as? String
        }
        #expect(poll() == "authorization_pending")
        #expect(poll() == "slow_down", "a poll within the interval (the harness clock is frozen)")
        let unbound = Harness.body(Harness().send(Harness.post("/organizations/oauth2/v2.0/devicecode", [("client_id", Harness.nativeApp), ("scope", "User.Read")])))
        #expect(unbound["interval"] as? Int == 5, "the service's own interval without the directive")
    }

    @Test func aScenarioCanAnswerSlowDownToADevicePoll() throws {
        let scenario = try Harness.scenario(#"{"name": "slow", "description": "d", "rules": [{"match": {"endpoint": "token", "grantType": "device_code", "nth": 1}, "action": {"oauthError": {"error": "slow_down", "message": "Polling too frequently."}}}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "slow", to: .client(id: Harness.nativeApp))
        let start = Harness.body(harness.send(Harness.post("/organizations/oauth2/v2.0/devicecode", [("client_id", Harness.nativeApp), ("scope", "User.Read")])))
        let deviceCode = try #require(start["device_code"] as? String)
        let response = harness.send(Harness.post("/organizations/oauth2/v2.0/token", [("grant_type", "device_code"), ("client_id", Harness.nativeApp), ("device_code", deviceCode)]))
        #expect(response.status.code == 400)
        #expect(Harness.body(response)["error"] as? String == "slow_down")
    }

    @Test func discoveryIssuerIsServedOnlyToTheBindingsAuthority() throws {
        let issuer = "https://issuer.example.net/4e9f1c6a/v2.0"
        let scenario = try Harness.scenario(#"{"name": "other-issuer", "description": "d", "rules": [{"match": {"endpoint": "metadata"}, "action": {"discoveryIssuer": "\#(issuer)"}, "times": "always"}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "other-issuer", to: .tenantAlias(alias: "conformance-x1", tenant: "contoso.onmicrosoft.com"))
        let served = Harness.body(harness.send(Harness.get("/conformance-x1/v2.0/.well-known/openid-configuration")))
        #expect(served["issuer"] as? String == issuer)
        #expect((served["token_endpoint"] as? String)?.contains("/conformance-x1/oauth2/v2.0/token") == true, "the rest of the document is the authority's")
        let keys = Harness.body(harness.send(Harness.get("/conformance-x1/discovery/v2.0/keys")))
        #expect(!(String(describing: keys).contains("issuer.example.net")), "keys keep the real issuer")
        let elsewhere = Harness.body(harness.send(Harness.get("/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration")))
        #expect((elsewhere["issuer"] as? String)?.hasSuffix("/v2.0") == true)
        #expect(elsewhere["issuer"] as? String != issuer, "other authorities keep theirs")
    }

    @Test func aDiscoveryIssuerThatIsNotTextIsRefusedWithItsLocation() {
        let text = #"{"name": "bad", "description": "d", "rules": [{"action": {"discoveryIssuer": 42, "deviceCodeInterval": 0}}]}"#
        guard case .failure(let problems) = ScenarioLibrary.parse(Array(text.utf8), file: "bad.json") else {
            Issue.record("accepted a number as issuer and a zero interval")
            return
        }
        #expect(problems.description.contains("bad.json:1:"))
        #expect(problems.description.contains("discoveryIssuer"))
        #expect(problems.description.contains("deviceCodeInterval"))
    }
}
