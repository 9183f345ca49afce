import EntraCrypto
import ExchangeKernel
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
@testable import Scenarios

@Suite struct ControlAPITests {
    func call(_ harness: Harness, _ method: String, _ path: String, _ body: String = "", from address: String = "127.0.0.1", headers: HTTPHeaders = [:]) -> (status: Int, json: [String: Any], response: HTTPResponse) {
        let response = harness.send(Harness.json(method, path, body, headers: headers), from: address)
        return (response.status.code, Harness.body(response), response)
    }

    static let slow = #"{"name": "slow-everything", "description": "every request waits 5 ms", "rules": [{"action": {"delay": 5}, "times": "always"}]}"#

    @Test func loopbackOnlyWithoutASecret() {
        let harness = Harness()
        #expect(call(harness, "GET", "/_fakeentra/scenarios").status == 200)
        let remote = call(harness, "GET", "/_fakeentra/scenarios", from: "10.1.2.3")
        #expect(remote.status == 403)
        #expect((remote.json["error"] as? [String: Any])?["code"] as? String == "forbidden")
    }

    @Test func bearerSecretRequiredFromEveryAddressWhenConfigured() {
        let harness = Harness(options: ScenarioEngineOptions(controlSecret: "s3cret", frozenClocks: true))
        #expect(call(harness, "GET", "/_fakeentra/scenarios").status == 401)
        #expect(call(harness, "GET", "/_fakeentra/scenarios", headers: ["Authorization": "Bearer wrong"]).status == 401)
        #expect(call(harness, "GET", "/_fakeentra/scenarios", from: "10.1.2.3", headers: ["Authorization": "Bearer s3cret"]).status == 200)
        #expect(call(harness, "GET", "/_fakeentra/journal", from: "10.1.2.3").status == 401, "the whole namespace is guarded")
    }

    @Test func badScenarioFileIsRejectedWholeWithTheReport() {
        let harness = Harness()
        let bad = "{\n  \"name\": \"bad\",\n  \"description\": \"x\",\n  \"rules\": [{\"action\": {\"delay\": \"soon\"}, \"tims\": 1}]\n}"
        let rejected = call(harness, "POST", "/_fakeentra/scenarios?file=bad.json", bad)
        #expect(rejected.status == 422)
        let error = rejected.json["error"] as? [String: Any]
        let problems = error?["problems"] as? [[String: Any]] ?? []
        #expect(problems.count == 2)
        #expect(problems.map { $0["line"] as? Int } == [4, 4])
        #expect(problems.map { $0["column"] as? Int } == [34, 43])
        #expect(problems.first?["file"] as? String == "bad.json")
        #expect(harness.engine.library["bad"] == nil)
        let accepted = call(harness, "POST", "/_fakeentra/scenarios", Self.slow)
        #expect(accepted.status == 201)
        let listed = call(harness, "GET", "/_fakeentra/scenarios").json["scenarios"] as? [[String: Any]]
        #expect(listed?.compactMap { $0["name"] as? String } == ["slow-everything"])
    }

