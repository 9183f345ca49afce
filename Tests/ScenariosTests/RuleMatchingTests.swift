import EntraHTTP
import Foundation
import ExchangeKernel
import IdentityPlatform
import Testing
@testable import Scenarios

/// The rule book alone: conditions, counts, firing limits and how rules combine.
@Suite struct RuleMatchingTests {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    func book(_ rulesJSON: String) throws -> RuleBook {
        RuleBook(rules: try Harness.scenario(#"{"name": "t", "description": "t", "rules": "# + rulesJSON + "}").rules)
    }

    func facts(_ request: HTTPRequest) -> RequestFacts { RequestFacts.classify(request, routes: Harness.routes) }

    static let token = Harness.passwordGrant()
    static let refresh = Harness.refreshGrant("rt")

    @Test func nthFiresOnlyOnTheNthMatchingRequest() throws {
        var book = try book(#"[{"match": {"endpoint": "token", "nth": 3}, "action": {"serviceError": {"status": 503}}}]"#)
        let fired = (1...5).map { _ in book.evaluate(facts(Self.token), now: Self.start, start: Self.start).answer != nil }
        #expect(fired == [false, false, true, false, false])
        #expect(book.matchCounts == [5])
        #expect(book.firings == [1])
    }

    @Test func afterFiresOnEveryLaterRequestWithinItsTimes() throws {
        var always = try book(#"[{"match": {"endpoint": "token", "after": 2}, "action": {"serviceError": {"status": 503}}, "times": "always"}]"#)
        #expect((1...5).map { _ in always.evaluate(facts(Self.token), now: Self.start, start: Self.start).answer != nil } == [false, false, true, true, true])
        var twice = try book(#"[{"match": {"endpoint": "token", "after": 1}, "action": {"serviceError": {"status": 503}}, "times": 2}]"#)
        #expect((1...5).map { _ in twice.evaluate(facts(Self.token), now: Self.start, start: Self.start).answer != nil } == [false, true, true, false, false])
    }

    @Test func timesDefaultsToOnce() throws {
        var book = try book(#"[{"match": {"endpoint": "token"}, "action": {"serviceError": {"status": 503}}}]"#)
        #expect((1...3).map { _ in book.evaluate(facts(Self.token), now: Self.start, start: Self.start).answer != nil } == [true, false, false])
    }

    @Test func windowsCountVirtualSecondsSinceTheStartOrAbsoluteInstants() throws {
        var relative = try book(#"[{"match": {"window": {"from": 60, "until": 120}}, "action": {"delay": 5}, "times": "always"}]"#)
        let offsets: [TimeInterval] = [0, 59, 60, 119, 120]
        #expect(offsets.map { relative.evaluate(facts(Self.token), now: Self.start + $0, start: Self.start).delayMilliseconds } == [0, 0, 5, 5, 0])
        var absolute = try book(#"[{"match": {"window": {"from": "2030-03-17T17:46:40Z"}}, "action": {"delay": 1}, "times": "always"}]"#)
        #expect(absolute.evaluate(facts(Self.token), now: Self.start - 1, start: Self.start).delayMilliseconds == 0)
        #expect(absolute.evaluate(facts(Self.token), now: Self.start, start: Self.start).delayMilliseconds == 1)
    }

    @Test func everyGivenConditionMustHold() throws {
        let rule = #"[{"match": {"endpoint": "token", "grantType": "refresh_token", "clientId": "\#(Harness.nativeApp)", "scopes": ["user.read"], "parameters": {"client_info": "1", "claims": {"present": false}}, "headers": {"Host": {"regex": "^login\\."}}}, "action": {"delay": 1}, "times": "always"}]"#
        var book = try book(rule)
        #expect(book.evaluate(facts(Self.refresh), now: Self.start, start: Self.start).delayMilliseconds == 1)
        #expect(book.evaluate(facts(Self.token), now: Self.start, start: Self.start).delayMilliseconds == 0, "wrong grant type")
        #expect(book.evaluate(facts(Harness.refreshGrant("rt", client: Harness.otherApp)), now: Self.start, start: Self.start).delayMilliseconds == 0, "wrong client")
        #expect(book.evaluate(facts(Harness.refreshGrant("rt", scope: "Mail.Read")), now: Self.start, start: Self.start).delayMilliseconds == 0, "scope missing")
        var withClaims = FormParameters(decoding: String(decoding: Self.refresh.body, as: UTF8.self))
        withClaims.append("claims", "{}")
        let claimsRequest = Harness.post("/organizations/oauth2/v2.0/token", withClaims.pairs.map { ($0.name, $0.value) })
        #expect(book.evaluate(facts(claimsRequest), now: Self.start, start: Self.start).delayMilliseconds == 0, "claims present")
    }

    @Test func usersAreMatchedByAnyOfTheirNamesOnceResolved() throws {
        var book = try book(#"[{"match": {"user": "6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51"}, "action": {"delay": 1}, "times": "always"}]"#)
        var hinted = facts(Harness.authorize(user: "Adele.Vance@contoso.onmicrosoft.com"))
        #expect(book.evaluate(hinted, now: Self.start, start: Self.start).delayMilliseconds == 0, "not resolved yet: the hint is a UPN")
        hinted.resolve(GrantFacts(), directory: .embeddedDefault)
        #expect(book.evaluate(hinted, now: Self.start, start: Self.start).delayMilliseconds == 1)
        var other = facts(Harness.authorize(user: Harness.alex))
        other.resolve(GrantFacts(), directory: .embeddedDefault)
        #expect(book.evaluate(other, now: Self.start, start: Self.start).delayMilliseconds == 0)
    }

    @Test func tenantsMatchBySegmentIdOrDomain() throws {
        var book = try book(#"[{"match": {"tenant": "contoso.com"}, "action": {"delay": 1}, "times": "always"}]"#)
        var byID = facts(Harness.passwordGrant(tenant: Directory.contosoTenantID))
        byID.resolve(GrantFacts(), directory: .embeddedDefault)
        #expect(book.evaluate(byID, now: Self.start, start: Self.start).delayMilliseconds == 1)
        var common = facts(Harness.passwordGrant(tenant: "common"))
        common.resolve(GrantFacts(), directory: .embeddedDefault)
        #expect(book.evaluate(common, now: Self.start, start: Self.start).delayMilliseconds == 0)
    }

    @Test func firstAnswerWinsAndDirectivesAccumulate() throws {
        var book = try book(#"""
        [{"match": {"endpoint": "token"}, "action": [{"declineScopes": ["Mail.Read"]}, {"delay": 10}], "times": "always"},
         {"match": {"endpoint": "token"}, "action": {"oauthError": {"code": "AADSTS50076"}}},
         {"match": {"endpoint": "token"}, "action": {"serviceError": {"status": 503}}},
         {"match": {"endpoint": "token"}, "action": {"requireMFA": true}, "times": "always"}]
        """#)
        let first = book.evaluate(facts(Self.token), now: Self.start, start: Self.start)
        #expect(first.firedRules == [0, 1])
        #expect(first.directives.declinedScopes == ["Mail.Read"])
        #expect(first.delayMilliseconds == 10)
        guard case .oauthError(let spec)? = first.answer else { Issue.record("\(String(describing: first.answer))"); return }
        #expect(spec.code == 50076)
        #expect(book.matchCounts == [1, 1, 1, 1], "later rules still count the request")
        #expect(book.firings == [1, 1, 0, 0], "but do not fire")
        let second = book.evaluate(facts(Self.token), now: Self.start, start: Self.start)
        #expect(second.firedRules == [0, 2])
        let third = book.evaluate(facts(Self.token), now: Self.start, start: Self.start)
        #expect(third.firedRules == [0, 3])
        #expect(third.answer == nil)
        #expect(third.directives.requireMFA)
    }

    @Test func endpointKindsAreRecognised() {
        let cases: [(HTTPRequest, EndpointKind)] = [
            (Harness.get("/common/discovery/instance?api-version=1.1"), .discovery),
            (Harness.get("/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration"), .metadata),
            (Harness.get("/common/discovery/v2.0/keys"), .keys),
            (Harness.authorize(), .authorize),
            (Self.token, .token),
            (Harness.post("/organizations/oauth2/v2.0/devicecode", [("client_id", "x")]), .devicecode),
            (Harness.get("/common/oauth2/v2.0/logout"), .logout),
            (Harness.get("/common/userrealm/adele@contoso.com?api-version=1.0"), .userrealm),
            (Harness.get("/v1.0/me/events"), .graph),
            (Harness.get("/oidc/userinfo"), .graph),
            (HTTPRequest(method: "GET", target: "/me", headers: ["Host": "graph.microsoft.com"]), .graph),
            (Harness.get("/fabrikamb2c.onmicrosoft.com/B2C_1_signin/v2.0/.well-known/openid-configuration"), .metadata),
            (Harness.get("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signin/oauth2/v2.0/authorize"), .authorize),
        ]
        // As the application routes them: fabrikamb2c is the B2C tenant.
        let routes = Harness.routes
        for (request, kind) in cases { #expect(RequestFacts.classify(request, routes: routes).kind == kind, "\(request.target)") }
        let b2c = RequestFacts.classify(Harness.get("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signin/oauth2/v2.0/authorize"), routes: routes)
        #expect(b2c.isB2C && b2c.policy == "B2C_1_signin" && b2c.tenantSegment == "fabrikamb2c.onmicrosoft.com")
        let query = RequestFacts.classify(Harness.get("/fabrikamb2c.onmicrosoft.com/oauth2/v2.0/authorize?p=B2C_1A_signup_signin"), routes: routes)
        #expect(query.isB2C && query.policy == "B2C_1A_signup_signin" && query.kind == .authorize)
    }

    @Test func graphResourcesAreNamedAsTheGraphModuleNamesThem() throws {
        var book = try book(#"[{"match": {"graphResource": ["events", "calendarView"]}, "action": {"delay": 1}, "times": "always"}]"#)
        let names = ["/v1.0/me/events", "/beta/users/adele@contoso.com/calendarView", "/v1.0/me", "/v1.0/me/events/AAMk="].map {
            book.evaluate(facts(Harness.get($0)), now: Self.start, start: Self.start).delayMilliseconds
        }
        #expect(names == [1, 1, 0, 0])
        #expect(facts(Harness.get("/v1.0/users/x/events/abc")).graphResource == "event")
    }

    @Test func bearerClaimsNameTheClientAndUserOfGraphCalls() throws {
        let harness = Harness()
        let token = try #require(Harness.body(harness.send(Harness.passwordGrant()))["access_token"] as? String)
        let facts = RequestFacts.classify(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(token)"]), routes: Harness.routes)
        #expect(facts.clientID == Harness.nativeApp)
        #expect(facts.userNames.contains("6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51"))
        #expect(facts.scopes.contains("user.read"))
    }
}
