import IdentityFixtures
import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
@testable import IdentityPlatform

/// An external tenant's pages: sign-in with a mailed code, self-service password reset, and sign-up
/// collecting the user flow's attributes, posted as a browser would.
@Suite struct ExternalIDPageTests {
    static let woodgrove = "woodgrove.onmicrosoft.com"
    static let codesOnly = "codes-only@woodgrove.example"

    static func browser(_ flow: ExternalUserFlow? = nil) -> ScriptedBrowser {
        let browser = ScriptedBrowser(directory: flow.map(ExternalUserFlowTests.directory) ?? BrowserFixtures.directory())
        browser.service.directory.withLock { directory in
            directory.users.append(DirectoryUser(id: "5b1d7c3e-2a4f-4e6b-8c9d-0e1f2a3b4c5d", tenantID: Directory.woodgroveTenantID,
                                                 userPrincipalName: "5b1d7c3e-2a4f-4e6b-8c9d-0e1f2a3b4c5d@woodgrove.onmicrosoft.com",
                                                 displayName: "Codes Only", mail: codesOnly, password: ""))
        }
        return browser
    }

    static func lastCode(_ browser: ScriptedBrowser, _ address: String) throws -> String {
        try #require(browser.service.outbox.messages(to: address).last?.code)
    }

    /// Accepts consent if asked and returns the redirect's parameters.
    static func finish(_ browser: ScriptedBrowser, _ page: HTTPResponse) throws -> RedirectResult {
        let last = page.has("consent") ? browser.submit(page, form: "consent", [("action", "accept")]) : page
        return try #require(RedirectResult(last), "\(last.status.code) \(last.bodyText.prefix(400))")
    }

    static func redeem(_ browser: ScriptedBrowser, code: String) -> [String: Any] {
        TokenFixtures.json(browser.post("/\(woodgrove)/oauth2/v2.0/token", [
            ("grant_type", "authorization_code"), ("client_id", BrowserFixtures.clientID), ("code", code),
            ("redirect_uri", BrowserFixtures.redirectURI), ("code_verifier", BrowserFixtures.verifier),
        ]))
    }

    /// The access token's `amr` for a code the flow returned (v2.0 id tokens carry none).
    static func amr(_ browser: ScriptedBrowser, code: String) -> [String]? {
        let response = redeem(browser, code: code)
        guard let token = response["access_token"] as? String, let jws = JWS.decode(token),
              JWS.verifyRS256(jws, key: BrowserFixtures.keys.current.privateKey.publicKey),
              let claims = try? JSONSerialization.jsonObject(with: Data(jws.payloadJSON)) as? [String: Any] else {
            Issue.record("no access token signed by the service: \(response)")
            return nil
        }
        return claims["amr"] as? [String]
    }

    @Test func aCustomerWithoutAPasswordSignsInWithAMailedCodeAndAResendRetiresTheFirst() throws {
        let browser = Self.browser()
        let signIn = browser.get(BrowserFixtures.authorize(tenant: Self.woodgrove))
        #expect(signIn.bodyText.contains(">Email address</label>"), "External ID's page asks for an email, not a phone or Skype name")
        let codePage = browser.submit(signIn, form: "signin", [("action", "signin"), ("login", Self.codesOnly)])
        #expect(codePage.has("emailcode") && codePage.bodyText.contains(Self.codesOnly))
        let first = try Self.lastCode(browser, Self.codesOnly)
        let resent = browser.submit(codePage, form: "emailcode", [("action", "resendcode")])
        let second = try Self.lastCode(browser, Self.codesOnly)
        let stale = browser.submit(resent, form: "emailcode", [("action", "emailcode"), ("oneTimeCode", first)])
        #expect(stale.has("emailcode") && stale.pageErrorCode == 50181, "a resent code replaces the first")
        let signedIn = browser.submit(stale, form: "emailcode", [("action", "emailcode"), ("oneTimeCode", second)])
        let redirect = try Self.finish(browser, signedIn)
        let code = try #require(redirect["code"])
        #expect(Self.amr(browser, code: code) == ["otp"], "signed in with a one-time passcode")
        // The same code posted again does not sign anyone in a second time.
        let replay = browser.submit(stale, form: "emailcode", [("action", "emailcode"), ("oneTimeCode", second)])
        #expect(RedirectResult(replay)?["code"] == nil)
    }

