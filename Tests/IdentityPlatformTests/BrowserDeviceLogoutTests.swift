@testable import Journal
import LocatedJSON
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
import Synchronization
import ExchangeKernel
@testable import IdentityPlatform

@Suite("Browser: device login, logout, error pages, token hand-off")
struct BrowserDeviceLogoutTests {
    typealias F = BrowserFixtures

    /// Starts a device flow through the real /devicecode endpoint; returns (device_code, user_code).
    func startDeviceFlow(_ browser: ScriptedBrowser, scope: String = "openid profile offline_access User.Read") throws -> (String, String) {
        let response = browser.post("/organizations/oauth2/v2.0/devicecode", [("client_id", F.clientID), ("scope", scope)])
        #expect(response.status == .ok)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (try #require(body["device_code"] as? String), try #require(body["user_code"] as? String))
    }

    func poll(_ browser: ScriptedBrowser, deviceCode: String) throws -> [String: Any] {
        let response = browser.post("/organizations/oauth2/v2.0/token", [
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("client_id", F.clientID), ("device_code", deviceCode),
        ])
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func deviceLoginApprovesTheDeviceCode() throws {
        let browser = ScriptedBrowser()
        let (deviceCode, userCode) = try startDeviceFlow(browser)
        #expect(try poll(browser, deviceCode: deviceCode)["error"] as? String == "authorization_pending")

        let entry = browser.get("/devicelogin")
        #expect(entry.has("devicelogin"))
        #expect(entry.bodyText.contains("name=\"otc\" id=\"otc\""))
        let confirm = browser.submit(entry, form: "devicelogin", [("otc", userCode.lowercased()), ("action", "code")])
        #expect(confirm.has("deviceconfirm"))
        #expect(confirm.bodyText.contains("Contoso Notes"))
        let signIn = browser.submit(confirm, form: "deviceconfirm", [("action", "continue")])
        #expect(ScrapedForm.parse(signIn.bodyText, id: "signin")?.action == "/devicelogin")
        let consent = browser.submit(signIn, form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(consent.has("consent"))
        let done = browser.submit(consent, form: "consent", [("action", "accept")])
        #expect(done.status == .ok)
        #expect(done.bodyText.contains("id=\"deviceSuccess\""))

        let record = try #require(browser.service.state.withLock { $0.deviceCodes[deviceCode] })
        guard case .approved(let grant) = record.status else { Issue.record("not approved: \(record.status)"); return }
        let adele = try #require(browser.service.currentDirectory.user(signInName: F.adele))
        #expect(grant.userID == adele.id && grant.clientID == F.clientID && grant.scopes.contains("User.Read"))

        browser.clock.advance(by: 10)
        let tokens = try poll(browser, deviceCode: deviceCode)
        #expect(tokens["access_token"] != nil, "\(tokens)")
        #expect((tokens["scope"] as? String)?.contains("User.Read") == true)
    }

    @Test func v1DeviceLoginKeepsTheResource() throws {
        let browser = ScriptedBrowser()
        let response = browser.post("/organizations/oauth2/devicecode", [("client_id", F.clientID), ("resource", "https://graph.microsoft.com")])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let userCode = try #require(body["user_code"] as? String)
        let deviceCode = try #require(body["device_code"] as? String)
        let confirm = browser.submit(browser.get("/devicelogin"), form: "devicelogin", [("otc", userCode)])
        let signIn = browser.submit(confirm, form: "deviceconfirm", [("action", "continue")])
        let consent = browser.submit(signIn, form: "signin", [("login", F.alex), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(browser.submit(consent, form: "consent", [("action", "accept")]).bodyText.contains("id=\"deviceSuccess\""))
        guard case .approved(let grant)? = browser.service.state.withLock({ $0.deviceCodes[deviceCode]?.status }) else {
            Issue.record("not approved")
            return
        }
        #expect(grant.endpointVersion == .v1 && grant.resourceAppID == Resource.graphAppID)
    }

    @Test func deviceLoginCancelDeclines() throws {
        let browser = ScriptedBrowser()
        let (deviceCode, userCode) = try startDeviceFlow(browser)
        let confirm = browser.submit(browser.get("/devicelogin"), form: "devicelogin", [("otc", userCode)])
        let declined = browser.submit(confirm, form: "deviceconfirm", [("action", "cancel")])
        #expect(declined.bodyText.contains("id=\"deviceDeclined\""))
        #expect(browser.service.state.withLock { $0.deviceCodes[deviceCode]?.status } == .declined)
        #expect(try poll(browser, deviceCode: deviceCode)["error"] as? String == "authorization_declined")
    }

    @Test func deviceLoginCancelOnTheSignInPageDeclinesToo() throws {
        let browser = ScriptedBrowser()
        let (deviceCode, userCode) = try startDeviceFlow(browser)
        let confirm = browser.submit(browser.get("/devicelogin"), form: "devicelogin", [("otc", userCode)])
        let signIn = browser.submit(confirm, form: "deviceconfirm", [("action", "continue")])
        _ = browser.submit(signIn, form: "signin", [("action", "cancel")])
        #expect(browser.service.state.withLock { $0.deviceCodes[deviceCode]?.status } == .declined)
    }

    @Test func wrongAndExpiredUserCodesAreReportedOnThePage() throws {
        let browser = ScriptedBrowser()
        let wrong = browser.submit(browser.get("/devicelogin"), form: "devicelogin", [("otc", "NOTACODE1")])
        #expect(wrong.has("devicelogin") && wrong.bodyText.contains(HTML.escape(DeviceLogin.invalidMessage)))
        let (_, userCode) = try startDeviceFlow(browser)
        browser.clock.advance(by: browser.service.options.deviceCodeLifetime + 1)
        let expired = browser.submit(browser.get("/devicelogin"), form: "devicelogin", [("otc", userCode)])
        #expect(expired.has("devicelogin") && expired.bodyText.contains(HTML.escape(DeviceLogin.expiredMessage)))
    }

    @Test func anAuthorizeRequestCannotClaimADeviceCode() throws {
        let browser = ScriptedBrowser()
        _ = browser.signInAndConsent(F.authorize(), login: F.alex)
        let (deviceCode, _) = try startDeviceFlow(browser)
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: [(AuthorizationRequest.deviceCodeParameter, deviceCode)]))))
        #expect(redirect["code"] != nil)
        #expect(browser.service.state.withLock { $0.deviceCodes[deviceCode]?.status } == .pending)
    }

