@testable import Journal
import EntraHTTP
import Foundation
import Testing
@testable import B2C
import ExchangeKernel
import IdentityPlatform
import EntraCrypto

@Suite struct B2CRoutingTests {
    func route(_ target: String) -> B2CRoute? {
        B2CRoute.parse(HTTPRequest(method: "GET", target: target), isB2CTenant: { B2CConfiguration.embeddedDefault.matchesTenant($0) })
    }

    @Test func everyAuthorityFormIsRecognised() {
        #expect(route("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/authorize") == B2CRoute(tenantSegment: "fabrikamb2c.onmicrosoft.com", policySegment: "B2C_1_susi", endpoint: .authorize, form: .trustFrameworkPolicy))
        #expect(route("/fabrikamb2c.onmicrosoft.com/b2c_1_susi/oauth2/v2.0/token") == B2CRoute(tenantSegment: "fabrikamb2c.onmicrosoft.com", policySegment: "b2c_1_susi", endpoint: .token, form: .policyPath))
        #expect(route("/fabrikamb2c.onmicrosoft.com/B2C_1A_SignUp_SignIn/v2.0/.well-known/openid-configuration")?.endpoint == .metadata)
        #expect(route("/fabrikamb2c.onmicrosoft.com/oauth2/v2.0/authorize?p=B2C_1_susi&client_id=x") == B2CRoute(tenantSegment: "fabrikamb2c.onmicrosoft.com", policySegment: "B2C_1_susi", endpoint: .authorize, form: .policyQuery))
        #expect(route("/fabrikamb2c.onmicrosoft.com/B2C_1_susi/discovery/v2.0/keys")?.endpoint == .keys)
        #expect(route("/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/logout")?.endpoint == .logout)
    }

    @Test func entraPathsAreNotTaken() {
        #expect(route("/contoso.onmicrosoft.com/oauth2/v2.0/authorize?p=B2C_1_susi") == nil)
        #expect(route("/common/oauth2/v2.0/authorize") == nil)
        #expect(route("/fabrikamb2c.onmicrosoft.com/oauth2/v2.0/authorize") == nil)
        #expect(route("/fabrikamb2c.onmicrosoft.com/signin_policy/oauth2/v2.0/authorize") == nil)
        #expect(route("/fabrikamb2c.onmicrosoft.com/B2C_1_susi/unknown") == nil)
    }

    @Test func entraRequestsStillReachTheEntraHandlerBehindB2C() {
        let browser = B2CBrowser()
        let response = browser.get("/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration")
        #expect(response.status.code == 200)
        #expect(response.bodyText.contains("\"issuer\":\"https://login.fakeentra.test:8443/\(Directory.contosoTenantID)/v2.0\""))
    }

    @Test(arguments: [
        "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi",
        "/fabrikamb2c.onmicrosoft.com/b2c_1_SUSI",
        "/\(B2CConfiguration.defaultTenantID)/B2C_1_susi",
        "/fabrikamb2c/B2C_1_susi",
    ])
    func signInWorksThroughEveryForm(authority: String) throws {
        let browser = B2CBrowser()
        let tokens = try browser.signInAndRedeem(authority: authority)
        #expect(try tokens.idToken["tfp"] as? String == "B2C_1_susi")
    }

    @Test func queryParameterPolicyFormSignsIn() throws {
        let browser = B2CBrowser()
        let authority = "/fabrikamb2c.onmicrosoft.com"
        let start = browser.get(browser.authorizeURL(authority: authority, extra: [("p", "B2C_1_susi")]))
        let form = try #require(ScrapedPage(start.bodyText).form("localAccountForm"))
        #expect(form.action == "/fabrikamb2c.onmicrosoft.com/oauth2/v2.0/authorize?p=b2c_1_susi")
        let code = try #require(browser.code(from: browser.signIn(start)))
        let response = browser.post("/fabrikamb2c.onmicrosoft.com/oauth2/v2.0/token?p=B2C_1_susi", [
            ("client_id", B2CFixtures.clientID), ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", B2CFixtures.redirectURI), ("code_verifier", B2CFixtures.verifier),
        ])
        #expect(response.status.code == 200)
    }

