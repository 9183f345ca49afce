import ExchangeKernel
import Conformance
import EntraCrypto
import EntraHTTP
import FakeEntraApp
import Foundation
import IdentityPlatform
import Testing
import Scenarios

/// `/_fakeentra/conformance/…` for clients driven by their own test runner (XCUITest): create a run,
/// start a case (fresh client id, its scenario bound), let the client talk to the server, finish with
/// the outcomes and get the verdict.
@Suite struct ControlModeTests {
    static let loopback = RequestContext(remoteAddress: "127.0.0.1", isSecure: true, localPort: 8443)

    let app: FakeEntraApplication

    init() throws {
        app = FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())))
    }

    func send(_ method: String, _ target: String, body: String = "", context: RequestContext = ControlModeTests.loopback) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.set("Host", "127.0.0.1:8443")
        if !body.isEmpty { headers.set("Content-Type", "application/json") }
        return app.responder.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)), context: context)
    }

    func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func aRunStartsAndJudgesACase() throws {
        let created = send("POST", "/_fakeentra/conformance/runs", body: #"{"cases": "protocol.pkce-s256,lifecycle.*"}"#)
        #expect(created.status.code == 201)
        let run = try #require(try json(created)["run"] as? String)
        #expect((try json(created)["cases"] as? [[String: Any]])?.first?["id"] as? String == "protocol.pkce-s256")

        let started = send("POST", "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/start")
        #expect(started.status.code == 200)
        let start = try ConformanceJSON.decoder().decode(CaseStart.self, from: Data(started.body))
        #expect(start.authority == "https://127.0.0.1:8443/\(Directory.contosoTenantID)")
        #expect(start.redirectURI == "http://localhost")
        #expect(start.journey.map(\.step) == [.signIn])
        #expect(start.environment(certificateAuthority: "/ca.pem", browser: "b")["FAKEENTRA_CLIENT_ID"] == start.clientID)

        // The app opens /authorize with PKCE; the platform shows its sign-in page.
        let authorize = "/\(Directory.contosoTenantID)/oauth2/v2.0/authorize?client_id=\(start.clientID)&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%3A5000&scope=User.Read+openid&code_challenge=abcdefghijabcdefghijabcdefghijabcdefghij123&code_challenge_method=S256&state=s"
        #expect(send("GET", authorize).status.code == 200)
        // Another client's request at the same time is not this case's evidence.
        #expect(send("GET", authorize.replacingOccurrences(of: start.clientID, with: "11111111-2222-3333-4444-555555555555")).status.code != 0)

        let finished = send("POST", "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/finish",
                            body: #"{"outcomes": [{"id": 1, "ok": true, "scopes": ["User.Read"]}]}"#)
        #expect(finished.status.code == 200)
        let result = try ConformanceJSON.decoder().decode(CaseResult.self, from: Data(finished.body))
        #expect(result.exchanges.count == 1, "only the case's own client id: \(result.exchanges.map(\.summary))")
        #expect(result.exchanges.first?.parameters["code_challenge_method"] == "S256")
        // The challenge was seen, the code never redeemed: not testable rather than a silent pass.
        #expect(result.verdict == .notTestable, "\(result.reason)")
        #expect(result.reason.contains("code redemption"))

        let results = try json(send("GET", "/_fakeentra/conformance/runs/\(run)"))
        #expect((results["results"] as? [[String: Any]])?.count == 1)
        // The binding is gone once judged.
        #expect(!app.engine.bindings.contains { $0.id == start.binding })
    }

    @Test func errorsUseTheControlAPIsShape() throws {
        let unknownRun = send("POST", "/_fakeentra/conformance/runs/nope/cases/protocol.pkce-s256/start")
        #expect(unknownRun.status.code == 404)
        #expect((try json(unknownRun)["error"] as? [String: Any])?["code"] as? String == "unknown_run")
        let run = try #require(try json(send("POST", "/_fakeentra/conformance/runs"))["run"] as? String)
        #expect(send("POST", "/_fakeentra/conformance/runs/\(run)/cases/no.such/start").status.code == 404)
        #expect(send("POST", "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/finish", body: #"{"outcomes": []}"#).status.code == 409,
                "finishing a case never started")
        #expect(send("POST", "/_fakeentra/conformance/runs", body: #"{"cases": "zzz.*"}"#).status.code == 422)
        #expect(send("POST", "/_fakeentra/conformance/runs", body: "not json").status.code == 422)
        _ = send("POST", "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/start")
        #expect(send("POST", "/_fakeentra/conformance/runs/\(run)/cases/protocol.pkce-s256/finish", body: #"{"outcomes": 3}"#).status.code == 422)
    }

    @Test func sameAccessRuleAsTheControlAPI() throws {
        let remote = RequestContext(remoteAddress: "192.0.2.7", isSecure: true, localPort: 8443)
        #expect(send("POST", "/_fakeentra/conformance/runs", context: remote).status.code == 403)
        #expect(send("GET", "/_fakeentra/conformance/cases", context: remote).status.code == 403)
        let guarded = FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())),
                                           scenarioOptions: .init(controlSecret: "s3cret"))
        var headers = HTTPHeaders()
        headers.set("Host", "127.0.0.1:8443")
        #expect(guarded.responder.respond(to: HTTPRequest(method: "GET", target: "/_fakeentra/conformance/cases", headers: headers), context: remote).status.code == 401)
        headers.set("Authorization", "Bearer s3cret")
        #expect(guarded.responder.respond(to: HTTPRequest(method: "GET", target: "/_fakeentra/conformance/cases", headers: headers), context: remote).status.code == 200)
    }

    @Test func theCatalogueIsListed() throws {
        let response = send("GET", "/_fakeentra/conformance/cases")
        let cases = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
        #expect(cases.count == Catalogue.all.count)
    }

    /// Discovery carries no client id: the issuer case gets an authority path of its own, and the discovery
    /// under it (with the foreign issuer) is the case's evidence; the tenant's own discovery is not.
    @Test func theDiscoveryCaseHasItsOwnAuthorityPath() throws {
        let run = try #require(try json(send("POST", "/_fakeentra/conformance/runs", body: #"{"cases": "protocol.discovery-issuer"}"#))["run"] as? String)
        let base = "/_fakeentra/conformance/runs/\(run)/cases/protocol.discovery-issuer"
        let start = try ConformanceJSON.decoder().decode(CaseStart.self, from: Data(send("POST", base + "/start").body))
        let path = try #require(URLComponents(string: start.authority)?.path)
        #expect(path.hasPrefix("/conformance-") && path != "/\(Directory.contosoTenantID)", "\(start.authority)")
        let served = try json(send("GET", path + "/v2.0/.well-known/openid-configuration"))
        #expect(served["issuer"] as? String == Catalogue.discoveryIssuer)
        #expect((served["authorization_endpoint"] as? String)?.contains(path + "/oauth2/v2.0/authorize") == true)
        let tenants = try json(send("GET", "/\(Directory.contosoTenantID)/v2.0/.well-known/openid-configuration"))
        #expect(tenants["issuer"] as? String != Catalogue.discoveryIssuer, "the tenant's own authority is untouched")

        let finished = send("POST", base + "/finish", body: #"{"outcomes": [{"id": 1, "ok": false, "error": "rejected_token"}]}"#)
        let result = try ConformanceJSON.decoder().decode(CaseResult.self, from: Data(finished.body))
        #expect(result.exchanges.count == 1, "\(result.exchanges.map(\.summary))")
        #expect(result.verdict == .passed, "stopped after the foreign document: \(result.reason)")
    }
}
