import ExchangeKernel
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
import Synchronization
@testable import Scenarios

/// Bindings keep their worlds apart: counters, tokens, clocks and keys never leak between them.
@Suite struct BindingTests {
    static let counting = try! Harness.scenario(#"""
    {"name": "counting", "description": "every token request is counted and slowed by 1 ms",
     "rules": [{"match": {"endpoint": "token"}, "action": {"delay": 1}, "times": "always"}]}
    """#)
    static let blocking = try! Harness.scenario(#"""
    {"name": "blocking", "description": "the first 25 token requests are blocked by Conditional Access",
     "directory": {"users": [{"userPrincipalName": "isaiah.langer@contoso.onmicrosoft.com", "displayName": "Isaiah Langer"}]},
     "rules": [{"match": {"endpoint": "token"}, "action": {"oauthError": {"code": "AADSTS53003"}}, "times": 25},
               {"match": {"endpoint": "graph"}, "action": {"advanceClock": 30}, "times": "always"}]}
    """#)

    @Test func twoClientBindingsUnderConcurrentLoadKeepSeparateCountersAndState() async throws {
        let harness = Harness(scenarios: [Self.counting, Self.blocking])
        let a = try harness.engine.bind(scenario: "counting", to: .client(id: Harness.nativeApp))
        let b = try harness.engine.bind(scenario: "blocking", to: .client(id: Harness.otherApp))
        let statuses = await withTaskGroup(of: (String, Int).self) { group in
            for i in 0..<100 {
                let client = i % 2 == 0 ? Harness.nativeApp : Harness.otherApp
                group.addTask { (client, harness.send(Harness.passwordGrant(client: client)).status.code) }
            }
            var result: [String: [Int]] = [:]
            for await (client, status) in group { result[client, default: []].append(status) }
            return result
        }
        #expect(statuses[Harness.nativeApp]?.allSatisfy { $0 == 200 } == true)
        #expect(statuses[Harness.otherApp]?.filter { $0 == 400 }.count == 25)
        #expect(statuses[Harness.otherApp]?.filter { $0 == 200 }.count == 25)
        let worldA = try #require(harness.engine.world(binding: a.id)), worldB = try #require(harness.engine.world(binding: b.id))
        #expect(worldA.counters.map(\.matched) == [50])
        #expect(worldA.counters.map(\.fired) == [50])
        #expect(worldB.counters.map(\.fired) == [25, 0])
        #expect(worldA.service.liveRefreshTokenCount == 50)
        #expect(worldB.service.liveRefreshTokenCount == 25)
        #expect(harness.service.liveRefreshTokenCount == 0, "the default world issued nothing")
        #expect(worldB.service.currentDirectory.user(signInName: "isaiah.langer@contoso.onmicrosoft.com") != nil)
        #expect(worldA.service.currentDirectory.user(signInName: "isaiah.langer@contoso.onmicrosoft.com") == nil, "scenario users stay in their world")
    }

    @Test func tokensFollowTheWorldThatIssuedThem() throws {
        let harness = Harness(scenarios: [Self.blocking])
        let binding = try harness.engine.bind(scenario: "blocking", to: .user(Harness.alex))
        let world = try #require(harness.engine.world(binding: binding.id))
        for _ in 0..<25 { #expect(harness.send(Harness.passwordGrant(user: Harness.alex)).status.code == 400) }
        let tokens = Harness.body(harness.send(Harness.passwordGrant(user: Harness.alex)))
        let rt = try #require(tokens["refresh_token"] as? String)
        // The refresh request names no user: the refresh token itself leads to the binding's world.
        #expect(harness.send(Harness.refreshGrant(rt)).status.code == 200)
        #expect(world.counters[0].matched == 27)
        // So does the access token on a Graph call.
        let accessToken = try #require(tokens["access_token"] as? String)
        _ = harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(accessToken)"]))
        #expect(world.elapsed == 30)
        #expect(harness.service.clock.now() == Harness.start)
        // Adele is not bound: her requests go to the default world.
        #expect(harness.send(Harness.passwordGrant(user: Harness.adele)).status.code == 200)
        #expect(world.counters[0].matched == 27)
    }

    @Test func resetRestoresTheStartState() throws {
        let harness = Harness(scenarios: [Self.blocking])
        let binding = try harness.engine.bind(scenario: "blocking", to: .server)
        for _ in 0..<26 { _ = harness.send(Harness.passwordGrant()) }
        _ = harness.send(Harness.get("/v1.0/me"))
        let before = try #require(harness.engine.world(binding: binding.id))
        #expect(before.counters[0].fired == 25)
        #expect(before.elapsed == 30)
        try harness.engine.reset()
        let after = try #require(harness.engine.world(binding: binding.id))
        #expect(after.counters.map(\.matched) == [0, 0])
        #expect(after.elapsed == 0)
        #expect(after.service.liveRefreshTokenCount == 0)
        #expect(harness.send(Harness.passwordGrant()).status.code == 400, "the scenario starts over")
        #expect(throws: ScenarioEngineError.self) { try harness.engine.reset(binding: "b99") }
    }

    @Test func tenantAliasKeepsTheClientOnTheAlias() throws {
        let harness = Harness(scenarios: [Self.counting])
        let binding = try harness.engine.bind(scenario: "counting", to: .tenantAlias(alias: "scenario-slow", tenant: "contoso.onmicrosoft.com"))
        let metadata = Harness.body(harness.send(Harness.get("/scenario-slow/v2.0/.well-known/openid-configuration")))
        #expect(metadata["token_endpoint"] as? String == "https://\(Harness.host)/scenario-slow/oauth2/v2.0/token")
        #expect(metadata["authorization_endpoint"] as? String == "https://\(Harness.host)/scenario-slow/oauth2/v2.0/authorize")
        #expect(metadata["issuer"] as? String == "https://\(Harness.host)/\(Directory.contosoTenantID)/v2.0", "the issuer names the tenant, as tokens' iss does")
        let response = harness.send(Harness.passwordGrant(tenant: "scenario-slow"))
        #expect(response.status.code == 200, "\(response.bodyText)")
        #expect(Harness.claims(Harness.body(response)["id_token"] as? String)["tid"] as? String == Directory.contosoTenantID)
        #expect(harness.engine.world(binding: binding.id)?.counters[0].fired == 1)
        // Without the alias, the default world answers and the alias is unknown there.
        #expect(harness.send(Harness.passwordGrant(tenant: "contoso.onmicrosoft.com")).directives.delay == nil)
        #expect(harness.send(Harness.get("/scenario-slow-x/v2.0/.well-known/openid-configuration")).status.code == 400)
    }

    @Test func browserPagesStayInTheWorldTheirAuthorizeWentTo() throws {
        var options = IdentityOptions()
        options.autoLogin = false
        let scenario = try Harness.scenario(#"{"name": "pages", "description": "d", "rules": [{"match": {"endpoint": "authorize"}, "action": {"delay": 1}, "times": "always"}]}"#)
        let harness = Harness(scenarios: [scenario], identityOptions: options)
        let binding = try harness.engine.bind(scenario: "pages", to: .client(id: Harness.nativeApp))
        let page = harness.send(Harness.authorize())
        #expect(page.status.code == 200)
        let cookies = page.headers.values(for: "Set-Cookie")
        #expect(cookies.contains { $0.hasPrefix("fakeentra_binding=\(binding.id);") })
        // The sign-in form posts back without a client id; its flow id (ctx) leads to the binding.
        let ctx = try #require(page.bodyText.range(of: "name=\"ctx\" value=\"[^\"]+\"", options: .regularExpression).map { String(page.bodyText[$0].dropFirst(18).dropLast()) })
        let posted = harness.send(Harness.post("/organizations/oauth2/v2.0/authorize", [("ctx", ctx), ("action", "signin"), ("login", Harness.adele), ("passwd", Directory.demoPassword)]))
        #expect(posted.status.code != 400, "\(posted.bodyText.prefix(300))")
        #expect(harness.engine.world(binding: binding.id)?.counters[0].matched == 2)
        // A page with only the cookie also goes there.
        _ = harness.send(Harness.post("/organizations/oauth2/v2.0/authorize", [("action", "noop")], headers: ["Cookie": "fakeentra_binding=\(binding.id)"]))
        #expect(harness.engine.world(binding: binding.id)?.counters[0].matched == 3)
    }

    @Test func bindingConflictsAndUnknownScenariosAreRefused() throws {
        let harness = Harness(scenarios: [Self.counting])
        try harness.engine.bind(scenario: "counting", to: .client(id: "A"))
        #expect(throws: ScenarioEngineError.self) { try harness.engine.bind(scenario: "counting", to: .client(id: "a")) }
        #expect(throws: ScenarioEngineError.self) { try harness.engine.bind(scenario: "missing", to: .server) }
        #expect(throws: ScenarioEngineError.self) { try harness.engine.bind(scenario: "counting", to: .tenantAlias(alias: "x", tenant: "nowhere.example")) }
        #expect(harness.engine.unbind(id: "b1"))
        #expect(!harness.engine.unbind(id: "b1"))
    }
}

@Suite struct DeviceFlowBindingTests {
    /// The device code flow crosses three requests with different facts; all reach the client's binding.
    @Test func deviceCodeFlowStaysInTheClientsWorld() throws {
        let scenario = try Harness.scenario(#"""
        {"name": "device", "description": "d", "rules": [
          {"match": {"endpoint": "devicelogin", "clientId": "\#(Harness.nativeApp)"}, "action": {"delay": 2}, "times": "always"},
          {"match": {"endpoint": "token", "grantType": "device_code", "nth": 1}, "action": {"oauthError": {"error": "authorization_pending", "code": "AADSTS70016", "message": "OAuth 2.0 device flow error. Authorization is pending. Continue polling."}}}]}
        """#)
        let harness = Harness(scenarios: [scenario])
        let binding = try harness.engine.bind(scenario: "device", to: .client(id: Harness.nativeApp))
        let start = Harness.body(harness.send(Harness.post("/organizations/oauth2/v2.0/devicecode", [("client_id", Harness.nativeApp), ("scope", "User.Read offline_access")])))
        let userCode = try #require(start["user_code"] as? String, "\(start)")
        let deviceCode = try #require(start["device_code"] as? String)
        let world = try #require(harness.engine.world(binding: binding.id))
        #expect(world.service.issuedAny(of: [deviceCode]))
        let page = harness.send(Harness.post("/devicelogin", [("otc", userCode.lowercased())]))
        #expect(page.directives.delay == .milliseconds(2), "the typed code leads to the binding and names the client")
        let poll = Harness.body(harness.send(Harness.post("/organizations/oauth2/v2.0/token", [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("client_id", Harness.nativeApp), ("device_code", deviceCode)])))
        #expect(poll["error"] as? String == "authorization_pending")
        #expect(poll["error_codes"] as? [Int] == [70016])
        #expect(world.counters.map(\.fired) == [1, 1])
    }
}

@Suite struct DefaultWorldAffinityTests {
    @Test func tokensIssuedBeforeABindingStayInTheDefaultWorld() throws {
        let harness = Harness(scenarios: [BindingTests.blocking])
        let rt = try #require(Harness.body(harness.send(Harness.passwordGrant()))["refresh_token"] as? String)
        let binding = try harness.engine.bind(scenario: "blocking", to: .client(id: Harness.nativeApp))
        #expect(harness.send(Harness.refreshGrant(rt)).status.code == 200, "the default world issued it and answers it")
        #expect(harness.send(Harness.passwordGrant()).status.code == 400, "new sign-ins of the client reach the binding")
        #expect(harness.engine.world(binding: binding.id)?.counters[0].matched == 1)
    }

    @Test func aStaleCookieDoesNotPullADefaultWorldFlowIntoABinding() throws {
        var options = IdentityOptions()
        options.autoLogin = false
        let harness = Harness(scenarios: [BindingTests.counting], identityOptions: options)
        let binding = try harness.engine.bind(scenario: "counting", to: .client(id: Harness.otherApp))
        let page = harness.send(Harness.authorize())
        let ctx = try #require(page.bodyText.range(of: "name=\"ctx\" value=\"[^\"]+\"", options: .regularExpression).map { String(page.bodyText[$0].dropFirst(18).dropLast()) })
        let posted = harness.send(Harness.post("/organizations/oauth2/v2.0/authorize", [("ctx", ctx), ("action", "signin"), ("login", Harness.adele), ("passwd", Directory.demoPassword)],
                                               headers: ["Cookie": "fakeentra_binding=\(binding.id)"]))
        #expect(!posted.bodyText.contains("AADSTS"), "the flow continued in the default world: \(posted.bodyText.prefix(200))")
        #expect(harness.engine.world(binding: binding.id)?.counters[0].matched == 0)
    }
}