    @Test func aOneTimePasscodeFlowAsksNoPasswordAndCodesJordanToo() throws {
        let browser = Self.browser(ExternalUserFlow(emailMethod: .emailOneTimePasscode, attributes: []))
        let signIn = browser.get(BrowserFixtures.authorize(tenant: Self.woodgrove))
        #expect(!signIn.bodyText.contains("id=\"i0118\"") && !signIn.bodyText.contains("idA_PWD_ForgotPassword"))
        // Jordan's real password changes nothing: this user flow signs customers in with codes.
        let codePage = browser.submit(signIn, form: "signin", [("action", "signin"), ("login", NativeAuthTests.jordan), ("passwd", Directory.demoPassword)])
        #expect(codePage.has("emailcode") && RedirectResult(codePage) == nil)
        let signUp = browser.get(BrowserFixtures.authorize(tenant: Self.woodgrove, extra: [("prompt", "create")]))
        #expect(signUp.has("signup") && !signUp.bodyText.contains("id=\"PasswordInput\""))
    }

    @Test func aForgottenPasswordIsResetWithAMailedCodeAndEndsEarlierRefreshTokens() throws {
        let browser = Self.browser()
        // A session from before the reset, with its refresh token.
        let earlier = try Self.finish(browser, browser.signInAndConsent(BrowserFixtures.authorize(tenant: Self.woodgrove), login: NativeAuthTests.jordan))
        let earlierCode = try #require(earlier["code"])
        let refreshToken = try #require(Self.redeem(browser, code: earlierCode)["refresh_token"] as? String)
        browser.cookies.removeAll()
        browser.clock.advance(by: 60)

        let signIn = browser.get(BrowserFixtures.authorize(tenant: Self.woodgrove))
        let reset = browser.submit(signIn, form: "signin", [("action", "forgotpassword"), ("login", NativeAuthTests.jordan)])
        #expect(reset.has("resetpassword") && reset.bodyText.contains("value=\"\(NativeAuthTests.jordan)\""))
        let codePage = browser.submit(reset, form: "resetpassword", [("action", "sendresetcode"), ("email", NativeAuthTests.jordan)])
        #expect(codePage.has("emailcode"))
        // With the code mailed but not entered, no new password is taken.
        browser.submit(codePage, form: "emailcode", [("action", "setnewpassword"), ("newPassword", "N3w!passw0rd"), ("confirmNewPassword", "N3w!passw0rd")])
        #expect(browser.service.currentDirectory.user(signInName: NativeAuthTests.jordan)?.password == Directory.demoPassword)

        let again = browser.submit(browser.get(BrowserFixtures.authorize(tenant: Self.woodgrove)), form: "signin", [("action", "forgotpassword")])
        let codeAgain = browser.submit(again, form: "resetpassword", [("action", "sendresetcode"), ("email", NativeAuthTests.jordan)])
        let newPassword = browser.submit(codeAgain, form: "emailcode", [("action", "emailcode"), ("oneTimeCode", try Self.lastCode(browser, NativeAuthTests.jordan))])
        #expect(newPassword.has("newpassword"))
        let weak = browser.submit(newPassword, form: "newpassword", [("action", "setnewpassword"), ("newPassword", "password1"), ("confirmNewPassword", "password1")])
        #expect(weak.has("newpassword") && weak.bodyText.contains("New password is too weak"))
        let reused = browser.submit(weak, form: "newpassword", [("action", "setnewpassword"), ("newPassword", Directory.demoPassword), ("confirmNewPassword", Directory.demoPassword)])
        #expect(reused.bodyText.contains("The new password was used recently."))
        let done = browser.submit(reused, form: "newpassword", [("action", "setnewpassword"), ("newPassword", "N3w!passw0rd"), ("confirmNewPassword", "N3w!passw0rd")])
        #expect(try Self.finish(browser, done)["code"] != nil)
        #expect(browser.service.currentDirectory.user(signInName: NativeAuthTests.jordan)?.password == "N3w!passw0rd")

        let refreshed = TokenFixtures.json(browser.post("/\(Self.woodgrove)/oauth2/v2.0/token", [
            ("grant_type", "refresh_token"), ("client_id", BrowserFixtures.clientID), ("refresh_token", refreshToken),
        ]))
        #expect((refreshed["error_codes"] as? [Int])?.first == 50173, "the session from before the reset ends: \(refreshed)")
    }

