import Conformance
import EntraCrypto
import EntraHTTP
import FakeEntraApp
import Foundation
import IdentityPlatform
import Scenarios
import Testing

/// Bindings and conformance runs are bounded: a restarted case replaces its binding, the engine refuses
/// bindings past its cap (429 in the control API's shape), and old idle runs make room for new ones.
@Suite struct BoundedRunsTests {
    func application(maxBindings: Int = ScenarioEngineOptions.defaultMaxBindings) throws -> FakeEntraApplication {
        FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())),
                             scenarios: (try? ScenarioLibrary.shipped(baseDirectory: .embeddedDefault)) ?? ScenarioLibrary(),
                             scenarioOptions: ScenarioEngineOptions(maxBindings: maxBindings))
    }

    func send(_ app: FakeEntraApplication, _ method: String, _ target: String, body: String = "") -> HTTPResponse {
        var headers: HTTPHeaders = ["Host": "127.0.0.1:8443"]
        if !body.isEmpty { headers.set("Content-Type", "application/json") }
        return app.responder.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)),
                                     context: RequestContext(remoteAddress: "127.0.0.1", isSecure: true, localPort: 8443))
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
            self.send(app, "POST", "/_fakeentra/bindings", body: #"{"scenario": "happy-path", "clientId": "\#(client)"}"#)
        }
        let ids = try (1...3).map { index in
            let created = bind("0000000\(index)-0000-4000-8000-000000000000")
            #expect(created.status.code == 201, "\(String(decoding: created.body, as: UTF8.self))")
            return try #require((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
        }
        let refused = bind("00000004-0000-4000-8000-000000000000")
        #expect(refused.status.code == 429 && Self.code(refused) == "too_many_bindings")
        #expect(send(app, "DELETE", "/_fakeentra/bindings/\(ids[0])").status.code == 204)
        #expect(bind("00000004-0000-4000-8000-000000000000").status.code == 201)
    }

    @Test func oldIdleRunsMakeRoom() throws {
        let app = try application()
        let first = try app.conformance.createRun(cases: "protocol.pkce-s256").id
        for _ in 0..<ConformanceSessions.maxRuns { _ = try app.conformance.createRun(cases: "protocol.pkce-s256") }
        #expect(throws: ConformanceError.self) { try app.conformance.results(run: first) }
    }
}