    @Test func b2cloginHostNamesTheIssuer() throws {
        let browser = B2CBrowser(host: "fabrikamb2c.b2clogin.com")
        let metadata = browser.get("/fabrikamb2c.onmicrosoft.com/B2C_1_susi/v2.0/.well-known/openid-configuration")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(metadata.body)) as? [String: Any])
        #expect(json["issuer"] as? String == "https://fabrikamb2c.b2clogin.com/\(B2CFixtures.tenantID)/v2.0/")
        let tokens = try browser.signInAndRedeem(authority: "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi")
        #expect(try tokens.idToken["iss"] as? String == "https://fabrikamb2c.b2clogin.com/\(B2CFixtures.tenantID)/v2.0/")
        #expect(try tokens.accessToken["iss"] as? String == "https://fabrikamb2c.b2clogin.com/\(B2CFixtures.tenantID)/v2.0/")
    }

    @Test func metadataHasTheServiceShape() throws {
        let browser = B2CBrowser()
        let response = browser.get("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_Edit_Profile/v2.0/.well-known/openid-configuration")
        #expect(response.status.code == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let base = "https://login.fakeentra.test:8443/tfp/fabrikamb2c.onmicrosoft.com/b2c_1_edit_profile"
        #expect(json["issuer"] as? String == "https://login.fakeentra.test:8443/\(B2CFixtures.tenantID)/v2.0/")
        #expect(json["authorization_endpoint"] as? String == "\(base)/oauth2/v2.0/authorize")
        #expect(json["token_endpoint"] as? String == "\(base)/oauth2/v2.0/token")
        #expect(json["end_session_endpoint"] as? String == "\(base)/oauth2/v2.0/logout")
        #expect(json["jwks_uri"] as? String == "\(base)/discovery/v2.0/keys")
        let claims = try #require(json["claims_supported"] as? [String])
        for claim in ["emails", "tfp", "newUser", "oid", "sub", "name", "given_name", "family_name", "nonce", "auth_time"] {
            #expect(claims.contains(claim), "\(claim) missing")
        }
        #expect(json["response_modes_supported"] as? [String] == ["query", "fragment", "form_post"])
        #expect(json["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
    }

    @Test func metadataWithThePolicyQueryKeepsIt() throws {
        let browser = B2CBrowser()
        let response = browser.get("/fabrikamb2c.onmicrosoft.com/v2.0/.well-known/openid-configuration?p=B2C_1_susi")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(json["token_endpoint"] as? String == "https://login.fakeentra.test:8443/fabrikamb2c.onmicrosoft.com/oauth2/v2.0/token?p=b2c_1_susi")
    }

    @Test func keysListTheSigningKey() throws {
        let browser = B2CBrowser()
        let response = browser.get("/fabrikamb2c.onmicrosoft.com/b2c_1_susi/discovery/v2.0/keys")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let keys = try #require(json["keys"] as? [[String: Any]])
        #expect(keys.map { $0["kid"] as? String } == [B2CFixtures.keys.current.keyID])
        #expect(keys.first?["kty"] as? String == "RSA")
    }

    @Test func unknownTenantAndUnknownUserFlowAreB2CErrors() {
        let browser = B2CBrowser()
        let tenant = browser.get("/tfp/nowhere.onmicrosoft.com/B2C_1_susi/v2.0/.well-known/openid-configuration")
        #expect(tenant.status.code == 404)
        #expect(tenant.bodyText.contains("AADB2C90002"))

        let strict = B2CBrowser(options: { var o = IdentityOptions(); o.strict = true; return o }())
        let unknown = strict.get("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_nothing/v2.0/.well-known/openid-configuration")
        #expect(unknown.status.code == 404)
        #expect(unknown.bodyText.contains("AADB2C90022"))
        // Custom policies are accepted in both modes; an unconfigured user flow does not exist in either,
        // lenient mode included (no metadata answered 200 for it).
        #expect(strict.get("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1A_signup_signin/v2.0/.well-known/openid-configuration").status.code == 200)
        for path in ["/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_nothing/v2.0/.well-known/openid-configuration",
                     "/fabrikamb2c.onmicrosoft.com/B2C_1_nothing/v2.0/.well-known/openid-configuration",
                     "/fabrikamb2c.onmicrosoft.com/v2.0/.well-known/openid-configuration?p=B2C_1_nothing"] {
            let lenient = browser.get(path)
            #expect(lenient.status.code == 404, "\(path)")
            #expect(lenient.bodyText.contains("AADB2C90022"), "\(path)")
            #expect(lenient.bodyText.contains("B2C_1_nothing"), "\(path)")
        }
    }

    @Test func tokenEndpointAnswersCORSForSinglePageApps() {
        let browser = B2CBrowser()
        let preflight = browser.send(HTTPRequest(method: "OPTIONS", target: "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/token",
                                                 headers: ["Host": browser.host, "Origin": "https://spa.example", "Access-Control-Request-Method": "POST"]))
        #expect(preflight.status.code == 200)
        // Entra's token endpoint as recorded (any origin); B2C's shares its answer.
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "*")
        let post = browser.post("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/token", [("grant_type", "password")], headers: ["Origin": "https://spa.example"])
        #expect(post.headers["Access-Control-Allow-Origin"] == "*")
    }

    @Test func tokenEndpointWantsPost() {
        let browser = B2CBrowser()
        let response = browser.get("/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/token")
        #expect(response.status.code == 405)
        #expect(response.bodyText.contains("AADB2C90226"))
    }
}