    @Test func aLockedCustomerGetsNoCodeAndNoReset() {
        let browser = Self.browser()
        browser.service.directory.withLock { directory in
            for index in directory.users.indices where directory.users[index].mail == Self.codesOnly || directory.users[index].mail == NativeAuthTests.jordan {
                directory.users[index].locked = true
            }
        }
        let signIn = browser.get(BrowserFixtures.authorize(tenant: Self.woodgrove))
        let refused = browser.submit(signIn, form: "signin", [("action", "signin"), ("login", Self.codesOnly)])
        #expect(refused.has("signin") && refused.pageErrorCode == 50053)
        let reset = browser.submit(refused, form: "signin", [("action", "forgotpassword")])
        let noReset = browser.submit(reset, form: "resetpassword", [("action", "sendresetcode"), ("email", NativeAuthTests.jordan)])
        #expect(noReset.has("resetpassword") && noReset.pageErrorCode == 50053)
        #expect(browser.service.outbox.messages(to: Self.codesOnly).isEmpty && browser.service.outbox.messages(to: NativeAuthTests.jordan).isEmpty)
    }

    @Test func aCustomerWithoutAPasswordHasNoneToReset() {
        let browser = Self.browser()
        let reset = browser.submit(browser.get(BrowserFixtures.authorize(tenant: Self.woodgrove)), form: "signin", [("action", "forgotpassword")])
        let refused = browser.submit(reset, form: "resetpassword", [("action", "sendresetcode"), ("email", Self.codesOnly)])
        #expect(refused.has("resetpassword") && refused.pageErrorCode == 500222)
        #expect(browser.service.outbox.messages(to: Self.codesOnly).isEmpty)
    }

    @Test func signUpCollectsTheUserFlowsAttributesAndChecksThem() throws {
        let browser = Self.browser(ExternalUserFlowTests.rewards)
        let page = browser.get(BrowserFixtures.authorize(tenant: Self.woodgrove, extra: [("prompt", "create")]))
        #expect(page.bodyText.contains(">Postal Code</label>") && page.bodyText.contains(">Loyalty number</label>"))
        #expect(page.bodyText.contains("type=\"checkbox\" name=\"extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_newsletter\""))
        let base = [("action", "create"), ("email", "kai@woodgrove.example"), ("passwd", "Str0ng!pass"), ("displayName", "Kai")]
        let missing = browser.submit(page, form: "signup", base)
        #expect(missing.has("signup") && missing.bodyText.contains("Postal Code is required."))
        let invalid = browser.submit(missing, form: "signup", base + [("postalCode", "0123")])
        #expect(invalid.bodyText.contains("Please enter a valid Postal Code.") && invalid.bodyText.contains("value=\"0123\""), "the values typed stay on the page")
        let oversized = browser.submit(invalid, form: "signup", base + [("postalCode", "98052"), ("city", String(repeating: "R", count: 5000))])
        #expect(oversized.bodyText.contains("Please enter a valid City."), "a value longer than any attribute keeps is refused")
        let verify = browser.submit(invalid, form: "signup", base + [("postalCode", "98052"), (ExternalUserFlowTests.custom, "7")])
        #expect(verify.has("verifyemail"))
        let wrong = browser.submit(verify, form: "verifyemail", [("action", "verifyemail"), ("verificationCode", "00000000")])
        #expect(wrong.has("verifyemail") && wrong.pageErrorCode == 50181)
        #expect(browser.service.currentDirectory.user(signInName: "kai@woodgrove.example") == nil, "no account before the address is proved")
        let done = browser.submit(verify, form: "verifyemail", [("action", "verifyemail"), ("verificationCode", try Self.lastCode(browser, "kai@woodgrove.example"))])
        #expect(try Self.finish(browser, done)["code"] != nil)
        let kai = try #require(browser.service.currentDirectory.user(signInName: "kai@woodgrove.example"))
        #expect(kai.displayName == "Kai" && kai.attribute("postalCode") == "98052" && kai.attribute(ExternalUserFlowTests.custom) == "7")
        #expect(kai.attribute("extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_newsletter") == nil, "an unticked box sends nothing, as through the native API")
    }
}
