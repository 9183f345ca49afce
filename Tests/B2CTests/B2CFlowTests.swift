import ExchangeKernel
import EntraHTTP
import Foundation
import Testing
@testable import B2C
import IdentityPlatform

@Suite struct B2CFlowTests {
    static let susi = "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi"
    static let edit = "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_edit_profile"
    static let reset = "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_reset"

    @Test func signInPageHasTheServiceElementIDs() {
        let browser = B2CBrowser()
        let page = ScrapedPage(browser.get(browser.authorizeURL(extra: [("login_hint", "ben@fabrikam.test")])).bodyText)
        for id in ["localAccountForm", "email", "password", "next", "forgotPassword", "createAccount", "cancel"] {
            #expect(page.hasElement(id), "missing #\(id)")
        }
        let email = page.input("email") ?? ""
        #expect(page.attribute("name", in: email) == "signInName")
        #expect(page.attribute("type", in: email) == "email")
        #expect(page.attribute("value", in: email) == "ben@fabrikam.test")
        #expect(page.attribute("name", in: page.input("password") ?? "") == "password")
        #expect(!page.html.contains("<script"))
    }

    @Test func wrongPasswordAndUnknownAccountAreShownOnThePage() {
        let browser = B2CBrowser()
        let start = browser.get(browser.authorizeURL())
        let wrong = browser.signIn(start, password: "nope")
        #expect(wrong.status.code == 200)
        #expect(wrong.bodyText.contains("Your password is incorrect."))
        let unknown = browser.signIn(wrong, email: "nobody@fabrikam.test")
        #expect(unknown.bodyText.contains("We can't seem to find your account.") || unknown.bodyText.contains("We can&#39;t seem to find your account."))
        let ok = browser.signIn(unknown)
        #expect(browser.code(from: ok) != nil)
    }

    @Test func forgotPasswordReturnsAADB2C90118() throws {
        let browser = B2CBrowser()
        let start = browser.get(browser.authorizeURL())
        let response = browser.follow(start, link: "forgotPassword")
        let parameters = try #require(B2CBrowser.redirectParameters(response))
        #expect(parameters["error"] == "access_denied")
        let description = try #require(parameters["error_description"])
        #expect(description.hasPrefix("AADB2C90118: The user has forgotten their password.\r\nCorrelation ID: "))
        #expect(description.contains("\r\nTimestamp: "))
        #expect(parameters["state"] == "st4te")
    }

    @Test func cancelAnywhereReturnsAADB2C90091() throws {
        let browser = B2CBrowser()
        for (authority, form) in [(Self.susi, "localAccountForm"), (Self.reset, "attributeVerification")] {
            let page = browser.get(browser.authorizeURL(authority: authority))
            let response = browser.submit(page, form: form, button: "cancel")
            let parameters = try #require(B2CBrowser.redirectParameters(response))
            #expect(parameters["error"] == "access_denied")
            #expect(parameters["error_description"]?.hasPrefix("AADB2C90091: The user has cancelled entering self-asserted information.") == true)
        }
        let signUp = browser.follow(browser.get(browser.authorizeURL()), link: "createAccount")
        let cancelled = try #require(B2CBrowser.redirectParameters(browser.submit(signUp, form: "attributeVerification", button: "cancel")))
        #expect(cancelled["error_description"]?.hasPrefix("AADB2C90091") == true)
    }

