import EntraCrypto
import EntraHTTP
import IdentityPlatform
import Testing
@testable import FakeEntraApp

@Suite struct HealthHandlerTests {
    @Test(arguments: [(Duration.milliseconds(12_345), "12.345"), (.milliseconds(7), "0.007"), (.zero, "0.000"),
                      (.microseconds(1_999), "0.002"), (.microseconds(1_499), "0.001"), (.microseconds(999_500), "1.000"), (.seconds(86_400 * 365), "31536000.000")])
    func uptimeIsSecondsWithMilliseconds(uptime: Duration, text: String) {
        #expect(HealthHandler.secondsWithMilliseconds(uptime) == text)
    }

    /// Only health probes (GET, which needs no control credentials) are answered on the event loop; HEAD
    /// and POST of the health path and every other request go to the workers.
    @Test func onlyHealthProbesAreAnsweredOnTheLoop() throws {
        let app = FakeEntraApplication(service: IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate())))
        #expect(app.responder.answersOnLoop(HTTPRequest(method: "GET", target: "/_fakeentra/health")))
        #expect(app.responder.answersOnLoop(HTTPRequest(method: "GET", target: "/_fakeentra/health?x=1")))
        for (method, target) in [("POST", "/_fakeentra/health"), ("HEAD", "/_fakeentra/health"), ("GET", "/_fakeentra/health/x"), ("GET", "/_fakeentra/journal"),
                                 ("GET", "/common/v2.0/.well-known/openid-configuration"), ("POST", "/common/oauth2/v2.0/token")] {
            #expect(!app.responder.answersOnLoop(HTTPRequest(method: method, target: target)), "\(method) \(target)")
        }
        #expect(!app.responder.answersOnLoop(HTTPRequest(method: "GET", target: "/_fakeentra/health", body: Array("{".utf8))),
                "a body goes the long way (the control API refuses one that is not JSON)")
        let probe = app.responder.respond(to: HTTPRequest(method: "GET", target: "/_fakeentra/health"), context: RequestContext(isSecure: false, localPort: 80))
        #expect(probe.status.code == 200)
    }
}
