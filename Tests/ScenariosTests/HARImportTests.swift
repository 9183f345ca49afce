import FakeEntraApp
import ExchangeKernel
import LocatedJSON
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
@testable import Scenarios

/// HAR captures written by hand from the documented real responses (Entra error bodies, Graph
/// throttling and CAE challenges, B2C redirects), with made-up personal data that must not survive.
@Suite struct HARImportTests {
    static let realTenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let realUser = "1b9e4c3a-2d7f-4e81-9a6c-5f0e8d2b7c14"
    static let clientID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"
    static let upn = "jdoe@northwindtraders.onmicrosoft.com"

    static func entry(_ method: String, _ url: String, status: Int, headers: [(String, String)] = [], body: String = "", postText: String? = nil, wait: Int = 120) -> String {
        let headerJSON = headers.map { "{\"name\": \(JSONValue.quoted($0.0)), \"value\": \(JSONValue.quoted($0.1))}" }.joined(separator: ",")
        let post = postText.map { ", \"postData\": {\"mimeType\": \"application/x-www-form-urlencoded\", \"text\": \(JSONValue.quoted($0))}" } ?? ""
        return """
        {"startedDateTime": "2025-03-04T10:15:00.000Z", "time": \(wait + 30),
         "request": {"method": "\(method)", "url": \(JSONValue.quoted(url)), "httpVersion": "HTTP/1.1", "headers": [{"name": "client-request-id", "value": "0e6b1d32-8a4c-4f5e-9b7a-1c2d3e4f5a6b"}], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1\(post)},
         "response": {"status": \(status), "statusText": "", "httpVersion": "HTTP/1.1", "headers": [\(headerJSON)], "cookies": [],
                      "content": {"size": \(body.utf8.count), "mimeType": "application/json", "text": \(JSONValue.quoted(body))}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
         "cache": {}, "timings": {"blocked": 1, "dns": 0, "connect": 0, "send": 1, "wait": \(wait), "receive": 2, "ssl": 0}}
        """
    }

