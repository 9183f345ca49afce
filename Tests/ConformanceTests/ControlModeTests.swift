import ExchangeKernel
import Conformance
import EntraCrypto
import EntraHTTP
import FakeEntraApp
import FakeEntraTesting
import Foundation
import IdentityPlatform
import Testing
import Scenarios

/// `/_fakeentra/conformance/…` for clients driven by their own test runner (XCUITest): create a run,
/// start a case (fresh client id, its scenario bound), let the client talk to the server, finish with
/// the outcomes and get the verdict. Driven as such a runner drives it, through FakeEntraTesting (its
/// in-process `.router` client), except the access rule, which needs other peers than the loopback.
@Suite struct ControlModeTests {
    /// A server with no listener and its in-process client.
    func withClient(_ body: (FakeEntraClient, FakeEntraServer) async throws -> Void) async throws {
        try await withFakeEntra(FakeEntraConfiguration(listener: .none)) { server in try await body(try server.client(.router), server) }
    }

    func send(_ client: FakeEntraClient, _ method: FakeEntraMethod, _ path: String, body: String = "") async throws -> FakeEntraResponse {
        try await client.execute(method, path, headers: body.isEmpty ? [:] : ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    @Test func aRunStartsAndJudgesACase() async throws {
        try await withClient { client, server in
            let created = try await send(client, .post, "/_fakeentra/conformance/runs", body: #"{"cases": "protocol.pkce-s256,lifecycle.*"}"#)
            #expect(created.status == 201)
            let run = try #require(try created.json()["run"] as? String)
            #expect((try created.json()["cases"] as? [[String: Any]])?.first?["id"] as? String == "protocol.pkce-s256")

            let started = try await send(client, .post, "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/start")
            #expect(started.status == 200)
            let start = try ConformanceJSON.decoder().decode(CaseStart.self, from: Data(started.body))
            #expect(start.authority == "\(server.baseURL)/\(Directory.contosoTenantID)")
            #expect(start.redirectURI == "http://localhost")
            #expect(start.journey.map(\.step) == [.signIn])
            #expect(start.environment(certificateAuthority: "/ca.pem", browser: "b")["FAKEENTRA_CLIENT_ID"] == start.clientID)
            let bound = try await send(client, .get, "/_fakeentra/bindings").json()["bindings"] as? [[String: Any]]
            #expect(bound?.contains { $0["id"] as? String == start.binding && $0["clientId"] as? String == start.clientID } == true, "\(bound ?? [])")

            // The app opens /authorize with PKCE; the platform shows its sign-in page.
            let authorize = "/\(Directory.contosoTenantID)/oauth2/v2.0/authorize?client_id=\(start.clientID)&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%3A5000&scope=User.Read+openid&code_challenge=abcdefghijabcdefghijabcdefghijabcdefghij123&code_challenge_method=S256&state=s"
            #expect(try await send(client, .get, authorize).status == 200)
            // Another client's request at the same time is not this case's evidence.
            _ = try await send(client, .get, authorize.replacingOccurrences(of: start.clientID, with: "11111111-2222-3333-4444-555555555555"))

            let finished = try await send(client, .post, "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/finish",
                                          body: #"{"outcomes": [{"id": 1, "ok": true, "scopes": ["User.Read"]}]}"#)
            #expect(finished.status == 200)
            let result = try ConformanceJSON.decoder().decode(CaseResult.self, from: Data(finished.body))
            #expect(result.exchanges.count == 1, "only the case's own client id: \(result.exchanges.map(\.summary))")
            #expect(result.exchanges.first?.parameters["code_challenge_method"] == "S256")
            // The challenge was seen, the code never redeemed: not testable rather than a silent pass.
            #expect(result.verdict == .notTestable, "\(result.reason)")
            #expect(result.reason.contains("code redemption"))

            let results = try await send(client, .get, "/_fakeentra/conformance/runs/\(run)").json()
            #expect((results["results"] as? [[String: Any]])?.count == 1)
            // The binding is gone once judged.
            let bindings = try await send(client, .get, "/_fakeentra/bindings").json()["bindings"] as? [[String: Any]]
            #expect(bindings?.contains { $0["id"] as? String == start.binding } == false, "\(bindings ?? [])")
        }
    }

    @Test func errorsUseTheControlAPIsShape() async throws {
        try await withClient { client, _ in
            let unknownRun = try await send(client, .post, "/_fakeentra/conformance/runs/nope/cases/protocol.pkce-s256/start")
            #expect(unknownRun.status == 404)
            #expect((try unknownRun.json()["error"] as? [String: Any])?["code"] as? String == "unknown_run")
            let run = try #require(try await send(client, .post, "/_fakeentra/conformance/runs").json()["run"] as? String)
            #expect(try await send(client, .post, "/_fakeentra/conformance/runs/\(run)/cases/no.such/start").status == 404)
            #expect(try await send(client, .post, "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/finish", body: #"{"outcomes": []}"#).status == 409,
                    "finishing a case never started")
            #expect(try await send(client, .post, "/_fakeentra/conformance/runs", body: #"{"cases": "zzz.*"}"#).status == 422)
            #expect(try await send(client, .post, "/_fakeentra/conformance/runs", body: "not json").status == 422)
            _ = try await send(client, .post, "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/start")
            #expect(try await send(client, .post, "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/finish", body: #"{"outcomes": 3}"#).status == 422)
        }
    }

    @Test func sameAccessRuleAsTheControlAPI() throws {
        let app = FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())))
        let remote = ConnectionFacts(remoteAddress: "192.0.2.7", isSecure: true, localPort: 8443)
        var headers = HTTPHeaders()
        headers.set("Host", "127.0.0.1:8443")
        for (method, target) in [("POST", "/_fakeentra/conformance/runs"), ("GET", "/_fakeentra/conformance/cases")] {
            #expect(app.responder.respond(to: HTTPRequest(method: method, target: target, headers: headers), context: remote).status.code == 403)
        }
        let guarded = FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())),
                                           scenarioOptions: .init(controlSecret: "s3cret"))
        #expect(guarded.responder.respond(to: HTTPRequest(method: "GET", target: "/_fakeentra/conformance/cases", headers: headers), context: remote).status.code == 401)
        headers.set("Authorization", "Bearer s3cret")
        #expect(guarded.responder.respond(to: HTTPRequest(method: "GET", target: "/_fakeentra/conformance/cases", headers: headers), context: remote).status.code == 200)
    }

    @Test func theCatalogueIsListed() async throws {
        try await withClient { client, _ in
            let response = try await send(client, .get, "/_fakeentra/conformance/cases")
            let cases = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
            #expect(cases.count == Catalogue.all.count)
        }
    }

    /// Discovery carries no client id: the issuer case gets an authority path of its own, and the discovery
    /// under it (with the foreign issuer) is the case's evidence; the tenant's own discovery is not.
    @Test func theDiscoveryCaseHasItsOwnAuthorityPath() async throws {
        try await withClient { client, _ in
            let run = try #require(try await send(client, .post, "/_fakeentra/conformance/runs", body: #"{"cases": "protocol.discovery-issuer"}"#).json()["run"] as? String)
            let base = "/_fakeentra/conformance/runs/\(run)/cases/protocol.discovery-issuer"
            let start = try ConformanceJSON.decoder().decode(CaseStart.self, from: Data(try await send(client, .post, base + "/start").body))
            let path = try #require(URLComponents(string: start.authority)?.path)
            #expect(path.hasPrefix("/conformance-") && path != "/\(Directory.contosoTenantID)", "\(start.authority)")
            let served = try await send(client, .get, path + "/v2.0/.well-known/openid-configuration").json()
            #expect(served["issuer"] as? String == Catalogue.discoveryIssuer)
            #expect((served["authorization_endpoint"] as? String)?.contains(path + "/oauth2/v2.0/authorize") == true)
            let tenants = try await send(client, .get, "/\(Directory.contosoTenantID)/v2.0/.well-known/openid-configuration").json()
            #expect(tenants["issuer"] as? String != Catalogue.discoveryIssuer, "the tenant's own authority is untouched")

            let finished = try await send(client, .post, base + "/finish", body: #"{"outcomes": [{"id": 1, "ok": false, "error": "rejected_token"}]}"#)
            let result = try ConformanceJSON.decoder().decode(CaseResult.self, from: Data(finished.body))
            #expect(result.exchanges.count == 1, "\(result.exchanges.map(\.summary))")
            #expect(result.verdict == .passed, "stopped after the foreign document: \(result.reason)")
        }
    }
}