    @Test func deviceLoginReusesTheBrowserSession() throws {
        let browser = ScriptedBrowser()
        _ = browser.signInAndConsent(F.authorize(), login: F.alex)
        let (deviceCode, userCode) = try startDeviceFlow(browser)
        let confirm = browser.submit(browser.get("/devicelogin"), form: "devicelogin", [("otc", userCode)])
        let done = browser.submit(confirm, form: "deviceconfirm", [("action", "continue")])
        #expect(done.bodyText.contains("id=\"deviceSuccess\""))
        guard case .approved(let grant)? = browser.service.state.withLock({ $0.deviceCodes[deviceCode]?.status }) else {
            Issue.record("not approved")
            return
        }
        #expect(browser.service.currentDirectory.user(id: grant.userID)?.userPrincipalName == F.alex)
    }

    @Test func authorizationCodeIsRedeemedAtTheTokenEndpoint() throws {
        let browser = ScriptedBrowser()
        let redirect = try #require(RedirectResult(browser.signInAndConsent(F.authorize(), login: F.adele)))
        let response = browser.post("/common/oauth2/v2.0/token", [
            ("grant_type", "authorization_code"), ("client_id", F.clientID), ("code", redirect["code"] ?? ""),
            ("redirect_uri", F.redirectURI), ("code_verifier", F.verifier), ("client_info", "1"),
            ("scope", "openid profile offline_access User.Read"),
        ])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(response.status == .ok, "\(body)")
        let idToken = try #require(body["id_token"] as? String)
        let decoded = try #require(JWS.decode(idToken))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(decoded.payloadJSON)) as? [String: Any])
        #expect(claims["nonce"] as? String == "n-456")
        #expect(claims["sid"] as? String == redirect["session_state"])
        #expect(body["client_info"] as? String == redirect["client_info"])
    }

    @Test func logoutEndsTheSessionAndRedirectsToARegisteredURI() throws {
        let browser = ScriptedBrowser()
        _ = browser.signInAndConsent(F.authorize(), login: F.adele)
        let cookie = try #require(browser.sessionCookie)
        let target = "/common/oauth2/v2.0/logout?" + FormParameters([
            ("client_id", F.clientID), ("post_logout_redirect_uri", "https://app.example.com/signed-out"), ("state", "bye"),
        ]).encoded
        let response = browser.get(target)
        #expect(response.status == .found)
        #expect(response.headers["Location"] == "https://app.example.com/signed-out?state=bye")
        #expect(response.headers["Set-Cookie"]?.contains("Max-Age=0") == true)
        #expect(browser.sessionCookie == nil)
        #expect(browser.service.state.withLock { $0.sessions[BrowserSession.id(forCookie: cookie)] } == nil)
        #expect(browser.get(F.authorize()).has("signin"))
    }

