import ExchangeKernel
@testable import ControlPlane
import EntraCrypto
import EntraHTTP
@testable import FakeEntraApp
import Foundation
import IdentityPlatform
import Scenarios
import Synchronization
import Testing

@Suite struct HealthHandlerTests {
    @Test(arguments: [(Duration.milliseconds(12_345), "12.345"), (.milliseconds(7), "0.007"), (.zero, "0.000"),
                      (.microseconds(1_999), "0.002"), (.microseconds(1_499), "0.001"), (.microseconds(999_500), "1.000"), (.seconds(86_400 * 365), "31536000.000")])
    func uptimeIsSecondsWithMilliseconds(uptime: Duration, text: String) {
        #expect(HealthEndpoint.secondsWithMilliseconds(uptime) == text)
    }

    /// Health probes (GET, which needs no control credentials) and, while no scenario is bound and no
    /// state is kept on disk, client-credentials token requests of a registered app are answered on the
    /// event loop; HEAD and POST of the health path, every other request, the grants that store state,
    /// an unknown client id (the lenient mode registers it), and token requests once a scenario's rules
    /// may delay them or roll a key, go to the workers.
    @Test func healthProbesAndUnscriptedAppTokensAreAnsweredOnTheLoop() throws {
        let app = FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())))
        #expect(app.responder.answersOnLoop(HTTPRequest(method: "GET", target: "/_fakeentra/health")))
        #expect(app.responder.answersOnLoop(HTTPRequest(method: "GET", target: "/_fakeentra/health?x=1")))
        let tokenTargets = ["/common/oauth2/v2.0/token", "/contoso.onmicrosoft.com/oauth2/token", "/common/oauth2/v2.0/TOKEN"]
        let registered = try #require(app.service.currentDirectory.applications.first?.clientID)
        func token(_ target: String, grant: String = "client_credentials", method: String = "POST", client: String? = nil) -> HTTPRequest {
            HTTPRequest(method: method, target: target, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                        body: Array("client_id=\(client ?? registered)&grant_type=\(grant)&scope=x".utf8))
        }
        for target in tokenTargets { #expect(app.responder.answersOnLoop(token(target)), "\(target)") }
        for grant in ["authorization_code", "refresh_token", "password", "urn:ietf:params:oauth:grant-type:device_code", "CLIENT_CREDENTIALS"] {
            #expect(!app.responder.answersOnLoop(token(tokenTargets[0], grant: grant)), "\(grant)")
        }
        #expect(!app.responder.answersOnLoop(HTTPRequest(method: "POST", target: tokenTargets[0])), "no grant_type")
        #expect(!app.responder.answersOnLoop(token(tokenTargets[0], client: "0d0c0b0a-0000-4000-8000-000000000001")), "an unknown client")
        for (method, target) in [("POST", "/_fakeentra/health"), ("HEAD", "/_fakeentra/health"), ("GET", "/_fakeentra/health/x"), ("GET", "/_fakeentra/journal"),
                                 ("GET", "/common/v2.0/.well-known/openid-configuration"), ("GET", "/common/oauth2/v2.0/token"),
                                 ("POST", "/common/oauth2/v2.0/token/x"), ("POST", "/common/oauth2/v2.0/devicecode"),
                                 ("POST", "/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/token")] {
            #expect(!app.responder.answersOnLoop(token(target, method: method)), "\(method) \(target)")
        }
        let scenario = #"{"name": "slow", "description": "d", "rules": [{"match": {"endpoint": "token"}, "action": {"delay": 1}, "times": "always"}]}"#
        guard case .success = app.engine.load(file: Array(scenario.utf8), name: "slow.json") else { Issue.record("the scenario did not load"); return }
        let binding = try app.engine.bind(scenario: "slow", to: .server)
        for target in tokenTargets { #expect(!app.responder.answersOnLoop(token(target)), "bound: \(target)") }
        app.engine.unbind(id: binding.id)
        #expect(app.responder.answersOnLoop(token(tokenTargets[0])))
        #expect(!app.responder.answersOnLoop(HTTPRequest(method: "GET", target: "/_fakeentra/health", body: Array("{".utf8))),
                "a body goes the long way")
        let probe = app.responder.respond(to: HTTPRequest(method: "GET", target: "/_fakeentra/health"), context: ConnectionFacts(isSecure: false, localPort: 80))
        #expect(probe.status.code == 200)
    }

    /// With `--state`, every grant waits for SQLite: token requests all go to the workers.
    @Test func tokensGoToTheWorkersWhenStateIsKeptOnDisk() throws {
        final class Discarding: StatePersistence {
            func upsert(store: String, key: String, value: [UInt8], forgetAt: Date) {}
            func delete(store: String, key: String) {}
            func deleteAll() {}
            func saveDirectory(_ rows: [DirectoryRow]) {}
        }
        let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate()))
        _ = service.state.withLock { $0.attach(Discarding(), restoring: []) }
        let app = FakeEntraApplication(service: service)
        let registered = try #require(service.currentDirectory.applications.first?.clientID)
        let request = HTTPRequest(method: "POST", target: "/common/oauth2/v2.0/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                  body: Array("client_id=\(registered)&grant_type=client_credentials&scope=x".utf8))
        #expect(!app.responder.answersOnLoop(request))
        #expect(app.responder.answersOnLoop(HTTPRequest(method: "GET", target: "/_fakeentra/health")))
    }
}
