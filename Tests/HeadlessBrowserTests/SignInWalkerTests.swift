import EntraCrypto
import EntraHTTP
import Foundation
import HeadlessBrowser
import ExchangeKernel
import IdentityPlatform
import Testing
import FakeEntraApp

/// The walker against FakeEntra's own pages, in process: requests to the server go to the application's
/// responder, requests to the app's loopback redirect URI are recorded. No socket anywhere.
@Suite struct SignInWalkerTests {
    static let adele = "adele.vance@contoso.onmicrosoft.com"
    static let alex = "alex.wilber@contoso.onmicrosoft.com"
    static let password = "Passw0rd!"
    static let redirect = "http://localhost:53117/"
    static let verifier = "conformance-verifier-0123456789-0123456789-0123456789"

    /// The application's responder for the server's origin, a recorder for the app's listener.
    final class InProcessTransport: BrowserTransport, @unchecked Sendable {
        let app: FakeEntraApplication
        var deliveries: [BrowserRequest] = []

        init() throws {
            let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate()),
                                          clock: VirtualClock(frozenAt: Date(timeIntervalSince1970: 1_900_000_000)), options: IdentityOptions())
            app = FakeEntraApplication(service: service)
        }

        func send(_ request: BrowserRequest) throws -> HTTPResponse {
            if request.url.scheme == "http" {
                deliveries.append(request)
                return HTTPResponse(status: HTTPStatus(200), text: "Authentication complete.", contentType: "text/plain")
            }
            var headers = request.headers
            headers.set("Host", request.url.authority)
            let raw = HTTPRequest(method: request.method, target: request.url.target, headers: headers, body: request.body)
            return app.responder.respond(to: raw, context: ConnectionFacts())
        }

        /// Redeems the delivered code like the app would; the token response's JSON.
        func redeem(_ delivery: SignInWalker.Delivery, tenant: String = "common", clientID: String, scope: String) throws -> [String: Any] {
            let code = try #require(delivery.form["code"])
            let body = FormParameters([("grant_type", "authorization_code"), ("client_id", clientID), ("code", code),
                                       ("redirect_uri", SignInWalkerTests.redirect), ("code_verifier", SignInWalkerTests.verifier), ("scope", scope)]).encoded
            var headers = HTTPHeaders()
            headers.set("Host", "login.microsoftonline.com")
            headers.set("Content-Type", "application/x-www-form-urlencoded")
            let response = app.responder.respond(to: HTTPRequest(method: "POST", target: "/\(tenant)/oauth2/v2.0/token", headers: headers, body: Array(body.utf8)), context: ConnectionFacts())
            #expect(response.status.code == 200, "\(response.bodyText)")
            return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        }
    }

    static func authorizeURL(authority: String = "https://login.microsoftonline.com/common", clientID: String, scope: String = "openid profile offline_access User.Read", extra: [(String, String)] = []) -> String {
        let parameters = FormParameters([
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirect), ("scope", scope),
            ("state", "state-42"), ("nonce", "nonce-42"), ("code_challenge", PKCE.challenge(for: verifier, method: .s256)),
            ("code_challenge_method", "S256"),
        ] + extra)
        return "\(authority)/oauth2/v2.0/authorize?\(parameters.encoded)"
    }

    static func claims(_ jwt: Any?) throws -> [String: Any] {
        let parts = try #require(jwt as? String).split(separator: ".")
        let payload = try #require(Base64URL.decode(String(parts[1])))
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    /// Where a page asks for a one-time code and none was given, the walker types the newest the outbox
    /// holds for the user, as a person copies it from their inbox.
    @Test func aOneTimeCodeIsReadFromTheOutbox() throws {
        let transport = try InProcessTransport()
        let walker = SignInWalker(transport: transport, credentials: SignInCredentials(username: "ben@fabrikam.test", password: Self.password))
        let page = try #require(BrowserURL("https://fabrikamb2c.b2clogin.com/fabrikamb2c.onmicrosoft.com/B2C_1_reset/oauth2/v2.0/authorize"))
        #expect(walker.mailedCode(at: page) == nil, "nothing mailed yet")
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        _ = transport.app.service.outbox.mailCode(to: "ben@fabrikam.test", purpose: .resetPassword, now: now)
        let newest = transport.app.service.outbox.mailCode(to: "Ben@Fabrikam.test", purpose: .resetPassword, now: now).code
        #expect(walker.mailedCode(at: page) == newest)
    }

    @Test func signsInTicksEveryConsentBoxAndDeliversTheRedirect() throws {
        let transport = try InProcessTransport()
        var walker = SignInWalker(transport: transport, credentials: SignInCredentials(username: Self.adele, password: Self.password))
        let clientID = UUID().uuidString.lowercased()
        let scope = "openid profile offline_access User.Read Calendars.Read"
        let delivery = try walker.walk(Self.authorizeURL(clientID: clientID, scope: scope))
        #expect(delivery.method == "GET")
        #expect(delivery.form["state"] == "state-42")
        #expect(transport.deliveries.count == 1)
        #expect(delivery.pagesWalked >= 3, "sign-in, then consent, then the redirect")
        let tokens = try transport.redeem(delivery, clientID: clientID, scope: scope)
        let granted = (tokens["scope"] as? String ?? "").lowercased()
        #expect(granted.contains("calendars.read") && granted.contains("user.read"), "every consent box ticked: \(granted)")
        #expect(try Self.claims(tokens["id_token"])["preferred_username"] as? String == Self.adele)
    }

    @Test func formPostIsPostedToTheApp() throws {
        let transport = try InProcessTransport()
        var walker = SignInWalker(transport: transport, credentials: SignInCredentials(username: Self.adele, password: Self.password))
        let delivery = try walker.walk(Self.authorizeURL(clientID: UUID().uuidString, extra: [("response_mode", "form_post")]))
        #expect(delivery.method == "POST")
        #expect(delivery.form["code"] != nil && delivery.form["state"] == "state-42")
        let posted = try #require(transport.deliveries.first)
        #expect(posted.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(posted.url.description == Self.redirect)
    }

    @Test func theAccountPickerGetsTheUsersOwnTile() throws {
        let transport = try InProcessTransport()
        let clientID = UUID().uuidString
        var walker = SignInWalker(transport: transport, credentials: SignInCredentials(username: Self.adele, password: Self.password))
        _ = try walker.walk(Self.authorizeURL(clientID: clientID))
        walker.credentials = SignInCredentials(username: Self.alex, password: Self.password)
        _ = try walker.walk(Self.authorizeURL(clientID: clientID, extra: [("prompt", "login")]))
        // Both accounts are in the session now: the picker shows two tiles, the walker takes Adele's.
        walker.credentials = SignInCredentials(username: Self.adele, password: "not needed")
        var pages: [String] = []
        walker.log = { pages.append($0) }
        let delivery = try walker.walk(Self.authorizeURL(clientID: clientID, extra: [("prompt", "select_account")]))
        #expect(pages.count == 3, "the picker, its post, the delivery: \(pages)")
        let tokens = try transport.redeem(delivery, clientID: clientID, scope: "openid profile offline_access User.Read")
        #expect(try Self.claims(tokens["id_token"])["preferred_username"] as? String == Self.adele)
    }

    @Test func aWrongPasswordEndsInALoopErrorNotAnEndlessWalk() throws {
        var walker = SignInWalker(transport: try InProcessTransport(), credentials: SignInCredentials(username: Self.adele, password: "wrong"))
        #expect(throws: BrowseError.loop(formID: "signin", times: 4, shown: "AADSTS50126: Error validating credentials due to invalid username or password.")) { try walker.walk(Self.authorizeURL(clientID: UUID().uuidString)) }
    }

    @Test func anErrorPageIsADeadEndThatShowsTheCode() throws {
        var walker = SignInWalker(transport: try InProcessTransport(), credentials: SignInCredentials(username: Self.adele, password: Self.password))
        // An unknown tenant cannot redirect anywhere: Entra shows its error page.
        let url = Self.authorizeURL(authority: "https://login.microsoftonline.com/no-such-tenant.onmicrosoft.com", clientID: UUID().uuidString)
        do {
            _ = try walker.walk(url)
            Issue.record("an invalid authorize request must not deliver")
        } catch {
            guard case .deadEnd(_, let status, let excerpt) = error else { Issue.record("\(error)"); return }
            #expect(status >= 400)
            #expect(excerpt.contains("AADSTS"), "\(excerpt)")
            #expect(error.exitCode == 4)
        }
    }

    @Test func b2cSignUpOrSignInPageDeliversTheCode() throws {
        let transport = try InProcessTransport()
        var walker = SignInWalker(transport: transport, credentials: SignInCredentials(username: "ben@fabrikam.test", password: Self.password))
        let authority = "https://fabrikamb2c.b2clogin.com/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi"
        let delivery = try walker.walk(Self.authorizeURL(authority: authority, clientID: UUID().uuidString, scope: "openid offline_access"))
        #expect(delivery.form["code"] != nil, "\(delivery.form.pairs)")
        #expect(delivery.form["state"] == "state-42")
    }

    @Test func aURLWithoutARedirectURIIsRefusedBeforeAnyRequest() throws {
        let transport = try InProcessTransport()
        var walker = SignInWalker(transport: transport, credentials: SignInCredentials(username: Self.adele, password: Self.password))
        #expect(throws: BrowseError.badStartURL("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=x")) {
            try walker.walk("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=x")
        }
        #expect(transport.deliveries.isEmpty)
    }

    /// The device flow: the app shows a user code; the walker types it on /devicelogin, confirms and signs in;
    /// the device's next poll gets the tokens.
    @Test func aDeviceLoginWithTheUserCodeApprovesTheDevice() throws {
        let transport = try InProcessTransport()
        let clientID = UUID().uuidString.lowercased()
        func post(_ path: String, _ form: [(String, String)]) -> [String: Any] {
            var headers = HTTPHeaders()
            headers.set("Host", "login.microsoftonline.com")
            headers.set("Content-Type", "application/x-www-form-urlencoded")
            let response = transport.app.responder.respond(to: HTTPRequest(method: "POST", target: path, headers: headers, body: Array(FormParameters(form).encoded.utf8)), context: ConnectionFacts())
            return (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        }
        let flow = post("/organizations/oauth2/v2.0/devicecode", [("client_id", clientID), ("scope", "openid profile offline_access User.Read")])
        let userCode = try #require(flow["user_code"] as? String)
        let deviceCode = try #require(flow["device_code"] as? String)
        var walker = SignInWalker(transport: transport, credentials: SignInCredentials(username: Self.adele, password: Self.password, userCode: userCode))
        let done = try walker.walk(try #require(flow["verification_uri"] as? String))
        #expect(done.method == "PAGE" && done.appStatus == 200)
        #expect(done.pagesWalked >= 4, "code, confirmation, sign-in, consent")
        #expect(transport.deliveries.isEmpty, "nothing goes to an app")
        let tokens = post("/organizations/oauth2/v2.0/token", [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("client_id", clientID), ("device_code", deviceCode)])
        #expect(tokens["access_token"] != nil, "\(tokens)")
        #expect(try Self.claims(tokens["id_token"])["preferred_username"] as? String == Self.adele, "\(tokens)")
    }

    @Test func aWrongUserCodeIsADeadEndNotASuccess() throws {
        var walker = SignInWalker(transport: try InProcessTransport(), credentials: SignInCredentials(username: Self.adele, password: Self.password, userCode: "NOSUCHCODE"))
        #expect(throws: BrowseError.loop(formID: "devicelogin", times: 4, shown: "That code didn't work. Check the code and try again.")) { try walker.walk("https://login.microsoftonline.com/devicelogin") }
    }
}