    @Test func logoutShowsTheSignedOutPageForAnUnregisteredURI() {
        let browser = ScriptedBrowser()
        _ = browser.signInAndConsent(F.authorize(), login: F.adele)
        let response = browser.get("/common/oauth2/v2.0/logout?post_logout_redirect_uri=" + FormCoding.encodeComponent("https://evil.example/"))
        #expect(response.status == .ok)
        #expect(response.headers["Location"] == nil)
        #expect(response.bodyText.contains("id=\"signedOut\""))
        #expect(browser.sessionCookie == nil)
    }

    @Test func v1LogoutAndPostWork() {
        let browser = ScriptedBrowser()
        _ = browser.signInAndConsent(F.authorize(), login: F.adele)
        let response = browser.post("/common/oauth2/logout", [("post_logout_redirect_uri", "https://app.example.com/signed-out")])
        #expect(response.headers["Location"] == "https://app.example.com/signed-out")
        #expect(browser.sessionCookie == nil)
    }

    @Test func logoutHintSignsOutOneAccount() {
        let browser = ScriptedBrowser()
        _ = browser.signInAndConsent(F.authorize(), login: F.adele)
        _ = browser.signInAndConsent(F.authorize(extra: [("prompt", "login")]), login: F.alex)
        _ = browser.get("/common/oauth2/v2.0/logout?logout_hint=" + FormCoding.encodeComponent(F.alex))
        #expect(browser.sessionCookie != nil)
        #expect(RedirectResult(browser.get(F.authorize()))?["code"] != nil, "only Adele is left: single sign-on without the picker")
    }

    @Test func theJournalNeverKeepsWhatIsTypedOnThePages() throws {
        var directory = F.directory()
        directory.users[directory.users.firstIndex { $0.answers(to: F.alex) }!].passwordExpired = true
        let browser = ScriptedBrowser(directory: directory)
        let journal = RequestJournal()
        let responder = ExchangeStack([JournalRecorder(journal: journal, clock: browser.clock), WorldRouter([browser.handler])], routes: RouteResolver([EntraRoutes()]))
        let page = browser.get(F.authorize())
        let form = try #require(ScrapedForm.parse(page.bodyText, id: "signin"))
        let fields = form.hidden + [("login", F.alex), ("passwd", Directory.demoPassword), ("action", "signin")]
        let change = responder.respond(to: HTTPRequest(method: "POST", target: form.action, headers: ["Host": ScriptedBrowser.host, "Content-Type": "application/x-www-form-urlencoded"], body: Array(FormParameters(fields).encoded.utf8)), context: ConnectionFacts())
        let changeForm = try #require(ScrapedForm.parse(change.bodyText, id: "passwordchange"))
        let secret = "Sup3r-Secret-New"
        let changeFields = changeForm.hidden + [("currentPassword", Directory.demoPassword), ("newPassword", secret), ("confirmNewPassword", secret), ("action", "changepassword")]
        _ = responder.respond(to: HTTPRequest(method: "POST", target: changeForm.action, headers: ["Host": ScriptedBrowser.host, "Content-Type": "application/x-www-form-urlencoded"], body: Array(FormParameters(changeFields).encoded.utf8)), context: ConnectionFacts())
        let recorded = journal.entries().map(\.value.compactText).joined(separator: "\n")
        #expect(journal.entries().count == 2)
        #expect(!recorded.contains(Directory.demoPassword))
        #expect(!recorded.contains(secret))
        #expect(recorded.contains(F.alex), "what is not secret stays readable")
    }

    @Test func errorPageExplainsACode() {
        let browser = ScriptedBrowser()
        let page = browser.get("/error?code=50011")
        #expect(page.status == .ok)
        #expect(page.bodyText.contains("data-aadsts=\"50011\""))
        #expect(page.bodyText.contains("does not match the redirect URIs configured"))
        #expect(browser.get("/error?code=AADSTS65004").bodyText.contains("User declined to consent"))
        #expect(browser.get("/error?code=123").status == .notFound)
        #expect(browser.get("/error").has("errorlookup"))
    }

    @Test func everyCatalogueEntryIsFindable() {
        for entry in ErrorCatalogue.entries {
            let page = ErrorLookup.page(code: String(entry.code), entry: ErrorCatalogue.entry(code: entry.code))
            #expect(page.markup.contains("AADSTS\(entry.code)"))
        }
    }
}