    @Test func bindingsAreActivatedListedAndDeactivated() {
        let harness = Harness()
        _ = call(harness, "POST", "/_fakeentra/scenarios", Self.slow)
        let created = call(harness, "POST", "/_fakeentra/bindings", #"{"scenario": "slow-everything", "clientId": "\#(Harness.nativeApp)"}"#)
        #expect(created.status == 201)
        let id = created.json["id"] as? String
        #expect(id == "b1")
        #expect(harness.send(Harness.passwordGrant()).directives.delay == .milliseconds(5))
        #expect(harness.send(Harness.passwordGrant(client: Harness.otherApp)).directives.delay == nil)
        #expect((call(harness, "GET", "/_fakeentra/bindings").json["bindings"] as? [[String: Any]])?.first?["clientId"] as? String == Harness.nativeApp)
        #expect(call(harness, "POST", "/_fakeentra/bindings", #"{"scenario": "slow-everything", "clientId": "\#(Harness.nativeApp)"}"#).status == 409)
        #expect(call(harness, "POST", "/_fakeentra/bindings", #"{"scenario": "nope"}"#).status == 404)
        #expect(call(harness, "POST", "/_fakeentra/bindings", #"{"scenario": "slow-everything", "tenantAlias": "a/b", "tenant": "contoso.com"}"#).status == 400)
        #expect(call(harness, "DELETE", "/_fakeentra/bindings/b1").status == 204)
        #expect(harness.send(Harness.passwordGrant()).directives.delay == nil)
        let missing = call(harness, "DELETE", "/_fakeentra/bindings/b1")
        #expect(missing.status == 404)
        #expect((missing.json["error"] as? [String: Any])?["message"] as? String == "no binding with id \"b1\"")
    }

    @Test func clockIsReadAndAdvancedPerWorld() {
        let harness = Harness()
        _ = call(harness, "POST", "/_fakeentra/scenarios", Self.slow)
        _ = call(harness, "POST", "/_fakeentra/bindings", #"{"scenario": "slow-everything", "user": "\#(Harness.alex)"}"#)
        let advanced = call(harness, "POST", "/_fakeentra/clock/advance", #"{"seconds": 3600, "binding": "b1"}"#)
        #expect(advanced.status == 200)
        #expect(advanced.json["elapsedSeconds"] as? Double == 3600)
        #expect(call(harness, "GET", "/_fakeentra/clock").json["offsetSeconds"] as? Double == 0, "the default world did not move")
        #expect(call(harness, "POST", "/_fakeentra/clock/advance", "{}").status == 400)
        #expect(call(harness, "POST", "/_fakeentra/clock/advance", #"{"seconds": true}"#).status == 400)
        #expect(call(harness, "POST", "/_fakeentra/clock/advance", "[1]").status == 400)
        _ = call(harness, "POST", "/_fakeentra/clock/advance", #"{"seconds": 60}"#)
        #expect(harness.service.clock.now() == Harness.start.addingTimeInterval(60))
        #expect(call(harness, "POST", "/_fakeentra/reset").status == 200)
        #expect(harness.service.clock.now() == Harness.start)
        #expect(harness.engine.world(binding: "b1")?.elapsed == 0)
    }

    @Test func revokingAUserMakesTheirRefreshTokensFailWith50173() throws {
        let harness = Harness()
        let rt = try #require(Harness.body(harness.send(Harness.passwordGrant()))["refresh_token"] as? String)
        harness.clock.advance(by: 5)
        let revoked = call(harness, "POST", "/_fakeentra/users/\(Harness.adele)/revoke")
        #expect(revoked.status == 200)
        let refresh = Harness.body(harness.send(Harness.refreshGrant(rt)))
        #expect(refresh["error_codes"] as? [Int] == [50173])
        #expect(call(harness, "POST", "/_fakeentra/users/nobody@contoso.com/revoke").status == 404)
    }

    /// What the entry's JSON does not hold (a revocation's instant, sign-up attributes) survives a PATCH.
    @Test func aPatchKeepsWhatTheEntryDoesNotShow() throws {
        let harness = Harness()
        let rt = try #require(Harness.body(harness.send(Harness.passwordGrant()))["refresh_token"] as? String)
        harness.clock.advance(by: 5)
        #expect(call(harness, "POST", "/_fakeentra/users/\(Harness.adele)/revoke").status == 200)
        harness.service.directory.withLock { directory in
            if let index = directory.users.firstIndex(where: { $0.userPrincipalName == Harness.adele }) { directory.users[index].setAttributes(["city": "Redmond"]) }
        }
        let changed = call(harness, "PATCH", "/_fakeentra/users/\(Harness.adele)", #"{"mfaRequired": false}"#)
        #expect(changed.status == 200)
        #expect((changed.json["attributes"] as? [String: Any])?["city"] as? String == "Redmond")
        #expect(Harness.body(harness.send(Harness.refreshGrant(rt)))["error_codes"] as? [Int] == [50173], "the revocation still holds")
    }

    /// A user's attributes through the control API follow the configuration file's rules: a directory
    /// extension or an address property, 1024 characters at most.
    @Test func attributesAreRefusedAsTheConfigurationRefusesThem() {
        let harness = Harness()
        let flag = "extension_0123456789abcdef0123456789abcdef_requiresMigration"
        let long = String(repeating: "x", count: 1025)
        let tooLong = call(harness, "PATCH", "/_fakeentra/users/\(Harness.adele)", #"{"attributes": {"\#(flag)": "\#(long)"}}"#)
        #expect(tooLong.status == 422 && "\(tooLong.json)".contains("at most 1024 characters"), "\(tooLong.json)")
        let unknown = call(harness, "PATCH", "/_fakeentra/users/\(Harness.adele)", #"{"attributes": {"favouriteColour": "blue"}}"#)
        #expect(unknown.status == 422 && "\(unknown.json)".contains("is not a user attribute"), "\(unknown.json)")
        #expect(call(harness, "PATCH", "/_fakeentra/users/\(Harness.adele)", #"{"attributes": {"\#(flag)": "true"}}"#).status == 200)
    }

    /// Workload identity federation, certificates and admin-only scopes through the control API, as the
    /// configuration file has them; a PATCH of another member keeps them.
    @Test func anAppsCredentialsAreWrittenAndKeptByAPatch() throws {
        let harness = Harness()
        let issuer = try SigningCredential.generate(commonName: "issuer")
        let pem = issuer.certificate.pem
        let quoted = pem.replacingOccurrences(of: "\n", with: "\\n")
        let body = #"{"clientId": "f00dcafe-0000-4000-8000-000000000001", "publicClient": false, "certificates": ["\#(quoted)"], "exposedScopes": ["Admin.All"], "adminConsentScopes": ["Admin.All"], "federatedCredentials": [{"issuer": "https://token.actions.githubusercontent.com", "subject": "repo:contoso/app:ref:refs/heads/main", "certificates": ["\#(quoted)"]}]}"#
        let added = call(harness, "POST", "/_fakeentra/apps", body)
        #expect(added.status == 201, "\(added.json)")
        let app = try #require(harness.service.currentDirectory.application(clientID: "f00dcafe-0000-4000-8000-000000000001"))
        #expect(app.federatedCredentials == [FederatedCredential(issuer: "https://token.actions.githubusercontent.com", subject: "repo:contoso/app:ref:refs/heads/main", certificates: [pem])])
        #expect(app.certificates == [pem] && app.adminConsentScopes == ["Admin.All"])
        #expect(call(harness, "PATCH", "/_fakeentra/apps/f00dcafe-0000-4000-8000-000000000001", #"{"displayName": "Renamed"}"#).status == 200)
        let patched = try #require(harness.service.currentDirectory.application(clientID: "f00dcafe-0000-4000-8000-000000000001"))
        #expect(patched.displayName == "Renamed" && patched.federatedCredentials == app.federatedCredentials && patched.certificates == [pem])
        let notACertificate = call(harness, "POST", "/_fakeentra/apps", #"{"clientId": "f00dcafe-0000-4000-8000-000000000002", "federatedCredentials": [{"issuer": "i", "subject": "s", "certificates": ["not a pem"]}]}"#)
        #expect(notACertificate.status == 422)
        let problem = ((notACertificate.json["error"] as? [String: Any])?["problems"] as? [[String: Any]])?.first
        #expect(problem?["path"] as? String == "/federatedCredentials/0/certificates/0", "\(notACertificate.json)")
    }

    /// The outbox answers from the world the app's sign-in went to: a binding of its client, or of the user
    /// the address names, else the default world; `binding` names one outright.
    @Test func theOutboxIsReadInTheWorldTheSignInWentTo() throws {
        let harness = Harness()
        _ = call(harness, "POST", "/_fakeentra/scenarios", Self.slow)
        _ = call(harness, "POST", "/_fakeentra/bindings", #"{"scenario": "slow-everything", "clientId": "c0ffee00-0000-4000-8000-0000000000aa"}"#)
        let world = try #require(harness.engine.world(binding: "b1"))
        let mailed = world.service.outbox.mailCode(to: "ben@fabrikam.test", purpose: .resetPassword, now: harness.clock.now()).code
        func codes(_ query: String) -> [String] {
            ((call(harness, "GET", "/_fakeentra/outbox?to=ben%40fabrikam.test" + query).json["messages"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }
        }
        #expect(codes("&clientId=c0ffee00-0000-4000-8000-0000000000aa") == [mailed])
        #expect(codes("&binding=b1") == [mailed])
        #expect(codes("").isEmpty && codes("&clientId=another").isEmpty, "the default world mailed nothing")
    }

    @Test func usersAreAddedChangedAndRemoved() {
        let harness = Harness()
        let added = call(harness, "POST", "/_fakeentra/users", #"{"userPrincipalName": "lee.gu@contoso.onmicrosoft.com", "displayName": "Lee Gu", "password": "Start123!"}"#)
        #expect(added.status == 201)
        #expect(added.json["password"] == nil, "passwords are never shown")
        let signIn = harness.send(Harness.post("/organizations/oauth2/v2.0/token", [("grant_type", "password"), ("client_id", Harness.nativeApp), ("username", "lee.gu@contoso.onmicrosoft.com"), ("password", "Start123!"), ("scope", "User.Read")]))
        #expect(signIn.status.code == 200)
        let changed = call(harness, "PATCH", "/_fakeentra/users/lee.gu@contoso.onmicrosoft.com", #"{"locked": true, "jobTitle": "Developer"}"#)
        #expect(changed.status == 200)
        #expect(changed.json["jobTitle"] as? String == "Developer")
        #expect(Harness.body(harness.send(Harness.passwordGrant(user: "lee.gu@contoso.onmicrosoft.com")))["error_codes"] as? [Int] == [50053])
        let wrongType = call(harness, "PATCH", "/_fakeentra/users/lee.gu@contoso.onmicrosoft.com", #"{"locked": "yes"}"#)
        #expect(wrongType.status == 422)
        #expect(((wrongType.json["error"] as? [String: Any])?["problems"] as? [[String: Any]])?.first?["message"] as? String == "\"locked\" must be a boolean, found string \"yes\"")
        #expect(call(harness, "DELETE", "/_fakeentra/users/lee.gu@contoso.onmicrosoft.com").status == 204)
        #expect(harness.service.currentDirectory.user(signInName: "lee.gu@contoso.onmicrosoft.com") == nil)
        let unknownField = call(harness, "POST", "/_fakeentra/users", #"{"userPrincipalName": "x@contoso.com", "pasword": "x"}"#)
        #expect(unknownField.status == 422)
    }

    @Test func appsAndConsentsInABindingsWorld() {
        let harness = Harness()
        _ = call(harness, "POST", "/_fakeentra/scenarios", Self.slow)
        _ = call(harness, "POST", "/_fakeentra/bindings", #"{"scenario": "slow-everything"}"#)
        let app = call(harness, "POST", "/_fakeentra/apps?binding=b1", #"{"clientId": "c0ffee00-0000-4000-8000-000000000001", "displayName": "Scripted", "redirectUris": ["http://localhost"]}"#)
        #expect(app.status == 201)
        let world = harness.engine.world(binding: "b1")
        #expect(world?.service.currentDirectory.application(clientID: "c0ffee00-0000-4000-8000-000000000001") != nil)
        #expect(harness.service.currentDirectory.application(clientID: "c0ffee00-0000-4000-8000-000000000001") == nil)
        let consent = call(harness, "POST", "/_fakeentra/consents?binding=b1", #"{"clientId": "c0ffee00-0000-4000-8000-000000000001", "user": "\#(Harness.adele)", "scopes": ["User.Read", "Mail.Read"]}"#)
        #expect(consent.status == 201)
        #expect(world?.service.currentDirectory.grantedScopes(clientID: "c0ffee00-0000-4000-8000-000000000001", resourceAppID: Resource.graphAppID, userID: "6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51", tenantID: Directory.contosoTenantID) == ["user.read", "mail.read"])
        let badUser = call(harness, "POST", "/_fakeentra/consents?binding=b1", #"{"clientId": "x", "user": "ghost@contoso.com", "scopes": []}"#)
        #expect(badUser.status == 422)
        #expect(call(harness, "DELETE", "/_fakeentra/consents?binding=b1", #"{"clientId": "c0ffee00-0000-4000-8000-000000000001", "user": "\#(Harness.adele)"}"#).json["removed"] as? Int == 1)
        #expect(call(harness, "PATCH", "/_fakeentra/apps/c0ffee00-0000-4000-8000-000000000001?binding=b1", #"{"familyId": "1"}"#).json["familyId"] as? String == "1")
        let spa = call(harness, "PATCH", "/_fakeentra/apps/c0ffee00-0000-4000-8000-000000000001?binding=b1", #"{"spaRedirectUris": ["http://localhost:3000"]}"#)
        #expect(spa.json["spaRedirectUris"] as? [String] == ["http://localhost:3000"] && spa.json["redirectUris"] as? [String] == ["http://localhost"])
        #expect(call(harness, "DELETE", "/_fakeentra/apps/c0ffee00-0000-4000-8000-000000000001?binding=b1").status == 204)
        #expect(call(harness, "GET", "/_fakeentra/users?binding=b9").status == 404)
    }

    /// Every `/_fakeentra/` path is the control plane's: an unknown one is a 404 in the control API's
    /// shape, and no world sees it.
    @Test func controlPathsNeverReachAWorld() {
        let harness = Harness()
        let unknown = call(harness, "GET", "/_fakeentra/nothing-here")
        #expect(unknown.status == 404 && (unknown.json["error"] as? [String: Any])?["code"] as? String == "not_found")
        #expect(call(harness, "GET", "/_fakeentra/journal").status == 200)
        #expect(harness.probe.count == 0)
    }

    /// One access rule for every control endpoint: with a secret, a remote caller presenting it reaches
    /// the journal, the conformance runs and the token mint as it reaches the scenarios; without it,
    /// every one of them is a 401; health needs nothing.
    @Test func oneAccessRuleForEveryControlEndpoint() {
        let harness = Harness(options: ScenarioEngineOptions(controlSecret: "s3cret", frozenClocks: true))
        let bearer: HTTPHeaders = ["Authorization": "Bearer s3cret"]
        for (method, path, body) in [("GET", "/_fakeentra/scenarios", ""), ("GET", "/_fakeentra/bindings", ""), ("GET", "/_fakeentra/journal", ""),
                                     ("GET", "/_fakeentra/journal?format=har", ""), ("GET", "/_fakeentra/conformance/cases", ""),
                                     ("POST", "/_fakeentra/tokens", "{}"), ("GET", "/_fakeentra/clock", "")] {
            let allowed = call(harness, method, path, body, from: "10.1.2.3", headers: bearer)
            #expect((200..<300).contains(allowed.status), "\(method) \(path) with the secret: \(allowed.status)")
            let refused = call(harness, method, path, body, from: "10.1.2.3")
            #expect(refused.status == 401 && refused.response.headers["WWW-Authenticate"] != nil, "\(method) \(path) without it: \(refused.status)")
        }
        #expect(call(harness, "GET", "/_fakeentra/health", from: "10.1.2.3").status == 200)
        #expect(call(harness, "HEAD", "/_fakeentra/health", from: "10.1.2.3").status == 200)
    }
}

@Suite struct ServerBindingControlTests {
    /// With `--scenario NAME`, the control API edits the world requests actually reach.
    @Test func withoutABindingIdEditsGoToTheServerBindingsWorld() throws {
        let harness = Harness(scenarios: [try Harness.scenario(ControlAPITests.slow)])
        let defaultUserCount = harness.service.currentDirectory.users.count
        let binding = try harness.engine.bind(scenario: "slow-everything", to: .server)
        let added = harness.send(Harness.json("POST", "/_fakeentra/users", #"{"userPrincipalName": "lee.gu@contoso.onmicrosoft.com", "password": "Start123!"}"#))
        #expect(added.status.code == 201)
        #expect(harness.engine.world(binding: binding.id)?.service.currentDirectory.user(signInName: "lee.gu@contoso.onmicrosoft.com") != nil)
        #expect(harness.service.currentDirectory.user(signInName: "lee.gu@contoso.onmicrosoft.com") == nil)
        let signIn = harness.send(Harness.post("/organizations/oauth2/v2.0/token", [("grant_type", "password"), ("client_id", Harness.nativeApp), ("username", "lee.gu@contoso.onmicrosoft.com"), ("password", "Start123!"), ("scope", "User.Read")]))
        #expect(signIn.status.code == 200)
        let defaultUsers = Harness.body(harness.send(Harness.json("GET", "/_fakeentra/users?binding=default")))["users"] as? [[String: Any]]
        #expect(defaultUsers?.count == defaultUserCount, "the server binding's world took the new user, not the default one")
    }
}

@Suite struct BindingTargetAndCounterTests {
    @Test func bindingTargetsParseFromTheirCommandLineForm() throws {
        #expect(try BindingTarget(parsing: "server") == .server)
        #expect(try BindingTarget(parsing: "client:abc") == .client(id: "abc"))
        #expect(try BindingTarget(parsing: "user:adele@contoso.com") == .user("adele@contoso.com"))
        #expect(try BindingTarget(parsing: "alias:scenario-x=contoso.com") == .tenantAlias(alias: "scenario-x", tenant: "contoso.com"))
        for bad in ["", "client:", "alias:x", "alias:a/b=c", "tenant:x", "server:x"] {
            #expect(throws: ScenarioEngineError.self, "\(bad)") { try BindingTarget(parsing: bad) }
        }
    }

    @Test func aBindingShowsItsRuleCounters() throws {
        let scenario = try Harness.scenario(#"{"name": "two", "description": "d", "rules": [{"note": "first", "match": {"endpoint": "token"}, "action": {"delay": 1}, "times": 2}, {"match": {"endpoint": "graph"}, "action": {"delay": 1}}]}"#)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: "two", to: .server)
        for _ in 0..<3 { _ = harness.send(Harness.passwordGrant()) }
        let view = Harness.body(harness.send(Harness.json("GET", "/_fakeentra/bindings/b1")))
        let rules = try #require(view["rules"] as? [[String: Any]])
        #expect(rules.map { $0["matched"] as? Int } == [3, 0])
        #expect(rules.map { $0["fired"] as? Int } == [2, 0])
        #expect(rules.map { $0["times"] as? String } == ["2 times", "once"])
        #expect(rules.first?["note"] as? String == "first")
        #expect(harness.send(Harness.json("GET", "/_fakeentra/bindings/b7")).status.code == 404)
    }
}