@Suite struct B2CMalformedInputTests {
    @Test(arguments: [
        "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/authorize",
        "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/authorize?client_id=",
        "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/authorize?client_id=%ZZ&redirect_uri=%00",
        "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/authorize?ctx=nope&action=signin",
        "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/authorize?ctx=&action=",
        "/tfp/%2F%2F/B2C_1_susi/v2.0/.well-known/openid-configuration",
        "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_%F0%9F%98%80/v2.0/.well-known/openid-configuration",
        "/fabrikamb2c.onmicrosoft.com/b2c_1a_x/oauth2/v2.0/logout?post_logout_redirect_uri=%3A%3A",
        "/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/logout?post_logout_redirect_uri=http%3A%2F%2F",
    ])
    func oddRequestsGetAnAnswerInB2CFormat(target: String) {
        let browser = B2CBrowser()
        let response = browser.get(target)
        #expect((200..<500).contains(response.status.code))
        #expect(response.status.code == 200 || response.status.code == 302 || response.bodyText.contains("AADB2C"))
    }

    @Test func oddTokenRequestsGetB2CErrors() {
        let browser = B2CBrowser()
        let path = "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/token"
        let bodies: [[(String, String)]] = [
            [],
            [("grant_type", "authorization_code"), ("client_id", "x"), ("code", "a.b.c.d.e")],
            [("grant_type", "authorization_code"), ("client_id", "x"), ("code", "....")],
            [("grant_type", "refresh_token"), ("client_id", "x"), ("refresh_token", String(repeating: "A", count: 10000))],
            [("grant_type", "refresh_token"), ("client_id", "x"), ("refresh_token", B2CGrantToken.make())],
            [("grant_type", "authorization_code"), ("client_id", "x"), ("code", B2CGrantToken.make()), ("scope", "a/b c/d")],
        ]
        for body in bodies {
            let response = browser.post(path, body)
            #expect(response.status.code == 400, "\(body)")
            #expect(response.bodyText.contains("AADB2C"), "\(body): \(response.bodyText)")
        }
    }
}

extension B2CRoutingTests {
    @Test(arguments: [
        "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/token",
        "/fabrikamb2c.onmicrosoft.com/b2c_1_susi/v2.0/.well-known/openid-configuration",
        "/fabrikamb2c.onmicrosoft.com/oauth2/v2.0/authorize?p=B2C_1_susi",
    ])
    func journalFilesEveryAuthorityFormUnderB2C(target: String) {
        let routes = RouteResolver([B2CConfiguration.embeddedDefault.routes, EntraRoutes()])
        #expect(routes.route(HTTPRequest(method: "GET", target: target, headers: ["Host": "127.0.0.1:8443"])).journalKind == "b2c")
    }

    @Test func journalRedactsB2CPasswordFields() {
        let redacted = Redaction.redact(FormParameters([("password", "Passw0rd!"), ("newPassword", "N3w!pass"), ("reenterPassword", "N3w!pass"), ("signInName", "ben@fabrikam.test")]))
        #expect(redacted.map(\.1) == ["[redacted 9 chars]", "[redacted 8 chars]", "[redacted 8 chars]", "ben@fabrikam.test"])
    }
}
