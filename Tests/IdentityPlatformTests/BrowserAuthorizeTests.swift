import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
import Synchronization
@testable import IdentityPlatform

@Suite("Browser: authorize, sign-in and consent")
struct BrowserAuthorizeTests {
    typealias F = BrowserFixtures

    @Test func signInConsentAndCodeRedirect() throws {
        let browser = ScriptedBrowser()
        let signInPage = browser.get(F.authorize())
        #expect(signInPage.status == .ok)
        #expect(signInPage.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(signInPage.has("signin"))
        #expect(signInPage.bodyText.contains("type=\"email\" name=\"login\" id=\"i0116\""))
        #expect(signInPage.bodyText.contains("type=\"password\" name=\"passwd\" id=\"i0118\""))
        #expect(signInPage.bodyText.contains("id=\"idSIButton9\""))
        #expect(browser.sessionCookie == nil)

        let consentPage = browser.submit(signInPage, form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(consentPage.has("consent"))
        #expect(consentPage.bodyText.contains("data-scope=\"User.Read\""))
        #expect(consentPage.bodyText.contains("Sign you in and read your profile"))
        #expect(consentPage.bodyText.contains("data-scope=\"offline_access\""))
        let cookie = try #require(browser.sessionCookie)
        let setCookie = try #require(consentPage.headers["Set-Cookie"])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("Secure") && setCookie.contains("SameSite=None") && setCookie.contains("Path=/"))

        let done = browser.submit(consentPage, form: "consent", [("action", "accept")])
        let redirect = try #require(RedirectResult(done))
        #expect(redirect.base == F.redirectURI)
        #expect(redirect["state"] == "st-123")
        let code = try #require(redirect["code"])
        let sessionState = try #require(redirect["session_state"])

        let directory = browser.service.currentDirectory
        let adele = try #require(directory.user(signInName: F.adele))
        let clientInfoText = try #require(redirect["client_info"])
        let clientInfo = try #require(Base64URL.decode(clientInfoText))
        let info = try #require(try JSONSerialization.jsonObject(with: Data(clientInfo)) as? [String: String])
        #expect(info == ["uid": adele.id, "utid": adele.tenantID])

        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[code] })
        #expect(record.redirectURI == F.redirectURI)
        #expect(record.codeChallenge == F.challenge && record.codeChallengeMethod == "S256")
        #expect(record.nonce == "n-456")
        #expect(record.expiresAt == F.start.addingTimeInterval(600))
        #expect(record.grant.userID == adele.id && record.grant.tenantID == Directory.contosoTenantID)
        #expect(record.grant.clientID == F.clientID)
        #expect(Set(record.grant.scopes) == ["User.Read", "openid", "profile", "offline_access"])
        #expect(record.grant.resourceAppID == Resource.graphAppID)
        #expect(record.grant.endpointVersion == .v2)
        #expect(record.grant.authTime == F.start)
        #expect(record.grant.authenticationMethods == ["pwd"])
        #expect(record.grant.sessionID == sessionState)
        #expect(sessionState != cookie, "session_state must not reveal the cookie")
        #expect(directory.grantedScopes(clientID: F.clientID, resourceAppID: Resource.graphAppID, userID: adele.id, tenantID: adele.tenantID) == ["user.read"])
    }

    @Test func plainHTTPInstanceUsesLaxCookieWithoutSecure() {
        let browser = ScriptedBrowser()
        browser.secure = false
        let page = browser.submit(browser.get(F.authorize()), form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        let setCookie = page.headers["Set-Cookie"] ?? ""
        #expect(setCookie.hasPrefix("fakeentra_session=") && !setCookie.contains("Secure") && setCookie.contains("SameSite=Lax"))
    }

    @Test(arguments: [
        (F.adele, "wrong", 50126),
        ("nobody@contoso.onmicrosoft.com", "x", 50034),
    ])
    func credentialErrorsShowOnTheSignInPage(login: String, password: String, code: Int) {
        let browser = ScriptedBrowser()
        let page = browser.submit(browser.get(F.authorize()), form: "signin", [("login", login), ("passwd", password), ("action", "signin")])
        #expect(page.status == .ok)
        #expect(page.has("signin"))
        #expect(page.pageErrorCode == code)
        #expect(page.bodyText.contains("AADSTS\(code):"))
        #expect(browser.sessionCookie == nil)
    }

    @Test(arguments: [("locked", 50053), ("disabled", 50057)])
    func blockedAccountsShowTheirCode(kind: String, code: Int) {
        var directory = F.directory()
        let index = directory.users.firstIndex { $0.answers(to: F.alex) }!
        if kind == "locked" { directory.users[index].locked = true } else { directory.users[index].accountEnabled = false }
        let browser = ScriptedBrowser(directory: directory)
        let page = browser.submit(browser.get(F.authorize()), form: "signin", [("login", F.alex), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(page.pageErrorCode == code)
        #expect(page.has("signin"))
    }

    @Test func expiredPasswordIsChangedOnAPage() throws {
        var directory = F.directory()
        let index = directory.users.firstIndex { $0.answers(to: F.alex) }!
        directory.users[index].passwordExpired = true
        let browser = ScriptedBrowser(directory: directory)
        let change = browser.submit(browser.get(F.authorize()), form: "signin", [("login", F.alex), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(change.has("passwordchange"))
        #expect(change.pageErrorCode == 50055)

        let mismatch = browser.submit(change, form: "passwordchange", [("currentPassword", Directory.demoPassword), ("newPassword", "N3w-Passw0rd"), ("confirmNewPassword", "other-one"), ("action", "changepassword")])
        #expect(mismatch.has("passwordchange"))
        #expect(mismatch.bodyText.contains("id=\"passwordChangeError\""))

        let consent = browser.submit(mismatch, form: "passwordchange", [("currentPassword", Directory.demoPassword), ("newPassword", "N3w-Passw0rd"), ("confirmNewPassword", "N3w-Passw0rd"), ("action", "changepassword")])
        #expect(consent.has("consent"))
        let alex = try #require(browser.service.currentDirectory.user(signInName: F.alex))
        #expect(alex.password == "N3w-Passw0rd" && !alex.passwordExpired && alex.tokensValidFrom == F.start)
    }

    @Test func expiredPasswordCancelledGoesBackWithAccessDenied() throws {
        var directory = F.directory()
        directory.users[directory.users.firstIndex { $0.answers(to: F.alex) }!].passwordExpired = true
        let browser = ScriptedBrowser(directory: directory)
        let change = browser.submit(browser.get(F.authorize()), form: "signin", [("login", F.alex), ("passwd", Directory.demoPassword), ("action", "signin")])
        let redirect = try #require(RedirectResult(browser.submit(change, form: "passwordchange", [("action", "cancel")])))
        #expect(redirect["error"] == "access_denied")
    }

    @Test func cancelOnSignInRedirectsAccessDenied() throws {
        let browser = ScriptedBrowser()
        let redirect = try #require(RedirectResult(browser.submit(browser.get(F.authorize()), form: "signin", [("action", "cancel")])))
        #expect(redirect.base == F.redirectURI)
        #expect(redirect["error"] == "access_denied")
        #expect(redirect["error_subcode"] == "cancel")
        #expect(redirect.aadsts == 65004)
        #expect(redirect["state"] == "st-123")
        #expect(redirect["code"] == nil)
    }

    @Test func cancelOnConsentRedirectsUserDeclined() throws {
        let browser = ScriptedBrowser()
        let consent = browser.submit(browser.get(F.authorize()), form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        let redirect = try #require(RedirectResult(browser.submit(consent, form: "consent", [("action", "cancel")])))
        #expect(redirect["error"] == "access_denied")
        #expect(redirect.aadsts == 65004)
        #expect(redirect["error_uri"] == "https://\(ScriptedBrowser.host)/error?code=65004")
        let description = try #require(redirect["error_description"])
        #expect(description.contains("\r\nTrace ID: ") && description.contains("\r\nCorrelation ID: ") && description.contains("\r\nTimestamp: "))
        let adele = try #require(browser.service.currentDirectory.user(signInName: F.adele))
        #expect(browser.service.currentDirectory.grantedScopes(clientID: F.clientID, resourceAppID: Resource.graphAppID, userID: adele.id, tenantID: adele.tenantID).isEmpty)
    }

    @Test func unregisteredRedirectURIGetsAnErrorPageNeverARedirect() {
        let browser = ScriptedBrowser()
        let page = browser.get(F.authorize(redirectURI: "https://evil.example/steal"))
        #expect(page.status == .badRequest)
        #expect(page.headers["Location"] == nil)
        #expect(page.pageErrorCode == 50011)
        #expect(page.bodyText.contains("https://evil.example/steal"))
    }

    @Test func lenientClientAcceptsNativeRedirectsButNotWebOnes() throws {
        let browser = ScriptedBrowser()
        let unknown = "11111111-2222-3333-4444-555555555555"
        let native = browser.get(F.authorize(clientID: unknown, redirectURI: "msauth.com.contoso.notes://auth"))
        #expect(native.has("signin"))
        #expect(browser.get(F.authorize(clientID: unknown, redirectURI: "https://web.example/cb")).pageErrorCode == 50011)
    }

    @Test func clientErrorsAreShownOnPages() {
        var strict = IdentityOptions()
        strict.strict = true
        let browser = ScriptedBrowser(options: strict)
        #expect(browser.get(F.authorize(clientID: "99999999-0000-0000-0000-000000000000", redirectURI: "http://localhost")).pageErrorCode == 700016)
        #expect(browser.get(F.authorize(clientID: "")).pageErrorCode == 900144)
        #expect(browser.get(F.authorize(tenant: "nosuchtenant.example")).pageErrorCode == 90002)
    }

    @Test(arguments: [
        ([("response_type", "token")], "unsupported_response_type", 700054),
        ([("response_type", "")], "invalid_request", 900144),
        ([("scope", "")], "invalid_request", 900144),
        ([("prompt", "sometimes")], "invalid_request", 90023),
        ([("code_challenge_method", "S512")], "invalid_request", 50149),
        ([("code_challenge", "short")], "invalid_request", 501491),
        ([("claims", "{not json")], "invalid_request", 90100),
        ([("scope", "User.Read api://unknown-resource/x")], "invalid_resource", 500011),
    ])
    func requestErrorsAreRedirectedWithState(extra: [(String, String)], error: String, code: Int) throws {
        let browser = ScriptedBrowser()
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: extra))))
        #expect(redirect.base == F.redirectURI)
        #expect(redirect["error"] == error)
        #expect(redirect.aadsts == code)
        #expect(redirect["state"] == "st-123")
    }

    @Test func plainPKCEIsTheDefaultMethod() throws {
        let browser = ScriptedBrowser()
        let target = F.authorize(extra: [("code_challenge", F.verifier), ("code_challenge_method", "")])
        let code = try #require(RedirectResult(browser.signInAndConsent(target, login: F.adele))?["code"])
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[code] })
        #expect(record.codeChallenge == F.verifier && record.codeChallengeMethod == "plain")
    }

    @Test func v1AuthorizeTakesAResource() throws {
        let browser = ScriptedBrowser()
        let target = "/contoso.onmicrosoft.com/oauth2/authorize?" + FormParameters([
            ("client_id", F.clientID), ("response_type", "code"), ("redirect_uri", F.redirectURI),
            ("resource", "https://graph.microsoft.com"), ("state", "v1-state"),
        ]).encoded
        let page = browser.get(target)
        #expect(ScrapedForm.parse(page.bodyText, id: "signin")?.action == "/contoso.onmicrosoft.com/oauth2/authorize")
        let redirect = try #require(RedirectResult(browser.signInAndConsent(target, login: F.alex)))
        #expect(redirect["state"] == "v1-state" && redirect["client_info"] == nil)
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.endpointVersion == .v1)
        #expect(record.grant.resourceAppID == Resource.graphAppID)
        #expect(record.grant.scopes.contains("https://graph.microsoft.com/User.Read"))
    }

    @Test func claimsRequestCarriesClientCapabilities() throws {
        let browser = ScriptedBrowser()
        let claims = #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#
        let redirect = try #require(RedirectResult(browser.signInAndConsent(F.authorize(extra: [("claims", claims)]), login: F.adele)))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.clientCapabilities == ["cp1"])
        #expect(record.grant.claimsRequest == claims)
    }

    @Test func tenantAdmissionRejectsUsersOfOtherTenants() {
        let browser = ScriptedBrowser()
        let consumers = browser.submit(browser.get(F.authorize(tenant: "consumers")), form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(consumers.pageErrorCode == 50020)
        let contoso = browser.submit(browser.get(F.authorize(tenant: Directory.contosoTenantID)), form: "signin", [("login", F.megan), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(contoso.pageErrorCode == 50020)
        let organizations = browser.submit(browser.get(F.authorize(tenant: "organizations")), form: "signin", [("login", F.megan), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(organizations.pageErrorCode == 50020)
        #expect(browser.sessionCookie == nil)
    }

    @Test func twoStepSignInAsOnMicrosoftsPages() throws {
        let browser = ScriptedBrowser()
        let first = browser.submit(browser.get(F.authorize()), form: "signin", [("login", F.adele), ("action", "signin")])
        #expect(first.has("signin") && first.pageErrorCode == nil)
        #expect(first.bodyText.contains("id=\"i0116\" value=\"\(F.adele)\""))
        #expect(first.bodyText.contains("id=\"i0118\" autocomplete=\"current-password\" aria-required=\"true\" autofocus"))
        let consent = browser.submit(first, form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(consent.has("consent"))
    }

    @Test func formsWorkWithoutTheButtonField() throws {
        let browser = ScriptedBrowser()
        let consent = browser.submit(browser.get(F.authorize()), form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword)])
        #expect(consent.has("consent"))
    }

    /// Pressing Enter submits with the form's first submit button: it must be the primary one, never Back.
    @Test func thePrimaryButtonComesFirstInEveryForm() throws {
        var directory = F.directory()
        directory.users[directory.users.firstIndex { $0.answers(to: F.adele) }!].mfaRequired = true
        let browser = ScriptedBrowser(directory: directory)
        let signIn = browser.get(F.authorize())
        let mfa = browser.submit(signIn, form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        let consent = browser.submit(mfa, form: "mfa", [("otc", "000000"), ("action", "mfa")])
        let create = browser.get(F.authorize(extra: [("prompt", "create")]))
        for (page, form) in [(signIn, "signin"), (mfa, "mfa"), (consent, "consent"), (create, "signup")] {
            let body = page.bodyText
            let start = try #require(body.range(of: "<form id=\"\(form)\""))
            let firstSubmit = try #require(body.range(of: "<button type=\"submit\"", range: start.upperBound..<body.endIndex))
            let tag = body[firstSubmit.lowerBound...].prefix(while: { $0 != ">" })
            #expect(tag.contains("class=\"primary\""), "\(form): \(tag)")
        }
    }

    @Test func loginHintPrefillsTheSignInField() {
        let browser = ScriptedBrowser()
        let page = browser.get(F.authorize(extra: [("login_hint", F.alex)]))
        #expect(page.bodyText.contains("id=\"i0116\" value=\"\(F.alex)\""))
    }

    @Test func mfaRequiredForAnUnregisteredUserIsAnEnrolmentError() throws {
        var directory = F.directory()
        directory.users[directory.users.firstIndex { $0.answers(to: F.alex) }!].mfaRequired = true
        let browser = ScriptedBrowser(directory: directory)
        let response = browser.submit(browser.get(F.authorize()), form: "signin", [("login", F.alex), ("passwd", Directory.demoPassword), ("action", "signin")])
        let redirect = try #require(RedirectResult(response))
        #expect(redirect.aadsts == 50079)
    }

    @Test func expiredFlowShowsAnErrorPage() {
        let browser = ScriptedBrowser()
        let page = browser.get(F.authorize())
        browser.clock.advance(by: browser.service.options.interactiveFlowLifetime + 1)
        let late = browser.submit(page, form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(late.pageErrorCode == 50089)
        #expect(late.headers["Location"] == nil)
    }

    @Test func aPagesFlowIDLeadsBackToItsAuthorizeParameters() throws {
        let browser = ScriptedBrowser()
        let page = browser.get(F.authorize())
        let form = try #require(ScrapedForm.parse(page.bodyText, id: "signin"))
        let flowID = try #require(form.hidden.first { $0.0 == IdentityService.flowFieldName }?.1)
        let parameters = try #require(browser.service.authorizeParameters(forFlow: flowID))
        #expect(parameters["client_id"] == F.clientID && parameters["redirect_uri"] == F.redirectURI && parameters["state"] == "st-123")
        #expect(browser.service.authorizeParameters(forFlow: "unknown") == nil)
    }

    @Test func pendingFlowsAreBounded() {
        var limits = StateLimits()
        limits.pendingAuthorizations = 2
        var state = PlatformState(limits: limits)
        for i in 0..<5 {
            let id = "flow-\(i)"
            state.pendingAuthorizations[id] = PendingAuthorization(id: id, parameters: [:], tenantSegment: "common", endpointVersion: .v2, expiresAt: F.start.addingTimeInterval(Double(i)))
        }
        #expect(Set(state.pendingAuthorizations.keys) == ["flow-3", "flow-4"])
    }

    /// A sign-in keeps its /authorize parameters for an hour (and in the `--state` file): a request carrying
    /// more than `PendingAuthorization.largestParameters` is refused on the error page, nothing kept, nothing
    /// sent back to the redirect URI; a large but real request still signs in.
    @Test func anOversizedAuthorizeRequestKeepsNothing() throws {
        let browser = ScriptedBrowser()
        let kept = { browser.service.state.withLock { $0.pendingAuthorizations.count } }
        let megabyte = String(repeating: "s", count: 1 << 20)
        let posted = browser.post("/common/oauth2/v2.0/authorize", [("client_id", F.clientID), ("response_type", "code"), ("redirect_uri", F.redirectURI),
                                                                     ("scope", "openid User.Read"), ("state", megabyte)])
        #expect(posted.pageErrorCode == 90015 && posted.headers["Location"] == nil, "\(posted.status)")
        let nonce = browser.get(F.authorize(extra: [("nonce", String(repeating: "n", count: PendingAuthorization.largestParameters))]))
        #expect(nonce.pageErrorCode == 90015)
        #expect(kept() == 0)
        #expect(posted.bodyText.utf8.count < 64 * 1024, "the page does not echo what was sent")

        let realState = String(repeating: "CfDJ8", count: 400)
        let page = browser.get(F.authorize(extra: [("state", realState)]))
        #expect(page.has("signin") && kept() == 1)
    }

    @Test func unknownFlowIDIsRejected() {
        let browser = ScriptedBrowser()
        let page = browser.post("/common/oauth2/v2.0/authorize", [("ctx", "forged"), ("action", "accept")])
        #expect(page.pageErrorCode == 50089)
    }
}
