@testable import Journal
import B2C
import EntraCrypto
import EntraHTTP
import Foundation
import Graph
import ExchangeKernel
import IdentityPlatform
import Scenarios
import Testing
@testable import FakeEntraApp
import LocatedJSON

/// One application, routed once: the route it works out, the facts scenario rules see, the journal's kind
/// and the handler that answers agree; and every exchange's receipt says what the platform did.
@Suite struct ExchangeReceiptTests {
    static let webApp = "5a0c9d8e-7f6b-4a3c-9d2e-1b0a9f8e7d6c"
    static let webSecret = "Qx8~webSecret.Value_0123"
    static let nativeApp = "7d2c4e9a-1b3f-4a5c-8e6d-0f9a8b7c6d5e"
    static let redirect = "http://localhost/callback"
    static let context = ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 443)

    let app: FakeEntraApplication

    init() throws {
        var directory = Directory.embeddedDefault
        directory.applications.append(Application(clientID: Self.webApp, displayName: "Web", isPublicClient: false,
                                                  secrets: [.init(value: Self.webSecret)], redirectURIs: [Self.redirect]))
        directory.applications.append(Application(clientID: Self.nativeApp, displayName: "Native", redirectURIs: [Self.redirect]))
        let service = IdentityService(directory: directory, keys: SigningKeyRing(current: try SigningCredential.generate()),
                                      clock: VirtualClock(frozenAt: Date(timeIntervalSince1970: 1_900_000_000)))
        let shipped = try ScenarioLibrary.shipped()
        app = FakeEntraApplication(service: service, scenarios: shipped)
    }

    static func request(_ method: String, _ target: String, host: String = "login.fake.test", form: [(String, String)]? = nil) -> HTTPRequest {
        var headers: HTTPHeaders = ["Host": host]
        if form != nil { headers.set("Content-Type", "application/x-www-form-urlencoded") }
        return HTTPRequest(method: method, target: target, headers: headers, body: Array((form.map { FormParameters($0).encoded } ?? "").utf8))
    }

    /// The response and the journal's entry for it.
    func send(_ request: HTTPRequest) -> (HTTPResponse, JournalEntry?) {
        let before = app.journal.entries(matching: .init()).last?.id ?? 0
        let response = app.responder.respond(to: request, context: Self.context)
        return (response, app.journal.entries(matching: .init()).last.flatMap { $0.id > before ? $0 : nil })
    }

    static let authorizeQuery = "client_id=\(nativeApp)&response_type=code&redirect_uri=\(FormCoding.encodeComponent(redirect))&scope=openid"

    // MARK: One route

    @Test func policyQueryOnAnEntraTenantIsEntrasEverywhere() {
        let request = Self.request("GET", "/contoso.onmicrosoft.com/oauth2/v2.0/authorize?p=B2C_1_susi&\(Self.authorizeQuery)")
        let route = app.routes.route(request)
        #expect(route == .service(EntraRoute(tenantSegment: "contoso.onmicrosoft.com", endpoint: .authorize(.v2))))
        let facts = RequestFacts(request, route: route)
        #expect(!facts.isB2C && facts.kind == .authorize && facts.policy == nil)
        let (response, entry) = send(request)
        #expect(entry?.kind == "authorize")
        #expect(!response.bodyText.contains("AADB2C"), "Entra answered, not B2C")
    }

    @Test func policyQueryOnTheB2CTenantIsB2CsEverywhere() {
        let request = Self.request("GET", "/fabrikamb2c.onmicrosoft.com/v2.0/.well-known/openid-configuration?p=B2C_1_susi")
        let route = app.routes.route(request)
        #expect(route.isB2C && route.policy == "B2C_1_susi" && route.tenantSegment == "fabrikamb2c.onmicrosoft.com")
        let facts = RequestFacts(request, route: route)
        #expect(facts.isB2C && facts.kind == .metadata && facts.policy == "B2C_1_susi")
        let (response, entry) = send(request)
        #expect(entry?.kind == "b2c")
        #expect(response.status.code == 200 && response.bodyText.contains("b2c_1_susi"), "B2C's metadata names the policy")
    }

    @Test func theGraphHostIsGraphsOptionNotAConstant() throws {
        var options = GraphOptions()
        options.graphHosts = ["graph.contoso.test"]
        let routes = ApplicationRoutes.resolver(graphHosts: options.graphHosts)
        let ours = Self.request("GET", "/me", host: "graph.contoso.test")
        guard let route = routes.route(ours).typed(GraphRoute.self) else { Issue.record("not Graph's: \(routes.route(ours))"); return }
        #expect(route.endpointName == "me" || route == .invalidVersion("me"))
        #expect(RequestFacts(ours, route: routes.route(ours)).kind == .graph)
        // Not a Graph host under these options: the same path is nobody's, for the router, the rules and Graph alike.
        let theirs = Self.request("GET", "/me", host: "graph.microsoft.com")
        #expect(routes.route(theirs) == .unrouted)
        #expect(RequestFacts(theirs, route: routes.route(theirs)).kind == .other)
    }

    @Test func consoleAndControlAreRoutedBeforeTheRest() {
        #expect(app.routes.route(Self.request("GET", "/")) == .console)
        #expect(app.routes.route(Self.request("GET", "/_fakeentra/console/journal")) == .console)
        #expect(app.routes.route(Self.request("GET", "/_fakeentra/journal")) == .control)
        if app.routes.route(Self.request("GET", "/", host: "graph.microsoft.com")).service != .graph {
            Issue.record("`/` on Graph's host is Graph's")
        }
    }

    // MARK: Receipts

    @Test func aTokenResponsesReceiptNamesTheTokenNotItsText() throws {
        let (response, entry) = send(Self.request("POST", "/contoso.onmicrosoft.com/oauth2/v2.0/token", form: [
            ("grant_type", "client_credentials"), ("client_id", Self.webApp), ("client_secret", Self.webSecret),
            ("scope", "https://graph.microsoft.com/.default"),
        ]))
        #expect(response.status.code == 200)
        let token = try #require((try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["access_token"] as? String)
        let receipt = try #require(entry?.receipt)
        #expect(receipt.tokens.count == 1)
        let issued = try #require(receipt.tokens.first)
        #expect(issued.kind == .access && issued.id == Receipt.handleID(token) && issued.clientID == Self.webApp)
        #expect(issued.keyID == app.service.keys.current.keyID && ["https://graph.microsoft.com", "00000003-0000-0000-c000-000000000000"].contains(issued.audience ?? ""))
        #expect(issued.expiresAt != nil && receipt.error == nil && receipt.secrets.isEmpty, "the journal keeps no secret")
        let json = try #require(entry?.value.compactText)
        #expect(json.contains("\"receipt\":{\"tokens\":[{\"kind\":\"access\",\"id\":\"\(issued.id)\""))
        #expect(!json.contains(token))
    }

    @Test func anErrorAnsweredIsInTheReceipt() throws {
        let (_, entry) = send(Self.request("POST", "/contoso.onmicrosoft.com/oauth2/v2.0/token", form: [
            ("grant_type", "client_credentials"), ("client_id", Self.webApp), ("client_secret", "wrong"),
            ("scope", "https://graph.microsoft.com/.default"),
        ]))
        #expect(entry?.receipt.error == "AADSTS7000215")
        #expect(entry?.receipt.tokens.isEmpty == true)
    }

    /// The token answer notes what it granted as it renders it; the journal keeps the form's pairs redacted.
    @Test func aTokenAnswersFactsAreInTheReceipt() throws {
        let (response, entry) = send(Self.request("POST", "/contoso.onmicrosoft.com/oauth2/v2.0/token", form: [
            ("grant_type", "client_credentials"), ("client_id", Self.webApp), ("client_secret", Self.webSecret),
            ("scope", "https://graph.microsoft.com/.default"),
        ]))
        #expect(response.status.code == 200)
        let answer = try #require(entry?.receipt.answer)
        #expect(answer == Receipt.Answer(expiresIn: Int(app.service.options.accessTokenLifetime)), "app-only: no scope, no refresh token")
        #expect(entry?.requestForm.first { $0.0 == "grant_type" }?.1 == "client_credentials")
        #expect(entry?.requestForm.first { $0.0 == "client_secret" }?.1.hasPrefix("[redacted") == true)
    }

    @Test func anOAuthErrorsFactsAreInTheReceipt() throws {
        let (_, entry) = send(Self.request("POST", "/contoso.onmicrosoft.com/oauth2/v2.0/token", form: [
            ("grant_type", "client_credentials"), ("client_id", Self.webApp), ("client_secret", "wrong"),
            ("scope", "https://graph.microsoft.com/.default"),
        ]))
        let answer = try #require(entry?.receipt.answer)
        #expect(answer.error == "invalid_client" && answer.errorCodes == [7000215])
        #expect(entry?.value.compactText.contains(#""answer":{"error":"invalid_client","errorCodes":[7000215]"#) == true)
    }

    /// An /authorize error sent back to the app is read from the redirect's `Location`.
    @Test func aRedirectsErrorIsInTheReceipt() throws {
        let (response, entry) = send(Self.request("GET", "/organizations/oauth2/v2.0/authorize?\(Self.authorizeQuery)&prompt=none&state=s1"))
        #expect(response.status.code == 302, "prompt=none without a session: login_required sent to the app")
        let redirect = try #require(entry?.receipt.answer.redirectError)
        #expect(redirect.error == "login_required" && redirect.errorDescription?.hasPrefix("AADSTS50058:") == true)
    }

    @Test func theSignInPageIsAFlowStep() throws {
        let (response, entry) = send(Self.request("GET", "/organizations/oauth2/v2.0/authorize?\(Self.authorizeQuery)"))
        #expect(response.status.code == 200)
        let flow = try #require(entry?.receipt.flow)
        #expect(flow.step == "sign_in" && response.bodyText.contains("value=\"\(flow.id)\""))
        #expect(entry?.value.compactText.contains("\"flow\":{\"id\":\"\(Receipt.handleID(flow.id))\",\"step\":\"sign_in\"}") == true)
    }

    @Test func aWrongPasswordOnThePageIsTheAnswersError() throws {
        let (_, page) = send(Self.request("GET", "/organizations/oauth2/v2.0/authorize?\(Self.authorizeQuery)"))
        let flow = try #require(page?.receipt.flow)
        let (response, entry) = send(Self.request("POST", "/organizations/oauth2/v2.0/authorize", form: [
            ("ctx", flow.id), ("login", "adele.vance@contoso.onmicrosoft.com"), ("passwd", "not her password"),
        ]))
        #expect(response.status.code == 200)
        #expect(entry?.receipt.error == "AADSTS50126" && entry?.receipt.flow == Receipt.FlowStep(id: flow.id, step: "sign_in"))
    }

    @Test func aRuleThatFiredIsInTheReceiptAndTheRolledKeySignsFromTheSpare() throws {
        try app.engine.bind(scenario: "signing-key-rollover", to: .server)
        app.engine.spareKey.waitUntilPrepared()
        #expect(app.engine.spareKey.isReady, "binding a scenario that rolls the key makes the next key ahead")
        let form = [("grant_type", "client_credentials"), ("client_id", Self.webApp), ("client_secret", Self.webSecret), ("scope", "https://graph.microsoft.com/.default")]
        let (_, first) = send(Self.request("POST", "/contoso.onmicrosoft.com/oauth2/v2.0/token", form: form))
        let (_, second) = send(Self.request("POST", "/contoso.onmicrosoft.com/oauth2/v2.0/token", form: form))
        #expect(first?.receipt.rules.isEmpty == true)
        #expect(second?.receipt.rules == [Receipt.FiredRule(scenario: "signing-key-rollover", index: 0)])
        let before = try #require(first?.receipt.tokens.first?.keyID)
        let after = try #require(second?.receipt.tokens.first?.keyID)
        #expect(before != after)
    }
}
