import EntraCrypto
import EntraHTTP
import FakeEntraApp
import Foundation
import ExchangeKernel
import IdentityPlatform
import Scenarios

/// The assembled application in-process (console in front, as `serve` runs it), on a frozen clock.
struct ConsoleHarness {
    static let credential: SigningCredential = try! SigningCredential.generate()
    static let host = "login.fake.test"
    static let adele = "adele.vance@contoso.onmicrosoft.com"
    static let alex = "alex.wilber@contoso.onmicrosoft.com"
    static let hostile = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>"
    static let hostileUPN = "x\"><svg onload=alert(3)>@contoso.onmicrosoft.com"

    let application: FakeEntraApplication

    init(secret: String? = nil) {
        var directory = Directory.embeddedDefault
        directory.users.append(DirectoryUser(id: "0b9a2c1e-7d6f-4e5a-9b8c-1d2e3f4a5b6c", tenantID: "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70",
                                             userPrincipalName: Self.hostileUPN, displayName: Self.hostile, password: Directory.demoPassword))
        directory.applications.append(Application(clientID: "a0b1c2d3-0000-4000-8000-000000000001", displayName: Self.hostile,
                                                  redirectURIs: ["http://localhost/<b>"]))
        var options = IdentityOptions()
        options.autoLogin = true
        let service = IdentityService(directory: directory, keys: SigningKeyRing(current: Self.credential),
                                      clock: VirtualClock(frozenAt: Date(timeIntervalSince1970: 1_900_000_000)), options: options)
        let library = (try? ScenarioLibrary.shipped(baseDirectory: directory)) ?? ScenarioLibrary()
        application = FakeEntraApplication(service: service, scenarios: library,
                                           scenarioOptions: ScenarioEngineOptions(controlSecret: secret, frozenClocks: true))
    }

    func send(_ request: HTTPRequest, from address: String = "127.0.0.1") -> HTTPResponse {
        application.responder.respond(to: request, context: ConnectionFacts(remoteAddress: address, isSecure: true, localPort: 443))
    }

    func get(_ target: String, headers: HTTPHeaders = [:], from address: String = "127.0.0.1") -> HTTPResponse {
        var h = headers
        h.set("Host", Self.host)
        return send(HTTPRequest(method: "GET", target: target, headers: h), from: address)
    }

    func post(_ target: String, form: [(String, String)], headers: HTTPHeaders = [:], from address: String = "127.0.0.1") -> HTTPResponse {
        var h = headers
        h.set("Host", Self.host)
        h.set("Content-Type", "application/x-www-form-urlencoded")
        return send(HTTPRequest(method: "POST", target: target, headers: h, body: Array(FormParameters(form).encoded.utf8)), from: address)
    }

    func postJSON(_ target: String, _ body: String, headers: HTTPHeaders = [:], from address: String = "127.0.0.1") -> HTTPResponse {
        var h = headers
        h.set("Host", Self.host)
        h.set("Content-Type", "application/json")
        return send(HTTPRequest(method: "POST", target: target, headers: h, body: Array(body.utf8)), from: address)
    }

    /// A password grant: the shortest way to a journal entry with an id token and an access token.
    @discardableResult
    func signIn(_ user: String = adele, client: String = "11111111-2222-4333-8444-555555555555", password: String = Directory.demoPassword) -> HTTPResponse {
        post("/organizations/oauth2/v2.0/token", form: [("grant_type", "password"), ("client_id", client), ("username", user),
                                                        ("password", password), ("scope", "User.Read openid profile offline_access")])
    }

    /// The form-guard token a console page hands out.
    static func csrf(in page: String) -> String? {
        guard let range = page.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    static func json(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }
}
