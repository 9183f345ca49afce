@testable import Journal
import FakeEntraApp
import Conformance
import ControlPlane
import EntraCrypto
import EntraHTTP
import Foundation
import Graph
import B2C
import ResourceManager
import ManagedIdentity
import ExchangeKernel
import IdentityPlatform
import LocatedJSON
@testable import Scenarios
import Synchronization

/// A server without sockets: the real platform chain behind the scenario engine, a frozen clock.
final class Harness: Sendable {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)
    static let credential: SigningCredential = try! SigningCredential.generate()
    static let nativeApp = "7f8e9d0c-1b2a-4c3d-8e4f-5a6b7c8d9e0f"
    static let otherApp = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    static let redirect = "msauth.com.contoso.mobile://auth"
    static let adele = "adele.vance@contoso.onmicrosoft.com"
    static let alex = "alex.wilber@contoso.onmicrosoft.com"
    static let host = "login.fake.test"

    let service: IdentityService
    let clock: VirtualClock
    let engine: ScenarioEngine
    let responder: ExchangeStack
    let probe = DirectivesProbe()
    let journal = RequestJournal()

    init(scenarios: [Scenario] = [], options: ScenarioEngineOptions = .init(frozenClocks: true), identityOptions: IdentityOptions = Harness.defaultOptions) {
        clock = VirtualClock(frozenAt: Self.start)
        var directory = Directory.embeddedDefault
        directory.applications = [
            Application(clientID: Self.nativeApp, displayName: "Contoso Mobile", redirectURIs: [Self.redirect],
                        requiredResourceAccess: [.init(resource: "https://graph.microsoft.com", scopes: ["User.Read", "Calendars.Read"])]),
            Application(clientID: Self.otherApp, displayName: "Contoso Desktop", redirectURIs: ["http://localhost"],
                        requiredResourceAccess: [.init(resource: "https://graph.microsoft.com", scopes: ["User.Read"])]),
        ]
        service = IdentityService(directory: directory, keys: SigningKeyRing(current: Self.credential), clock: clock, options: identityOptions)
        let probe = probe
        engine = ScenarioEngine(service: service, library: ScenarioLibrary(scenarios), options: options) { service in
            WorldRouter([Probed<EntraRoute>(probe: probe, inner: EntraHandler(service: service)),
                         Probed<GraphRoute>(probe: probe, inner: GraphHandler(service: service)),
                         Probed<B2CRoute>(probe: probe, inner: B2CHandler(service: service)),
                         Probed<ResourceManagerRoute>(probe: probe, inner: ResourceManagerHandler(service: service)),
                         Probed<ManagedIdentityRoute>(probe: probe, inner: ManagedIdentityHandler(service: service))])
        }
        let health = HealthEndpoint(version: "test", durability: service.durability)
        let control = ControlPlane(access: ControlAccess(secret: options.controlSecret), commands: ControlCommands(engine: engine, ledger: TokenLedger()),
                                   health: health, journal: journal, conformance: ConformanceSessions(engine: engine, journal: journal, b2c: nil), serverVersion: "test")
        responder = ExchangeStack([HealthProbe(health), control, ScenarioLayer(engine: engine)], routes: Self.routes)
    }

    /// As the application routes: fabrikamb2c is the B2C tenant (the engine answers its policies here).
    static let routes = ApplicationRoutes.resolver(b2c: B2CRoutes(isB2CTenant: { $0.lowercased().hasPrefix("fabrikamb2c") }))

    static var defaultOptions: IdentityOptions {
        var options = IdentityOptions()
        options.autoLogin = true
        return options
    }

    func send(_ request: HTTPRequest, from address: String = "127.0.0.1") -> HTTPResponse {
        responder.respond(to: request, context: ConnectionFacts(remoteAddress: address, isSecure: true, localPort: 443))
    }

    // MARK: Requests

    static func post(_ path: String, _ form: [(String, String)], headers: HTTPHeaders = [:]) -> HTTPRequest {
        var h = headers
        h.set("Host", host)
        h.set("Content-Type", "application/x-www-form-urlencoded")
        return HTTPRequest(method: "POST", target: path, headers: h, body: Array(FormParameters(form).encoded.utf8))
    }

    static func get(_ target: String, headers: HTTPHeaders = [:]) -> HTTPRequest {
        var h = headers
        h.set("Host", host)
        return HTTPRequest(method: "GET", target: target, headers: h)
    }

    static func json(_ method: String, _ path: String, _ body: String = "", headers: HTTPHeaders = [:]) -> HTTPRequest {
        var h = headers
        h.set("Host", host)
        h.set("Content-Type", "application/json")
        return HTTPRequest(method: method, target: path, headers: h, body: Array(body.utf8))
    }

    /// Resource owner password grant: the shortest way to a refresh token.
    static func passwordGrant(client: String = nativeApp, user: String = adele, scope: String = "User.Read offline_access openid profile", tenant: String = "organizations") -> HTTPRequest {
        post("/\(tenant)/oauth2/v2.0/token", [("grant_type", "password"), ("client_id", client), ("username", user), ("password", Directory.demoPassword), ("scope", scope), ("client_info", "1")])
    }

    static func refreshGrant(_ token: String, client: String = nativeApp, scope: String = "User.Read offline_access openid profile", tenant: String = "organizations") -> HTTPRequest {
        post("/\(tenant)/oauth2/v2.0/token", [("grant_type", "refresh_token"), ("client_id", client), ("refresh_token", token), ("scope", scope), ("client_info", "1")])
    }

    static let verifier = "verifier-0123456789-0123456789-0123456789-0123456789"

    static func authorize(client: String = nativeApp, user: String = adele, scope: String = "User.Read openid profile offline_access", tenant: String = "organizations", extra: [(String, String)] = []) -> HTTPRequest {
        var query: [(String, String)] = [("client_id", client), ("response_type", "code"), ("redirect_uri", redirect), ("scope", scope),
                                         ("state", "s-1"), ("login_hint", user), ("code_challenge", PKCE.challenge(for: verifier, method: .s256)),
                                         ("code_challenge_method", "S256"), ("client_info", "1")]
        query += extra
        return get("/\(tenant)/oauth2/v2.0/authorize?" + FormParameters(query).encoded)
    }

    /// /authorize (auto-login) then the code redeemed: the tokens an interactive sign-in ends with.
    func interactiveSignIn(scope: String = "User.Read openid profile offline_access", extra: [(String, String)] = []) -> [String: Any] {
        let authorize = send(Self.authorize(scope: scope, extra: extra))
        guard let code = Self.redirectParameters(authorize)["code"] else { return [:] }
        let redeem = send(Self.post("/organizations/oauth2/v2.0/token", [
            ("grant_type", "authorization_code"), ("client_id", Self.nativeApp), ("code", code), ("redirect_uri", Self.redirect),
            ("code_verifier", Self.verifier), ("scope", scope), ("client_info", "1"),
        ]))
        return Self.body(redeem)
    }

    static func body(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    static func redirectParameters(_ response: HTTPResponse) -> FormParameters {
        guard let location = response.headers["Location"], let q = location.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return FormParameters() }
        return FormParameters(decoding: String(location[location.index(after: q)...]))
    }

    static func claims(_ jwt: String?) -> [String: Any] {
        guard let jwt, let decoded = JWS.decode(jwt) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(decoded.payloadJSON)) as? [String: Any]) ?? [:]
    }

    /// A scenario from JSON text, failing the test with the report when it does not load.
    static func scenario(_ text: String, file: String = "inline.json") throws -> Scenario {
        switch ScenarioLibrary.parse(Array(text.utf8), file: file) {
        case .success(let scenario): return scenario
        case .failure(let problems): throw problems
        }
    }
}

/// Records the directives each request reached a world's service under.
final class DirectivesProbe: Sendable {
    private let seen = Mutex<[ScenarioDirectives]>([])

    func record(_ directives: ScenarioDirectives) { seen.withLock { $0.append(directives) } }

    var last: ScenarioDirectives? { seen.withLock { $0.last } }
    var count: Int { seen.withLock { $0.count } }
}


/// A world's service with the probe in front of it; without a service, the world router's 404. The probe
/// sees the requests the service works on: one a rule answered, the service only renders.
struct Probed<Route: ServiceRoute>: ExchangeHandler {
    let probe: DirectivesProbe
    let inner: (any ExchangeHandler<Route>)?

    func handle(_ request: HTTPRequest, route: Route, context: ExchangeContext) -> HTTPResponse {
        if context.directives.answer == nil { probe.record(context.directives) }
        return inner?.handle(request, route: route, context: context) ?? WorldRouter.notFound(request, context)
    }
}