    @Test func signUpCreatesALocalAccountAndTheFirstTokenSaysNewUser() throws {
        let browser = B2CBrowser()
        let signUp = browser.follow(browser.get(browser.authorizeURL()), link: "createAccount")
        for id in ["attributeVerification", "email", "newPassword", "reenterPassword", "displayName", "givenName", "surname", "continue", "cancel"] {
            #expect(ScrapedPage(signUp.bodyText).hasElement(id), "missing #\(id)")
        }
        var fields = [("email", "ada@fabrikam.test"), ("newPassword", "Secr3t!pass"), ("reenterPassword", "different"),
                      ("displayName", "Ada L"), ("givenName", "Ada"), ("surname", "Lovelace")]
        let mismatch = browser.submit(signUp, form: "attributeVerification", button: "continue", fields)
        #expect(mismatch.bodyText.contains("The password entry fields do not match."))
        fields[2] = ("reenterPassword", "Secr3t!pass")
        let taken = browser.submit(mismatch, form: "attributeVerification", button: "continue", [("email", "ben@fabrikam.test")] + fields.dropFirst())
        #expect(taken.bodyText.contains("A user with the specified ID already exists."))
        let created = browser.submit(taken, form: "attributeVerification", button: "continue", fields)
        let code = try #require(browser.code(from: created))

        let tokens = try TokenResponse(browser.redeem(code))
        let id = try tokens.idToken
        #expect(id["newUser"] as? Bool == true)
        #expect(id["emails"] as? [String] == ["ada@fabrikam.test"])
        #expect(id["given_name"] as? String == "Ada")
        #expect(id["family_name"] as? String == "Lovelace")
        #expect(id["name"] as? String == "Ada L")
        let refreshed = try TokenResponse(browser.refresh(try #require(tokens["refresh_token"])))
        #expect(try refreshed.idToken["newUser"] == nil)

        // The account exists: it signs in again (and that token is not new).
        let again = try B2CBrowser.signInElsewhere(browser, email: "ada@fabrikam.test", password: "Secr3t!pass")
        #expect(try again.idToken["newUser"] == nil)
    }

    @Test func weakPasswordsAreRefusedOnSignUp() {
        let browser = B2CBrowser()
        let signUp = browser.get(browser.authorizeURL(authority: "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signup"))
        let short = browser.submit(signUp, form: "attributeVerification", button: "continue",
                                   [("email", "x@fabrikam.test"), ("newPassword", "Ab1!"), ("reenterPassword", "Ab1!"), ("displayName", "X")])
        #expect(short.bodyText.contains("between 8 and 64 characters"))
        let simple = browser.submit(short, form: "attributeVerification", button: "continue",
                                    [("email", "x@fabrikam.test"), ("newPassword", "abcdefgh"), ("reenterPassword", "abcdefgh"), ("displayName", "X")])
        #expect(simple.bodyText.contains("at least 3 of the following"))
    }

    @Test func signUpWithOnlyCredentialsNamesTheAccountAfterItsAddress() throws {
        let browser = B2CBrowser()
        let page = browser.get(browser.authorizeURL(authority: "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signup"))
        let created = browser.submit(page, form: "attributeVerification", button: "continue",
                                     [("email", "zed@fabrikam.test"), ("newPassword", "Zz9!zzzz"), ("reenterPassword", "Zz9!zzzz")])
        let id = try TokenResponse(browser.redeem(try #require(browser.code(from: created)), authority: "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signup")).idToken
        #expect(id["name"] as? String == "zed")
        #expect(id["newUser"] as? Bool == true)
        #expect(id["given_name"] == nil)
    }

    @Test func editProfileWithASessionChangesTheNames() throws {
        let browser = B2CBrowser()
        _ = try browser.signInAndRedeem()
        let page = browser.get(browser.authorizeURL(authority: Self.edit))
        let scraped = ScrapedPage(page.bodyText)
        #expect(scraped.hasElement("attributeVerification"))
        #expect(scraped.attribute("value", in: scraped.input("displayName") ?? "") == "Ben Smith")
        let saved = browser.submit(page, form: "attributeVerification", button: "continue",
                                   [("displayName", "Benjamin S"), ("givenName", "Benjamin"), ("surname", "Smythe")])
        let tokens = try TokenResponse(browser.redeem(try #require(browser.code(from: saved)), authority: Self.edit))
        let id = try tokens.idToken
        #expect(id["name"] as? String == "Benjamin S")
        #expect(id["given_name"] as? String == "Benjamin")
        #expect(id["family_name"] as? String == "Smythe")
        #expect(id["tfp"] as? String == "B2C_1_edit_profile")
        let user = try #require(browser.service.currentDirectory.user(signInName: "ben@fabrikam.test"))
        #expect(user.displayName == "Benjamin S")
    }

    @Test func editProfileWithoutASessionSignsInFirst() throws {
        let browser = B2CBrowser()
        let page = browser.get(browser.authorizeURL(authority: Self.edit))
        #expect(ScrapedPage(page.bodyText).hasElement("localAccountForm"))
        #expect(!ScrapedPage(page.bodyText).hasElement("createAccount"))
        let profile = browser.signIn(page)
        #expect(ScrapedPage(profile.bodyText).hasElement("attributeVerification"))
        let saved = browser.submit(profile, form: "attributeVerification", button: "continue", [("displayName", "Ben"), ("givenName", ""), ("surname", "")])
        let tokens = try TokenResponse(browser.redeem(try #require(browser.code(from: saved)), authority: Self.edit))
        #expect(try tokens.idToken["given_name"] == nil)
        #expect(try tokens.idToken["name"] as? String == "Ben")
    }

    @Test func passwordResetChangesThePasswordAfterTheCodeStep() throws {
        let browser = B2CBrowser()
        let before = try browser.signInAndRedeem()
        browser.clock.advance(by: 60)

        let start = browser.get(browser.authorizeURL(authority: Self.reset))
        let unknown = browser.submit(start, form: "attributeVerification", button: "email_ver_but_send", [("email", "nobody@fabrikam.test")])
        #expect(unknown.bodyText.contains("An account could not be found for the provided user ID."))
        let codePage = browser.submit(unknown, form: "attributeVerification", button: "email_ver_but_send", [("email", "ben@fabrikam.test")])
        #expect(ScrapedPage(codePage.bodyText).hasElement("email_ver_input"))
        // The new-password step cannot be reached without a code.
        let skipped = browser.post(try #require(ScrapedPage(codePage.bodyText).form("attributeVerification")).action,
                                   try #require(ScrapedPage(codePage.bodyText).form("attributeVerification")).hidden + [("action", "resetPassword"), ("newPassword", "N3w!password"), ("reenterPassword", "N3w!password")])
        #expect(skipped.status.code == 400)
        let restart = browser.submit(browser.get(browser.authorizeURL(authority: Self.reset)), form: "attributeVerification", button: "email_ver_but_send", [("email", "ben@fabrikam.test")])
        let badCode = browser.submit(restart, form: "attributeVerification", button: "email_ver_but_verify", [("code", "12ab")])
        #expect(badCode.bodyText.contains("does not match our records"))
        let mailed = try #require(browser.service.outbox.messages(to: "ben@fabrikam.test").last?.code)
        let wrongCode = browser.submit(badCode, form: "attributeVerification", button: "email_ver_but_verify", [("code", mailed == "123456" ? "654321" : "123456")])
        #expect(wrongCode.bodyText.contains("does not match our records"), "any six digits no longer pass")
        let newPassword = browser.submit(wrongCode, form: "attributeVerification", button: "email_ver_but_verify", [("code", mailed)])
        #expect(ScrapedPage(newPassword.bodyText).hasElement("newPassword"))
        let done = browser.submit(newPassword, form: "attributeVerification", button: "continue", [("newPassword", "N3w!password"), ("reenterPassword", "N3w!password")])
        let tokens = try TokenResponse(browser.redeem(try #require(browser.code(from: done)), authority: Self.reset))
        #expect(try tokens.idToken["tfp"] as? String == "B2C_1_reset")

        // Old password fails, new one works; the refresh token from before the reset is revoked.
        let fresh = B2CBrowser.sharing(browser)
        let oldAttempt = fresh.signIn(fresh.get(fresh.authorizeURL()))
        #expect(oldAttempt.bodyText.contains("Your password is incorrect."))
        #expect(fresh.code(from: fresh.signIn(oldAttempt, password: "N3w!password")) != nil)
        let revoked = browser.refresh(try #require(before["refresh_token"]))
        #expect(revoked.status.code == 400)
        #expect(revoked.bodyText.contains("AADB2C90129"))
    }

    /// The reset's code is mailed to the outbox; five wrong codes spend it (B2C's NumRetryAttempts), and
    /// "Send new code" mails another that works, the earlier one no longer.
    @Test func theResetCodeIsMailedAndSpentByFiveWrongTries() throws {
        let browser = B2CBrowser()
        let start = browser.get(browser.authorizeURL(authority: Self.reset))
        var page = browser.submit(start, form: "attributeVerification", button: "email_ver_but_send", [("email", "ben@fabrikam.test")])
        let first = try #require(browser.service.outbox.messages(to: "ben@fabrikam.test").last)
        #expect(first.purpose == .resetPassword && first.code.count == 6 && first.code.allSatisfy(\.isNumber), "B2C's codes have six digits")
        let wrong = first.code == "111111" ? "222222" : "111111"
        for _ in 1...5 { page = browser.submit(page, form: "attributeVerification", button: "email_ver_but_verify", [("code", wrong)]) }
        #expect(page.bodyText.contains("too many incorrect attempts"))
        page = browser.submit(page, form: "attributeVerification", button: "email_ver_but_verify", [("code", first.code)])
        #expect(page.bodyText.contains("too many incorrect attempts"), "the spent code no longer works")
        page = browser.submit(page, form: "attributeVerification", button: "email_ver_but_resend")
        let second = try #require(browser.service.outbox.messages(to: "ben@fabrikam.test").last)
        #expect(second.sentAt >= first.sentAt && browser.service.outbox.messages(to: "ben@fabrikam.test").count == 2)
        if second.code != first.code {
            let stale = browser.submit(page, form: "attributeVerification", button: "email_ver_but_verify", [("code", first.code)])
            #expect(stale.bodyText.contains("does not match our records"))
            page = stale
        }
        page = browser.submit(page, form: "attributeVerification", button: "email_ver_but_verify", [("code", second.code)])
        #expect(ScrapedPage(page.bodyText).hasElement("newPassword"))
    }

    @Test func promptNoneWithoutASessionIsInteractionRequired() throws {
        let browser = B2CBrowser()
        let response = browser.get(browser.authorizeURL(extra: [("prompt", "none")]))
        let parameters = try #require(B2CBrowser.redirectParameters(response))
        #expect(parameters["error"] == "interaction_required")
        #expect(parameters["error_description"]?.hasPrefix("AADB2C90077: User does not have an existing session and request prompt parameter has a value of 'none'.") == true)

        _ = try browser.signInAndRedeem()
        let silent = browser.get(browser.authorizeURL(extra: [("prompt", "none")]))
        #expect(browser.code(from: silent) != nil)
    }

    @Test func sessionGivesSingleSignOnAndLogoutEndsIt() throws {
        let browser = B2CBrowser()
        _ = try browser.signInAndRedeem()
        #expect(browser.cookies.keys.contains("x-ms-cpim-sso_fabrikamb2c"))
        #expect(browser.code(from: browser.get(browser.authorizeURL())) != nil)
        // prompt=login always asks again.
        #expect(ScrapedPage(browser.get(browser.authorizeURL(extra: [("prompt", "login")])).bodyText).hasElement("localAccountForm"))

        let logout = browser.get(Self.susi + "/oauth2/v2.0/logout?post_logout_redirect_uri=https%3A%2F%2Fapp.example%2Fbye&state=s1")
        #expect(logout.status.code == 302)
        #expect(logout.headers["Location"] == "https://app.example/bye?state=s1")
        #expect(!browser.cookies.keys.contains("x-ms-cpim-sso_fabrikamb2c"))
        let parameters = try #require(B2CBrowser.redirectParameters(browser.get(browser.authorizeURL(extra: [("prompt", "none")]))))
        #expect(parameters["error"] == "interaction_required")
    }

    @Test func badRedirectURIIsShownNeverRedirected() {
        let browser = B2CBrowser()
        let target = browser.authorizeURL().replacingOccurrences(of: "msauth.com.microsoft.identitysample.MSALiOS%3A%2F%2Fauth", with: "https%3A%2F%2Fevil.example%2Fcb")
        let response = browser.get(target)
        #expect(response.status.code == 400)
        #expect(response.headers["Location"] == nil)
        #expect(response.bodyText.contains("AADB2C90006"))
    }

    @Test func requestErrorsGoBackToTheApp() throws {
        let browser = B2CBrowser()
        let noScope = browser.get(browser.authorizeURL(scope: ""))
        #expect(try #require(B2CBrowser.redirectParameters(noScope))["error_description"]?.hasPrefix("AADB2C90010") == true)
        let graph = browser.get(browser.authorizeURL(scope: "User.Read openid"))
        #expect(try #require(B2CBrowser.redirectParameters(graph))["error_description"]?.hasPrefix("AADB2C90055") == true)
        let token = browser.get(browser.authorizeURL(extra: [("response_type", "code device")]).replacingOccurrences(of: "response_type=code&", with: ""))
        #expect(try #require(B2CBrowser.redirectParameters(token))["error_description"]?.hasPrefix("AADB2C90013") == true)
    }

    @Test func staleOrForeignFlowIDsAreRefused() {
        let browser = B2CBrowser()
        let page = browser.get(browser.authorizeURL())
        let form = ScrapedPage(page.bodyText).form("localAccountForm")!
        // The same flow posted to another policy's endpoint.
        let foreign = browser.post(Self.edit + "/oauth2/v2.0/authorize", form.hidden + [("action", "signin"), ("signInName", "ben@fabrikam.test"), ("password", "Passw0rd!")])
        #expect(foreign.status.code == 400)
        #expect(foreign.bodyText.contains("AADB2C90046"))
        browser.clock.advance(by: 7200)
        let expired = browser.signIn(page)
        #expect(expired.status.code == 400)
    }
}

extension B2CBrowser {
    /// A second browser (no cookies) on the same service.
    static func sharing(_ other: B2CBrowser) -> B2CBrowser { B2CBrowser(sharing: other) }

    static func signInElsewhere(_ other: B2CBrowser, email: String, password: String) throws -> TokenResponse {
        let browser = sharing(other)
        let page = browser.get(browser.authorizeURL())
        let code = try #require(browser.code(from: browser.signIn(page, email: email, password: password)))
        return try TokenResponse(browser.redeem(code))
    }
}

@Suite struct B2CSessionTests {
    @Test func credentialsCannotBeSentWithALink() throws {
        let browser = B2CBrowser()
        let page = browser.get(browser.authorizeURL())
        let form = try #require(ScrapedPage(page.bodyText).form("localAccountForm"))
        let ctx = try #require(form.hidden.first { $0.0 == "ctx" }?.1)
        let viaGet = browser.get(AuthorizationResponder.redirectURL(form.action, parameters: [("ctx", ctx), ("action", "signin"), ("signInName", "ben@fabrikam.test"), ("password", "Passw0rd!")], mode: .query))
        #expect(viaGet.status.code == 400)
        #expect(viaGet.headers["Location"] == nil)
    }

    @Test func passwordResetEndsOtherBrowsersSessions() throws {
        let laptop = B2CBrowser()
        _ = try laptop.signInAndRedeem()
        laptop.clock.advance(by: 60)
        let phone = B2CBrowser(sharing: laptop)
        let start = phone.get(phone.authorizeURL(authority: B2CFlowTests.reset))
        let code = phone.submit(start, form: "attributeVerification", button: "email_ver_but_send", [("email", "ben@fabrikam.test")])
        let mailed = try #require(phone.service.outbox.messages(to: "ben@fabrikam.test").last?.code)
        let choose = phone.submit(code, form: "attributeVerification", button: "email_ver_but_verify", [("code", mailed)])
        _ = phone.submit(choose, form: "attributeVerification", button: "continue", [("newPassword", "An0ther!pass"), ("reenterPassword", "An0ther!pass")])
        // The laptop's session predates the reset: no single sign-on, the sign-in page again.
        let again = laptop.get(laptop.authorizeURL())
        #expect(ScrapedPage(again.bodyText).hasElement("localAccountForm"))
        // The phone's session was signed in by the reset itself and still works.
        #expect(phone.code(from: phone.get(phone.authorizeURL())) != nil)
    }
}

extension B2CSessionTests {
    @Test func aB2CPageFlowLeadsBackToItsAuthorizeParameters() throws {
        let browser = B2CBrowser()
        let page = browser.get(browser.authorizeURL())
        let form = try #require(ScrapedPage(page.bodyText).form("localAccountForm"))
        let flowID = try #require(form.hidden.first { $0.0 == IdentityService.flowFieldName }?.1)
        let parameters = try #require(browser.service.authorizeParameters(forFlow: flowID))
        #expect(parameters["client_id"] == B2CFixtures.clientID)
        #expect(parameters["state"] == "st4te")
    }
}

extension B2CSessionTests {
    @Test func clientsCannotPlantTheFlowsBookkeeping() throws {
        let browser = B2CBrowser()
        let page = browser.get(browser.authorizeURL(authority: B2CFlowTests.reset, extra: [
            ("fakeentra_b2c_step", "resetPassword"), ("fakeentra_b2c_reset_email", "ben@fabrikam.test"),
        ]))
        let form = try #require(ScrapedPage(page.bodyText).form("attributeVerification"))
        let flowID = try #require(form.hidden.first { $0.0 == IdentityService.flowFieldName }?.1)
        #expect(browser.service.authorizeParameters(forFlow: flowID)?["fakeentra_b2c_reset_email"] == nil)
        let skipped = browser.post(form.action, form.hidden + [("action", "resetPassword"), ("newPassword", "Hij4cked!"), ("reenterPassword", "Hij4cked!")])
        #expect(skipped.status.code == 400)
        #expect(browser.service.currentDirectory.user(signInName: "ben@fabrikam.test")?.password == "Passw0rd!")
    }
}

@Suite struct B2CFrontChannelTests {
    /// The authorize URL with `response_type` replaced.
    func authorize(_ browser: B2CBrowser, responseType: String, scope: String = "\(B2CFixtures.apiScope) openid offline_access", extra: [(String, String)] = []) -> String {
        browser.authorizeURL(scope: scope, extra: [("response_type", responseType)] + extra).replacingOccurrences(of: "response_type=code&", with: "")
    }

    @Test func hybridCodeAndIDTokenWithFormPost() throws {
        let browser = B2CBrowser()
        let page = browser.signIn(browser.get(authorize(browser, responseType: "code id_token", extra: [("response_mode", "form_post")])))
        let form = try #require(ScrapedPage(page.bodyText).form("response"))
        #expect(form.action == B2CFixtures.redirectURI)
        let fields = Dictionary(form.hidden, uniquingKeysWith: { first, _ in first })
        let code = try #require(fields["code"])
        let id = try TokenResponse.verifiedClaims(try #require(fields["id_token"]))
        #expect(id["c_hash"] as? String == B2CTokenMinter.halfHash(code))
        #expect(id["nonce"] as? String == "n0nce")
        #expect(id["tfp"] as? String == "B2C_1_susi")
        #expect(fields["state"] == "st4te")
        #expect(browser.redeem(code).status.code == 200)
    }

    @Test func implicitIDTokenAndAccessTokenInTheFragment() throws {
        let browser = B2CBrowser()
        let response = browser.signIn(browser.get(authorize(browser, responseType: "id_token token")))
        let location = try #require(response.headers["Location"])
        #expect(location.hasPrefix(B2CFixtures.redirectURI + "#"))
        let fields = try #require(B2CBrowser.redirectParameters(response))
        #expect(fields["code"] == nil)
        let access = try #require(fields["access_token"])
        #expect(try TokenResponse.verifiedClaims(access)["scp"] as? String == "demo.read")
        #expect(fields["token_type"] == "Bearer")
        let id = try TokenResponse.verifiedClaims(try #require(fields["id_token"]))
        #expect(id["at_hash"] as? String == B2CTokenMinter.halfHash(access))
        #expect(id["c_hash"] == nil)
    }

    @Test func frontChannelRequestsAreChecked() throws {
        let browser = B2CBrowser()
        let noOpenID = browser.get(authorize(browser, responseType: "id_token", scope: B2CFixtures.apiScope))
        #expect(try #require(B2CBrowser.redirectParameters(noOpenID))["error_description"]?.hasPrefix("AADB2C90110") == true)
        let noAudience = browser.get(authorize(browser, responseType: "token", scope: "openid"))
        #expect(try #require(B2CBrowser.redirectParameters(noAudience))["error_description"]?.hasPrefix("AADB2C90055") == true)
        let inQuery = browser.get(authorize(browser, responseType: "id_token", extra: [("response_mode", "query")]))
        #expect(inQuery.headers["Location"]?.contains("#error=invalid_request") == true)
        #expect(try #require(B2CBrowser.redirectParameters(inQuery))["error_description"]?.hasPrefix("AADB2C90014") == true)
    }
}

extension B2CSessionTests {
    @Test func maxAgeLimitsSingleSignOn() throws {
        let browser = B2CBrowser()
        _ = try browser.signInAndRedeem()
        browser.clock.advance(by: 300)
        #expect(browser.code(from: browser.get(browser.authorizeURL(extra: [("max_age", "600")]))) != nil)
        let stale = browser.get(browser.authorizeURL(extra: [("max_age", "60")]))
        #expect(ScrapedPage(stale.bodyText).hasElement("localAccountForm"))
        let silent = try #require(B2CBrowser.redirectParameters(browser.get(browser.authorizeURL(extra: [("max_age", "60"), ("prompt", "none")]))))
        #expect(silent["error"] == "interaction_required")
        let invalid = try #require(B2CBrowser.redirectParameters(browser.get(browser.authorizeURL(extra: [("max_age", "-1")]))))
        #expect(invalid["error_description"]?.hasPrefix("AADB2C90120") == true)
    }
}

extension B2CSessionTests {
    @Test func autoLoginSignsInWithoutPages() throws {
        let browser = B2CBrowser(options: { var o = IdentityOptions(); o.autoLogin = true; return o }())
        let code = try #require(browser.code(from: browser.get(browser.authorizeURL(extra: [("login_hint", "ben@fabrikam.test")]))))
        #expect(try TokenResponse(browser.redeem(code)).idToken["emails"] as? [String] == ["ben@fabrikam.test"])
        // Unknown hint: the page, as without auto-login; password reset always shows its pages.
        let other = B2CBrowser(options: { var o = IdentityOptions(); o.autoLogin = true; return o }())
        #expect(ScrapedPage(other.get(other.authorizeURL(extra: [("login_hint", "nobody@fabrikam.test")])).bodyText).hasElement("localAccountForm"))
        #expect(other.code(from: other.get(other.authorizeURL())) != nil)
        #expect(ScrapedPage(other.get(other.authorizeURL(authority: B2CFlowTests.reset)).bodyText).hasElement("attributeVerification"))
    }
}
