import ExchangeKernel
import Conformance
import EntraCrypto
import EntraHTTP
import FakeEntraApp
import Foundation
import IdentityPlatform
import Scenarios
import Synchronization
import Testing

/// Bindings and conformance runs are bounded: a restarted case replaces its binding, the engine refuses
/// bindings past its cap (429 in the control API's shape), and old idle runs make room for new ones.
@Suite struct BoundedRunsTests {
    func application(maxBindings: Int = ScenarioEngineOptions.defaultMaxBindings) throws -> FakeEntraApplication {
        FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())),
                             scenarios: (try? ScenarioLibrary.shipped(baseDirectory: .embeddedDefault)) ?? ScenarioLibrary(),
                             scenarioOptions: ScenarioEngineOptions(maxBindings: maxBindings))
    }

    static func code(_ response: HTTPResponse) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
    }

    @Test func aRestartedCaseReplacesItsBinding() throws {
        let app = try application()
        let run = try app.conformance.createRun(cases: "protocol.pkce-s256").id
        var starts: [CaseStart] = []
        for _ in 0..<5 { starts.append(try app.conformance.start(run: run, case: "protocol.pkce-s256", baseURL: "https://127.0.0.1:8443")) }
        #expect(app.engine.bindings.map(\.id) == [starts.last!.binding])
    }

    @Test func bindingsPastTheCapAreRefused() throws {
        let app = try application(maxBindings: 3)
        let bind = { (client: String) in
            app.send("POST", "/_fakeentra/bindings", body: #"{"scenario": "happy-path", "clientId": "\#(client)"}"#)
        }
        let ids = try (1...3).map { index in
            let created = bind("0000000\(index)-0000-4000-8000-000000000000")
            #expect(created.status.code == 201, "\(String(decoding: created.body, as: UTF8.self))")
            return try #require((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
        }
        let refused = bind("00000004-0000-4000-8000-000000000000")
        #expect(refused.status.code == 429 && Self.code(refused) == "too_many_bindings")
        #expect(app.send("DELETE", "/_fakeentra/bindings/\(ids[0])").status.code == 204)
        #expect(bind("00000004-0000-4000-8000-000000000000").status.code == 201)
    }

    @Test func oldIdleRunsMakeRoom() throws {
        let app = try application()
        let first = try app.conformance.createRun(cases: "protocol.pkce-s256").id
        for _ in 0..<ConformanceSessions.maxRuns { _ = try app.conformance.createRun(cases: "protocol.pkce-s256") }
        #expect(throws: ConformanceError.self) { try app.conformance.results(run: first) }
    }
}

/// Requests find their binding by index: by the handle a world issued, by client id and by user, the
/// oldest binding winning; an unbound world's handles are forgotten with it.
@Suite struct BindingIndexTests {
    @Test func handlesClientsAndUsersFindTheirWorld() throws {
        let app = FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())),
                                       scenarios: (try? ScenarioLibrary.shipped(baseDirectory: .embeddedDefault)) ?? ScenarioLibrary())
        let client = "0d3b8b6c-7a4e-4f1d-9c2b-3e5f6a7b8c9d"
        for index in 0..<200 { try app.engine.bind(scenario: "happy-path", to: .client(id: String(format: "00000000-0000-4000-9000-%012d", index))) }
        let bound = try app.engine.bind(scenario: "happy-path", to: .client(id: client.uppercased()))
        let byUser = try app.engine.bind(scenario: "happy-path", to: .user("Alex.Wilber@contoso.onmicrosoft.com"))
        let token = { (clientID: String, user: String, form: [(String, String)]) -> [String: Any] in
            let body = FormParameters([("client_id", clientID), ("scope", "openid offline_access User.Read")] + form).encoded
            let response = app.responder.respond(to: HTTPRequest(method: "POST", target: "/organizations/oauth2/v2.0/token",
                                                                 headers: ["Host": "127.0.0.1:8443", "Content-Type": "application/x-www-form-urlencoded"], body: Array(body.utf8)),
                                                 context: ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 8443))
            return (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        }
        let signedIn = token(client, "adele", [("grant_type", "password"), ("username", "adele.vance@contoso.onmicrosoft.com"), ("password", Directory.demoPassword)])
        let refresh = try #require(signedIn["refresh_token"] as? String)
        #expect(app.engine.world(binding: bound.id)?.service.lookUpRefreshToken(refresh).record != nil, "the client's binding issued it")
        // Another client presenting it still reaches the world that issued it (which refuses the mismatch).
        #expect(token("11111111-2222-4333-8444-555555555555", "", [("grant_type", "refresh_token"), ("refresh_token", refresh)])["error"] as? String == "invalid_grant")
        #expect(token(client, "", [("grant_type", "refresh_token"), ("refresh_token", refresh)])["access_token"] != nil)
        // A user binding: a password grant naming the user goes to it.
        let alex = try #require(token("22222222-2222-4333-8444-555555555555", "", [("grant_type", "password"), ("username", "alex.wilber@contoso.onmicrosoft.com"),
                                                                                   ("password", Directory.demoPassword)])["refresh_token"] as? String)
        #expect(app.engine.world(binding: byUser.id)?.service.lookUpRefreshToken(alex).record != nil)
        // Unbound: its handles go with it.
        let again = try #require(token(client, "", [("grant_type", "password"), ("username", "adele.vance@contoso.onmicrosoft.com"), ("password", Directory.demoPassword)])["refresh_token"] as? String)
        #expect(app.engine.unbind(id: bound.id))
        #expect(token(client, "", [("grant_type", "refresh_token"), ("refresh_token", again)])["error"] as? String == "invalid_grant")
    }
}
