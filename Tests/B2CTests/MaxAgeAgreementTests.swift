import ExchangeKernel
import EntraHTTP
import Foundation
import Testing
@testable import B2C
import IdentityPlatform

/// B2C's user flows and Entra's pages share one browser flow (`BrowserFlowCore`) and judge `max_age` one
/// way (`MaxAge`): at every boundary both reuse the browser session, or both ask for the password again.
/// They used to differ at `max_age=0`, which B2C let pass for a sign-in made in the same second.
@Suite struct MaxAgeAgreementTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var elapsed: TimeInterval
        var maxAge: String
        var signsInAgain: Bool
        var testDescription: String { "max_age=\(maxAge) after \(Int(elapsed))s" }
    }

    static let cases: [Case] = [
        Case(elapsed: 0, maxAge: "0", signsInAgain: true),
        Case(elapsed: 1, maxAge: "0", signsInAgain: true),
        Case(elapsed: 0, maxAge: "1", signsInAgain: false),
        Case(elapsed: 59, maxAge: "60", signsInAgain: false),
        Case(elapsed: 60, maxAge: "60", signsInAgain: false),
        Case(elapsed: 61, maxAge: "60", signsInAgain: true),
        Case(elapsed: 3600, maxAge: "3599", signsInAgain: true),
        Case(elapsed: 86_400, maxAge: "2147483647", signsInAgain: false),
    ]

    static let entraClientID = "7f2b3c4d-2222-4a2b-9c3d-5e6f7a8b9c0d"
    static let entraRedirectURI = "https://app.example.com/auth/callback"

    @Test(arguments: cases) func entraAndB2CAgree(_ boundary: Case) throws {
        let browser = B2CBrowser()
        browser.service.directory.withLock {
            $0.applications.append(Application(clientID: Self.entraClientID, displayName: "Contoso Notes", isPublicClient: true, redirectURIs: [Self.entraRedirectURI]))
        }
        // Both sessions start at the same virtual instant.
        #expect(browser.code(from: browser.signIn(browser.get(browser.authorizeURL()))) != nil)
        let entraPage = browser.get(entraAuthorizeURL())
        let signedIn = browser.submit(entraPage, form: "signin", button: "idSIButton9", [("login", "adele.vance@contoso.onmicrosoft.com"), ("passwd", Directory.demoPassword)])
        #expect(B2CBrowser.redirectParameters(signedIn)?["code"] != nil)

        browser.clock.advance(by: boundary.elapsed)
        let b2c = browser.get(browser.authorizeURL(extra: [("max_age", boundary.maxAge)]))
        let entra = browser.get(entraAuthorizeURL(extra: [("max_age", boundary.maxAge)]))
        let b2cAsks = ScrapedPage(b2c.bodyText).hasElement("localAccountForm")
        let entraAsks = entra.bodyText.contains("<form id=\"signin\"")
        #expect(b2cAsks == boundary.signsInAgain, "B2C")
        #expect(entraAsks == boundary.signsInAgain, "Entra")
        if !boundary.signsInAgain {
            #expect(browser.code(from: b2c) != nil)
            #expect(B2CBrowser.redirectParameters(entra)?["code"] != nil)
        }
    }

    @Test func bothRefuseWhatIsNotAWholeNonNegativeNumber() throws {
        let browser = B2CBrowser()
        browser.service.directory.withLock {
            $0.applications.append(Application(clientID: Self.entraClientID, displayName: "Contoso Notes", isPublicClient: true, redirectURIs: [Self.entraRedirectURI]))
        }
        for text in ["-1", "1.5", "soon"] {
            let b2c = try #require(B2CBrowser.redirectParameters(browser.get(browser.authorizeURL(extra: [("max_age", text)]))))
            #expect(b2c["error_description"]?.hasPrefix("AADB2C90120") == true)
            let entra = try #require(B2CBrowser.redirectParameters(browser.get(entraAuthorizeURL(extra: [("max_age", text)]))))
            #expect(entra["error_description"]?.hasPrefix("AADSTS9002313") == true)
        }
        // B2C documents an upper bound (a 32-bit integer); Entra takes any whole number.
        #expect(MaxAge(parameter: "2147483648", limit: Int(Int32.max)) == nil)
        #expect(MaxAge(parameter: "2147483648")?.seconds == 2_147_483_648)
    }

    func entraAuthorizeURL(extra: [(String, String)] = []) -> String {
        var parameters = FormParameters([
            ("client_id", Self.entraClientID), ("response_type", "code"), ("redirect_uri", Self.entraRedirectURI),
            ("scope", "openid profile"), ("state", "st4te"),
        ])
        for (name, value) in extra { parameters.append(name, value) }
        return "/contoso.onmicrosoft.com/oauth2/v2.0/authorize?" + parameters.encoded
    }
}
