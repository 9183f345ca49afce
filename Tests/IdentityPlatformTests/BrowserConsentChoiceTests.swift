import EntraHTTP
import Foundation
import Testing
import Synchronization
@testable import IdentityPlatform

/// The consent page's boxes: a permission the user unticks is neither consented to nor granted.
@Suite("Browser: consent with unticked permissions")
struct BrowserConsentChoiceTests {
    typealias F = BrowserFixtures

    @Test func anUntickedPermissionIsNotGrantedNorRemembered() throws {
        let browser = BrowserSessionTests().signedIn([F.adele])
        let page = browser.get(F.authorize(scope: "openid profile User.Read Mail.Read Calendars.Read"))
        #expect(page.bodyText.contains("value=\"acceptchosen\""))
        #expect(page.bodyText.contains("type=\"checkbox\" name=\"scope\" value=\"Mail.Read\""))
        // Only Calendars.Read stays ticked.
        let redirect = try #require(RedirectResult(browser.submit(page, form: "consent", [("action", "acceptchosen"), ("scope", "Calendars.Read")])))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.scopes.contains("Calendars.Read"))
        #expect(!record.grant.scopes.contains("Mail.Read"))
        // The declined permission is asked for again next time; the accepted one is not.
        let again = browser.get(F.authorize(scope: "openid Mail.Read Calendars.Read"))
        #expect(again.bodyText.contains("data-scope=\"Mail.Read\""))
        #expect(!again.bodyText.contains("data-scope=\"Calendars.Read\""))
    }

    @Test func aPlainAcceptStillGrantsEverything() throws {
        let browser = BrowserSessionTests().signedIn([F.adele])
        let page = browser.get(F.authorize(scope: "openid User.Read Mail.Read"))
        let redirect = try #require(RedirectResult(browser.submit(page, form: "consent", [("action", "accept")])))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.scopes.contains("Mail.Read"))
    }
}
