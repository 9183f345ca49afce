import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
import LocatedJSON
@testable import Scenarios

/// What the conformance catalogue added to the engine: Retry-After as an HTTP-date, `refresh_in`
/// in token responses, a forged redirect `state`, and the answering world named in each receipt.
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
        let responder = try #require(harness.responder as? any ExchangeResponder)
        func world(_ request: HTTPRequest) -> String? {
            let connection = RequestContext(remoteAddress: "127.0.0.1", isSecure: true, localPort: 443)
            return responder.answer(request, context: ExchangeContext(request: request, connection: connection, routes: Harness.routes)).receipt.world
        }
        #expect(world(Harness.passwordGrant(client: Harness.otherApp)) == binding.id)
        #expect(world(Harness.passwordGrant()) == nil, "the default world is not named")
    }
}
