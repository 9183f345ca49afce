import EntraHTTP
import Foundation
import Testing
@testable import B2C
import IdentityPlatform

/// Reload repeats the request that showed a page and Back returns to an earlier page of the flow: both
/// keep the flow going, as on the service, without letting a step be skipped.
@Suite struct B2CReloadTests {
    @Test func reloadingTheSignUpLinkShowsTheSignUpPageAgain() throws {
        let browser = B2CBrowser()
        let signIn = browser.get(browser.authorizeURL())
        let link = try #require(ScrapedPage(signIn.bodyText).href("createAccount"))
        let first = browser.get(link)
        let reloaded = browser.get(link)
        #expect(reloaded.status.code == 200, "\(reloaded.bodyText)")
        #expect(ScrapedPage(reloaded.bodyText).hasElement("attributeVerification"))
        let fields = [("email", "reload@fabrikam.test"), ("newPassword", "Secr3t!pass"), ("reenterPassword", "Secr3t!pass")]
        // Either page's form carries on the one flow.
        #expect(browser.code(from: browser.submit(first, form: "attributeVerification", button: "continue", fields)) != nil)
    }

    @Test func backFromSignUpToTheSignInPageStillSignsIn() throws {
        let browser = B2CBrowser()
        let signIn = browser.get(browser.authorizeURL())
        _ = browser.follow(signIn, link: "createAccount")
        #expect(browser.code(from: browser.signIn(signIn)) != nil)
    }

    @Test func repostingAResetStepRepeatsItButNothingSkipsTheCode() throws {
        let browser = B2CBrowser()
        let start = browser.get(browser.authorizeURL(authority: B2CFlowTests.reset))
        let email = [("email", "ben@fabrikam.test")]
        let codePage = browser.submit(start, form: "attributeVerification", button: "email_ver_but_send", email)
        // Reload of the code page: the same post again shows the code page again.
        let again = browser.submit(start, form: "attributeVerification", button: "email_ver_but_send", email)
        #expect(ScrapedPage(again.bodyText).hasElement("email_ver_input"))
        let form = try #require(ScrapedPage(codePage.bodyText).form("attributeVerification"))
        let skipped = browser.post(form.action, form.hidden + [("action", "resetPassword"), ("newPassword", "N3w!password"), ("reenterPassword", "N3w!password")])
        #expect(skipped.status.code == 400)
        #expect(skipped.bodyText.contains("AADB2C90046"))
        // The reloaded post sent a new code, as pressing "Send verification code" again does: that one works.
        let code = try #require(browser.service.outbox.messages(to: "ben@fabrikam.test").last?.code)
        let newPassword = browser.submit(codePage, form: "attributeVerification", button: "email_ver_but_verify", [("code", code)])
        let reloadedVerify = browser.submit(codePage, form: "attributeVerification", button: "email_ver_but_verify", [("code", code)])
        #expect(ScrapedPage(reloadedVerify.bodyText).hasElement("newPassword"))
        let done = browser.submit(newPassword, form: "attributeVerification", button: "continue", [("newPassword", "N3w!password"), ("reenterPassword", "N3w!password")])
        #expect(browser.code(from: done) != nil)
    }

    @Test func aSignUpOnlyPolicyAcceptsNoSignInPost() throws {
        let browser = B2CBrowser()
        let signUp = browser.get(browser.authorizeURL(authority: "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signup"))
        let form = try #require(ScrapedPage(signUp.bodyText).form("attributeVerification"))
        let forged = browser.post(form.action, form.hidden + [("action", "signin"), ("signInName", "ben@fabrikam.test"), ("password", "Passw0rd!")])
        #expect(forged.status.code == 400)
    }
}