    static var entraCapture: String {
        let refreshForm = "client_id=\(clientID)&grant_type=refresh_token&refresh_token=0.AXwAv4j5cvGGr0GRqy180BHbRw&scope=User.Read%20offline_access%20openid%20profile&client_info=1"
        let expired = #"{"error":"invalid_grant","error_description":"AADSTS700082: The refresh token has expired due to inactivity. The token was issued on 2024-11-01T09:12:44.1234567Z and was inactive for 90.00:00:00.\r\nTrace ID: 5d9a3c1e-7b2f-4a60-8e1d-3c4b5a697801\r\nCorrelation ID: 0e6b1d32-8a4c-4f5e-9b7a-1c2d3e4f5a6b\r\nTimestamp: 2025-03-04 10:15:00Z","error_codes":[700082],"timestamp":"2025-03-04 10:15:00Z","trace_id":"5d9a3c1e-7b2f-4a60-8e1d-3c4b5a697801","correlation_id":"0e6b1d32-8a4c-4f5e-9b7a-1c2d3e4f5a6b","error_uri":"https://login.microsoftonline.com/error?code=700082"}"#
        let clientInfo = Data(#"{"uid":"\#(realUser)","utid":"\#(realTenant)"}"#.utf8).base64EncodedString()
        let tokens = #"{"token_type":"Bearer","scope":"User.Read profile openid email","expires_in":4381,"ext_expires_in":4381,"access_token":"eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJvaWQiOiIxYjllNGMzYS0yZDdmLTRlODEtOWE2Yy01ZjBlOGQyYjdjMTQifQ.c2lnbmF0dXJl","refresh_token":"0.AXwAv4j5cvGGr0GRqy180BHbRwNEW","id_token":"eyJ0eXAiOiJKV1QifQ.eyJwcmVmZXJyZWRfdXNlcm5hbWUiOiJqZG9lQG5vcnRod2luZHRyYWRlcnMub25taWNyb3NvZnQuY29tIn0.","client_info":"\#(clientInfo)"}"#
        let throttled = #"{"error":{"code":"TooManyRequests","message":"Too many requests from Identifier:\#(realTenant)+\#(clientID) under category:throttle.graph. Please try again later.","innerError":{"date":"2025-03-04T10:16:02","request-id":"8c0f2a1b-3d4e-4f5a-9b6c-7d8e9f0a1b2c","client-request-id":"0e6b1d32-8a4c-4f5e-9b7a-1c2d3e4f5a6b"}}}"#
        let claims = Data(#"{"access_token":{"nbf":{"essential":true,"value":"1741083400"}}}"#.utf8).base64EncodedString()
        let challenge = #"Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000", error="insufficient_claims", claims="\#(claims)""#
        let caeBody = #"{"error":{"code":"InvalidAuthenticationToken","message":"Continuous access evaluation resulted in challenge with result: InteractionRequired and code: TokenIssuedBeforeRevocationTimestamp","innerError":{"date":"2025-03-04T10:17:00","request-id":"9d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a","client-request-id":"0e6b1d32-8a4c-4f5e-9b7a-1c2d3e4f5a6b"}}}"#
        let forbidden = #"{"error":{"code":"Authorization_RequestDenied","message":"Insufficient privileges to complete the operation. User \#(upn) from 203.0.113.77.","innerError":{"date":"2025-03-04T10:18:00","request-id":"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"}}}"#
        let entries = [
            entry("GET", "https://login.microsoftonline.com/common/discovery/instance?api-version=1.1&authorization_endpoint=https://login.microsoftonline.com/common/oauth2/v2.0/authorize", status: 200, body: "{}"),
            entry("GET", "https://cdn.example.net/app.js", status: 200),
            entry("POST", "https://login.microsoftonline.com/\(realTenant)/oauth2/v2.0/token", status: 400, body: expired, postText: refreshForm),
            entry("GET", "https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize?client_id=\(clientID)&response_type=code&login_hint=\(upn)&scope=User.Read", status: 302,
                  headers: [("Location", "msauth.com.northwind.app://auth?code=0.AXwA-secret-code&state=abc&client_info=\(clientInfo)")]),
            entry("POST", "https://login.microsoftonline.com/organizations/oauth2/v2.0/token", status: 200, body: tokens,
                  postText: "client_id=\(clientID)&grant_type=authorization_code&code=0.AXwA-secret-code&code_verifier=v&redirect_uri=msauth.com.northwind.app%3A%2F%2Fauth"),
            entry("GET", "https://graph.microsoft.com/v1.0/me", status: 429, headers: [("Retry-After", "3"), ("Content-Type", "application/json")], body: throttled, wait: 1500),
            entry("GET", "https://graph.microsoft.com/v1.0/me", status: 200, body: #"{"displayName":"Jane Doe","userPrincipalName":"\#(upn)"}"#),
            entry("GET", "https://graph.microsoft.com/v1.0/me/events", status: 401, headers: [("WWW-Authenticate", challenge)], body: caeBody),
            entry("POST", "https://login.microsoftonline.com/\(realTenant)/oauth2/v2.0/token", status: 503, headers: [("Retry-After", "7")], body: "", postText: refreshForm + "&claims=%7B%7D"),
            entry("POST", "https://login.microsoftonline.com/\(realTenant)/oauth2/v2.0/token", status: 0, body: "", postText: refreshForm),
            entry("GET", "https://graph.microsoft.com/v1.0/users/\(upn)/manager", status: 403, body: forbidden),
        ]
        return #"{"log": {"version": "1.2", "creator": {"name": "Proxyman", "version": "5.0"}, "entries": ["# + entries.joined(separator: ",\n") + "]}}"
    }

    @Test func entraCaptureBecomesAValidEditableScenario() throws {
        let text = try HARImporter.convert(har: Array(Self.entraCapture.utf8), name: "captured-refresh-failure", source: "refresh.har", routes: ApplicationRoutes.forRecordings)
        let scenario = try Harness.scenario(text, file: "captured-refresh-failure.json")
        // Ten Microsoft requests (the CDN one is ignored), each a rule matching the n-th request of its kind.
        #expect(scenario.rules.count == 10)
        #expect(scenario.rules.map { $0.match.nth } == [1, 1, 1, 1, 1, 2, 1, 2, 3, 1])
        #expect(scenario.rules[0].actions == [.passThrough])
        guard case .oauthError(let expired) = scenario.rules[1].actions.first else { Issue.record("rule 2: \(scenario.rules[1].actions)"); return }
        #expect(expired.error == "invalid_grant")
        #expect(expired.code == 700082)
        #expect(expired.message == "The refresh token has expired due to inactivity. The token was issued on 2024-11-01T09:12:44.1234567Z and was inactive for 90.00:00:00.")
        #expect(scenario.rules[1].match.grantTypes == ["refresh_token"])
        #expect(scenario.rules[2].actions == [.passThrough], "a successful /authorize is FakeEntra's to answer")
        #expect(scenario.rules[3].actions == [.passThrough], "successful token responses are re-minted, never copied")
        #expect(scenario.rules[4].actions == [.delay(milliseconds: 1500), .serviceError(ServiceErrorSpec(status: 429, retryAfter: 3))])
        #expect(scenario.rules[4].match.path?.source == "/v1.0/me")
        #expect(scenario.rules[6].actions == [.claimsChallenge(ClaimsChallengeSpec(claims: #"{"access_token":{"nbf":{"essential":true,"value":"1741083400"}}}"#))])
        #expect(scenario.rules[7].actions == [.serviceError(ServiceErrorSpec(status: 503, retryAfter: 7))])
        #expect(scenario.rules[8].actions == [.dropConnection])
        guard case .graphError(let forbidden) = scenario.rules[9].actions.first else { Issue.record("rule 10"); return }
        #expect(forbidden.status == 403)
        #expect(forbidden.code == "Authorization_RequestDenied")
    }

    /// The service joins the trace lines by single spaces since 2024 (recorded): they are left out as well.
    @Test func traceLinesJoinedBySpacesAreLeftOutOfTheMessage() throws {
        // The body is a string inside the HAR's JSON: its escaped CRLF is escaped once more there.
        let spaced = Self.entraCapture.replacingOccurrences(of: #"\\r\\n"#, with: " ")
        #expect(spaced != Self.entraCapture)
        let text = try HARImporter.convert(har: Array(spaced.utf8), name: "captured-refresh-failure", source: "refresh.har", routes: ApplicationRoutes.forRecordings)
        let scenario = try Harness.scenario(text, file: "captured-refresh-failure.json")
        guard case .oauthError(let expired) = scenario.rules[1].actions.first else { Issue.record("rule 2: \(scenario.rules[1].actions)"); return }
        #expect(expired.message == "The refresh token has expired due to inactivity. The token was issued on 2024-11-01T09:12:44.1234567Z and was inactive for 90.00:00:00.")
    }

    @Test func personalDataIsReplacedConsistently() throws {
        let text = try HARImporter.convert(har: Array(Self.entraCapture.utf8), name: "captured", source: "refresh.har", routes: ApplicationRoutes.forRecordings)
        for secret in [Self.realTenant, Self.realUser, Self.upn, "northwindtraders", "203.0.113.77", "Jane Doe", "0.AXwA-secret-code", "AXwAv4j5cvGGr0GRqy180BHbRw"] {
            #expect(!text.contains(secret), "\(secret) survived the import")
        }
        // The same user becomes the same demo user everywhere; the app's own client id is kept.
        #expect(text.contains("/v1.0/users/adele.vance@contoso.onmicrosoft.com/manager"))
        #expect(text.contains("User adele.vance@contoso.onmicrosoft.com from 192.0.2.1."))
        var anonymizer = Anonymizer(keeping: [Self.clientID])
        anonymizer.learn(tenantID: Self.realTenant)
        #expect(anonymizer.scrub("app \(Self.clientID) in \(Self.realTenant)") == "app \(Self.clientID) in \(Directory.contosoTenantID)")
        // Stable output: the same capture gives byte-identical files.
        #expect(try HARImporter.convert(har: Array(Self.entraCapture.utf8), name: "captured", source: "refresh.har", routes: ApplicationRoutes.forRecordings) == text)
    }

    @Test func replayedScenarioAnswersLikeTheCapture() throws {
        let text = try HARImporter.convert(har: Array(Self.entraCapture.utf8), name: "captured-refresh-failure", source: "refresh.har", routes: ApplicationRoutes.forRecordings)
        let scenario = try Harness.scenario(text)
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: scenario.name, to: .server)
        let signIn = harness.send(Harness.passwordGrant())
        #expect(signIn.status.code == 200, "a password grant is not in the capture: FakeEntra answers")
        let rt = try #require(Harness.body(signIn)["refresh_token"] as? String)
        let refresh = harness.send(Harness.refreshGrant(rt))
        #expect(refresh.status.code == 400)
        #expect((Harness.body(refresh)["error_description"] as? String)?.hasPrefix("AADSTS700082: The refresh token has expired due to inactivity. The token was issued on 2024-11-01T09:12:44.1234567Z") == true)
        let me = harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer x.y.z"]))
        #expect(me.status.code == 429)
        #expect(me.headers["Retry-After"] == "3")
        #expect(me.directives.delay == .milliseconds(1500))
        #expect((Harness.body(me)["error"] as? [String: Any])?["code"] as? String == "TooManyRequests")
    }

    @Test func b2cForgotPasswordRedirectBecomesAnOAuthError() throws {
        let description = "AADB2C90118: The user has forgotten their password.\r\nCorrelation ID: 3c2b1a09-8f7e-4d6c-b5a4-938271605f4e\r\nTimestamp: 2025-03-04 10:20:11Z\r\n"
        let location = "https://jwt.ms/#error=access_denied&error_description=" + FormCoding.encodeComponent(description) + "&state=xyz"
        let har = #"{"log": {"version": "1.2", "entries": ["# + Self.entry("GET", "https://northwindb2c.b2clogin.com/northwindb2c.onmicrosoft.com/B2C_1_signupsignin/oauth2/v2.0/authorize?client_id=\(Self.clientID)&response_type=code&scope=openid", status: 302, headers: [("Location", location)]) + "]}}"
        let text = try HARImporter.convert(har: Array(har.utf8), name: "b2c-captured", source: "b2c.har", routes: ApplicationRoutes.forRecordings)
        let scenario = try Harness.scenario(text)
        #expect(scenario.rules.count == 1)
        #expect(scenario.rules[0].match.policy == "B2C_1_signupsignin")
        #expect(scenario.rules[0].match.endpoints == [.authorize])
        guard case .oauthError(let spec) = scenario.rules[0].actions.first else { Issue.record("\(scenario.rules[0].actions)"); return }
        #expect(spec.family == .aadb2c)
        #expect(spec.code == 90118)
        #expect(spec.error == "access_denied")
        #expect(spec.message == "The user has forgotten their password.")
        #expect(!text.contains("northwindb2c.onmicrosoft.com"))
    }

    @Test func notAHARFileIsAClearError() {
        #expect(throws: HARImportError.self) { try HARImporter.convert(har: Array("[1,2]".utf8), name: "x", routes: ApplicationRoutes.forRecordings) }
        #expect(throws: HARImportError.self) { try HARImporter.convert(har: Array(#"{"log":{"entries":[]}}"#.utf8), name: "x", routes: ApplicationRoutes.forRecordings) }
        #expect(throws: HARImportError.self) { try HARImporter.convert(har: Array(Self.entraCapture.utf8), name: "Not Kebab", routes: ApplicationRoutes.forRecordings) }
    }
}

@Suite struct HARNamingTests {
    @Test func scenarioNamesComeFromFileNames() {
        #expect(HARImporter.scenarioName(fromFile: "/tmp/Sign-in Failure (2).har") == "sign-in-failure-2")
        #expect(HARImporter.scenarioName(fromFile: "captures/login.microsoftonline.com_Archive [25-03-04].har") == "login-microsoftonline-com-archive-25-03-04")
        #expect(HARImporter.scenarioName(fromFile: "___.har") == "replayed-capture")
    }
}
