import EntraCrypto
import EntraHTTP
import Foundation
import Testing
import Synchronization
import ExchangeKernel
@testable import IdentityPlatform

@Suite("Browser: sessions, prompts and response modes")
struct BrowserSessionTests {
    typealias F = BrowserFixtures

    /// A browser where `logins` have signed in and consented to User.Read for the test app.
    func signedIn(_ logins: [String], options: IdentityOptions = .init()) -> ScriptedBrowser {
        let browser = ScriptedBrowser(options: options)
        for login in logins {
            let done = browser.signInAndConsent(F.authorize(extra: [("prompt", "login")]), login: login)
            #expect(RedirectResult(done)?["code"] != nil)
        }
        return browser
    }

    @Test func secondAuthorizeWithTheCookieSkipsSignInAndConsent() throws {
        let browser = signedIn([F.adele])
        browser.clock.advance(by: 60)
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: [("state", "second")]))))
        #expect(redirect["state"] == "second")
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.authTime == F.start, "single sign-on keeps the original authentication time")
        #expect(browser.service.currentDirectory.user(id: record.grant.userID)?.userPrincipalName == F.adele)
    }

    /// What `--state` writes of a sign-in names the session by a digest of its cookie: no row holds a cookie
    /// a browser could present, and the cookie still finds its session.
    @Test func noPersistedRecordHoldsTheSessionCookie() throws {
        final class Recording: StatePersistence, @unchecked Sendable {
            let rows = Mutex<[(store: String, key: String, value: String)]>([])
            func upsert(store: String, key: String, value: [UInt8], forgetAt: Date) { rows.withLock { $0.append((store, key, String(decoding: value, as: UTF8.self))) } }
            func delete(store: String, key: String) {}
            func deleteAll() {}
            func saveDirectory(_ rows: [DirectoryRow]) {}
        }
        let browser = ScriptedBrowser()
        let recording = Recording()
        _ = browser.service.state.withLock { $0.attach(recording, restoring: []) }
        let done = browser.signInAndConsent(F.authorize(), login: F.adele)
        #expect(RedirectResult(done)?["code"] != nil)
        let cookie = try #require(browser.sessionCookie)
        let rows = recording.rows.withLock { $0 }
        #expect(rows.contains { $0.store == "sessions" } && rows.contains { $0.store == "pending_authorizations" })
        for row in rows { #expect(!row.key.contains(cookie) && !row.value.contains(cookie), "a \(row.store) row holds the cookie") }
        // The cookie still signs the browser in silently.
        let again = try #require(RedirectResult(browser.get(F.authorize(extra: [("prompt", "none")]))))
        #expect(again["code"] != nil)
    }

    @Test func withoutTheCookieTheUserSignsInAgain() {
        let browser = signedIn([F.adele])
        browser.cookies.removeAll()
        #expect(browser.get(F.authorize()).has("signin"))
    }

    @Test func accountPickerListsEverySignedInAccount() throws {
        let browser = signedIn([F.adele, F.alex])
        let picker = browser.get(F.authorize())
        #expect(picker.has("picker"))
        #expect(picker.bodyText.contains("data-upn=\"\(F.adele)\"") && picker.bodyText.contains("data-upn=\"\(F.alex)\""))
        #expect(picker.bodyText.contains("id=\"otherTile\""))
        let alex = try #require(browser.service.currentDirectory.user(signInName: F.alex))
        let redirect = try #require(RedirectResult(browser.submit(picker, form: "picker", [("account", alex.id)])))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.userID == alex.id)

        let other = browser.submit(browser.get(F.authorize()), form: "picker", [("account", "other")])
        #expect(other.has("signin"))
    }

    @Test func pickingAnAccountNotInTheSessionDoesNotSignItIn() {
        let browser = signedIn([F.adele, F.alex])
        let megan = browser.service.currentDirectory.user(signInName: F.megan)!
        let page = browser.submit(browser.get(F.authorize()), form: "picker", [("account", megan.id)])
        #expect(page.has("signin"))
    }

    @Test func loginHintPicksTheMatchingSessionAccount() throws {
        let browser = signedIn([F.adele, F.alex])
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: [("login_hint", F.alex)]))))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(browser.service.currentDirectory.user(id: record.grant.userID)?.userPrincipalName == F.alex)
    }

    /// MSAL.js sends the id token's `login_hint` claim back as `login_hint`: it picks that account from the
    /// session, and without a session the sign-in page shows the account's name, not the opaque value.
    @Test func theLoginHintClaimNamesItsAccount() throws {
        let browser = signedIn([F.adele, F.alex])
        let alex = try #require(browser.service.currentDirectory.user(signInName: F.alex))
        let claim = TokenIdentifiers.loginHint(objectID: alex.id, tenantID: alex.tenantID)
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: [("login_hint", claim)]))))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.userID == alex.id)

        browser.cookies.removeAll()
        let page = browser.get(F.authorize(extra: [("login_hint", claim)]))
        #expect(page.has("signin") && page.bodyText.contains("value=\"\(F.alex)\"") && !page.bodyText.contains(claim))
        let stranger = TokenIdentifiers.loginHint(objectID: alex.id, tenantID: "00000000-0000-4000-8000-000000000000")
        #expect(!browser.get(F.authorize(extra: [("login_hint", stranger)])).bodyText.contains(stranger))
    }

    @Test func promptLoginAlwaysShowsSignIn() throws {
        let browser = signedIn([F.adele])
        browser.clock.advance(by: 120)
        let page = browser.get(F.authorize(extra: [("prompt", "login")]))
        #expect(page.has("signin"))
        let redirect = try #require(RedirectResult(browser.submit(page, form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.authTime == F.start.addingTimeInterval(120))
    }

    @Test func promptSelectAccountShowsThePickerEvenForOneAccount() {
        let browser = signedIn([F.adele])
        #expect(browser.get(F.authorize(extra: [("prompt", "select_account")])).has("picker"))
    }

    @Test func promptConsentAsksAgain() throws {
        let browser = signedIn([F.adele])
        let page = browser.get(F.authorize(extra: [("prompt", "consent")]))
        #expect(page.has("consent"))
        #expect(page.bodyText.contains("data-scope=\"User.Read\""))
        #expect(RedirectResult(browser.submit(page, form: "consent", [("action", "accept")]))?["code"] != nil)
    }

    @Test func promptNoneWithoutASessionIsLoginRequired() throws {
        let browser = ScriptedBrowser()
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: [("prompt", "none")]))))
        #expect(redirect["error"] == "login_required")
        #expect(redirect.aadsts == 50058)
        #expect(redirect["state"] == "st-123")
    }

    @Test func promptNoneWithASessionButNoConsentIsInteractionRequired() throws {
        let browser = signedIn([F.adele])
        let redirect = try #require(RedirectResult(browser.get(F.authorize(scope: "openid Mail.Read", extra: [("prompt", "none")]))))
        #expect(redirect["error"] == "interaction_required")
        #expect(redirect["suberror"] == "consent_required")
        #expect(redirect.aadsts == 65001)
    }

    @Test func promptNoneWithSeveralAccountsAndNoHintIsInteractionRequired() throws {
        let browser = signedIn([F.adele, F.alex])
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: [("prompt", "none")]))))
        #expect(redirect["error"] == "interaction_required")
        #expect(redirect.aadsts == 16000)
        let hinted = try #require(RedirectResult(browser.get(F.authorize(extra: [("prompt", "none"), ("login_hint", F.adele)]))))
        #expect(hinted["code"] != nil)
    }

    @Test func promptNoneWithSessionAndConsentIssuesACode() throws {
        let browser = signedIn([F.adele])
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: [("prompt", "none")]))))
        #expect(redirect["code"] != nil && redirect["error"] == nil)
    }

    @Test func maxAgeForcesReauthenticationWhenTheSessionIsOlder() throws {
        let browser = signedIn([F.adele])
        browser.clock.advance(by: 600)
        #expect(RedirectResult(browser.get(F.authorize(extra: [("max_age", "3600")])))?["code"] != nil)
        let page = browser.get(F.authorize(extra: [("max_age", "300")]))
        #expect(page.has("signin"))
        #expect(page.bodyText.contains("value=\"\(F.adele)\""))
        let silent = try #require(RedirectResult(browser.get(F.authorize(extra: [("max_age", "300"), ("prompt", "none")]))))
        #expect(silent["error"] == "login_required")
    }

    @Test func maxAgeZeroAlwaysReauthenticates() {
        let browser = signedIn([F.adele])
        #expect(browser.get(F.authorize(extra: [("max_age", "0")])).has("signin"))
    }

    @Test func autoLoginAnswersSelectAccountWithTheSignedInAccount() throws {
        var options = IdentityOptions()
        options.autoLogin = true
        let browser = ScriptedBrowser(options: options)
        #expect(RedirectResult(browser.get(F.authorize(extra: [("login_hint", F.alex)])))?["code"] != nil)
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: [("prompt", "select_account")]))))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(browser.service.currentDirectory.user(id: record.grant.userID)?.userPrincipalName == F.alex)
    }

    @Test func incrementalConsentAsksOnlyForNewPermissions() throws {
        let browser = signedIn([F.adele])
        let page = browser.get(F.authorize(scope: "openid profile User.Read Mail.Read"))
        #expect(page.has("consent"))
        #expect(page.bodyText.contains("data-scope=\"Mail.Read\""))
        #expect(!page.bodyText.contains("data-scope=\"User.Read\""))
        let redirect = try #require(RedirectResult(browser.submit(page, form: "consent", [("action", "accept")])))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(Set(record.grant.scopes).isSuperset(of: ["User.Read", "Mail.Read", "openid", "profile"]))
        #expect(RedirectResult(browser.get(F.authorize(scope: "openid Mail.Read")))?["code"] != nil)
    }

    @Test func adminOnlyPermissionStopsAtNeedAdminApproval() throws {
        let browser = signedIn([F.adele])
        let page = browser.get(F.authorize(scope: "openid User.Read.All"))
        #expect(page.has("adminconsent"))
        #expect(page.pageErrorCode == 90094)
        let redirect = try #require(RedirectResult(browser.submit(page, form: "adminconsent", [("action", "return")])))
        #expect(redirect.aadsts == 90094)
        #expect(redirect["state"] == "st-123")
    }

    @Test func adminConsentedPermissionNeedsNoPage() throws {
        var directory = F.directory()
        directory.grantConsent(ConsentGrant(clientID: F.clientID, resourceAppID: Resource.graphAppID, userID: nil, tenantID: Directory.contosoTenantID, scopes: ["User.Read", "User.Read.All"]))
        let browser = ScriptedBrowser(directory: directory)
        let done = browser.submit(browser.get(F.authorize(scope: "openid User.Read.All")), form: "signin", [("login", F.alex), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(RedirectResult(done)?["code"] != nil)
    }

    @Test func adminConsentGrantsForTheWholeOrganization() throws {
        let browser = ScriptedBrowser()
        let signIn = browser.get(F.authorize(scope: "openid User.Read.All", extra: [("prompt", "admin_consent")]))
        let consent = browser.submit(signIn, form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(consent.has("consent"))
        #expect(consent.bodyText.contains("id=\"consentForOrganization\""))
        #expect(consent.bodyText.contains("data-scope=\"User.Read.All\""))
        #expect(RedirectResult(browser.submit(consent, form: "consent", [("action", "accept")]))?["code"] != nil)
        #expect(browser.service.currentDirectory.grantedScopes(clientID: F.clientID, resourceAppID: Resource.graphAppID, userID: nil, tenantID: Directory.contosoTenantID).contains("user.read.all"))

        // Another user of the organisation is not asked at all.
        browser.cookies.removeAll()
        let done = browser.submit(browser.get(F.authorize(scope: "openid User.Read.All")), form: "signin", [("login", F.alex), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(RedirectResult(done)?["code"] != nil)
    }

    @Test func adalRefreshSessionSignsInAgain() {
        let browser = signedIn([F.adele])
        let target = "/common/oauth2/authorize?" + FormParameters([
            ("client_id", F.clientID), ("response_type", "code"), ("redirect_uri", F.redirectURI),
            ("resource", "https://graph.microsoft.com"), ("prompt", "refresh_session"),
        ]).encoded
        #expect(browser.get(target).has("signin"))
    }

    @Test func fragmentResponseMode() throws {
        let browser = ScriptedBrowser()
        let redirect = try #require(RedirectResult(browser.signInAndConsent(F.authorize(extra: [("response_mode", "fragment")]), login: F.adele)))
        #expect(redirect.inFragment)
        #expect(redirect["code"] != nil && redirect["state"] == "st-123")
    }

    @Test func formPostResponseModeWorksWithoutScript() throws {
        let browser = ScriptedBrowser()
        let page = browser.signInAndConsent(F.authorize(extra: [("response_mode", "form_post")]), login: F.adele)
        #expect(page.status == .ok)
        let form = try #require(ScrapedForm.parse(page.bodyText, id: "response"))
        #expect(form.action == F.redirectURI)
        let fields = Dictionary(form.hidden, uniquingKeysWith: { first, _ in first })
        #expect(fields["state"] == "st-123" && fields["code"] != nil && fields["client_info"] != nil)
        #expect(page.bodyText.contains("<button type=\"submit\" id=\"idSubmit_Continue\">Continue</button>"))
        #expect(page.bodyText.contains("method=\"post\""))
    }

    @Test func formPostErrorsArePostedToo() throws {
        let browser = ScriptedBrowser()
        let page = browser.get(F.authorize(extra: [("response_mode", "form_post"), ("prompt", "none")]))
        let form = try #require(ScrapedForm.parse(page.bodyText, id: "response"))
        let fields = Dictionary(form.hidden, uniquingKeysWith: { first, _ in first })
        #expect(fields["error"] == "login_required" && fields["state"] == "st-123")
    }

    @Test func mfaPageForUsersWhoNeedASecondFactor() throws {
        var directory = F.directory()
        let index = directory.users.firstIndex { $0.answers(to: F.adele) }!
        directory.users[index].mfaRequired = true
        let browser = ScriptedBrowser(directory: directory)
        let mfa = browser.submit(browser.get(F.authorize()), form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(mfa.has("mfa"))
        #expect(mfa.bodyText.contains("name=\"otc\" id=\"idTxtBx_SAOTCC_OTC\""))
        let wrong = browser.submit(mfa, form: "mfa", [("otc", "12ab"), ("action", "mfa")])
        #expect(wrong.has("mfa") && wrong.pageErrorCode == 500121)
        let consent = browser.submit(wrong, form: "mfa", [("otc", "123456"), ("action", "mfa")])
        #expect(consent.has("consent"))
        let redirect = try #require(RedirectResult(browser.submit(consent, form: "consent", [("action", "accept")])))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.authenticationMethods == ["pwd", "mfa"])
        // The session remembers the second factor: the next sign-in asks for nothing.
        #expect(RedirectResult(browser.get(F.authorize()))?["code"] != nil)
    }

    @Test func scenarioDirectivesReachThePages() throws {
        let browser = signedIn([F.adele])
        var withdraw = ScenarioDirectives()
        withdraw.consentRequiredScopes = ["User.Read"]
        let consent = browser.under(withdraw) { browser.get(F.authorize()) }
        #expect(consent.has("consent") && consent.bodyText.contains("data-scope=\"User.Read\""))
        let silent = try #require(browser.under(withdraw) { RedirectResult(browser.get(F.authorize(extra: [("prompt", "none")]))) })
        #expect(silent["error"] == "interaction_required" && silent.aadsts == 65001)

        var mfa = ScenarioDirectives()
        mfa.requireMFA = true
        let page = browser.under(mfa) { browser.get(F.authorize()) }
        #expect(page.has("mfa"))
        #expect(RedirectResult(browser.get(F.authorize()))?["code"] != nil, "without the scenario the same request goes straight through")
    }

    @Test func claimsAskingForMFAChallengeARegisteredUser() {
        let browser = ScriptedBrowser()
        let claims = #"{"id_token":{"amr":{"essential":true,"values":["mfa"]}}}"#
        let page = browser.submit(browser.get(F.authorize(extra: [("claims", claims)])), form: "signin", [("login", F.adele), ("passwd", Directory.demoPassword), ("action", "signin")])
        #expect(page.has("mfa"))
    }

    @Test func promptCreateAddsAUserToTheTenant() throws {
        let browser = ScriptedBrowser()
        let page = browser.get(F.authorize(tenant: "contoso.onmicrosoft.com", extra: [("prompt", "create")]))
        #expect(page.has("signup"))
        let taken = browser.submit(page, form: "signup", [("email", F.alex), ("displayName", "Alex Again"), ("passwd", "L0ngEnough!"), ("action", "create")])
        #expect(taken.bodyText.contains("id=\"signupError\""))
        let consent = browser.submit(taken, form: "signup", [("email", "new.person@contoso.onmicrosoft.com"), ("displayName", "New Person"), ("passwd", "L0ngEnough!"), ("action", "create")])
        #expect(consent.has("consent"))
        let created = try #require(browser.service.currentDirectory.user(signInName: "new.person@contoso.onmicrosoft.com"))
        #expect(created.tenantID == Directory.contosoTenantID && created.displayName == "New Person" && created.password == "L0ngEnough!")
        let redirect = try #require(RedirectResult(browser.submit(consent, form: "consent", [("action", "accept")])))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.userID == created.id && record.grant.isNewUser)
    }

    @Test func createOneFromTheSignInPageAddsAPersonalAccountThroughCommon() throws {
        let browser = ScriptedBrowser()
        let signUp = browser.submit(browser.get(F.authorize()), form: "signin", [("login", "sam@example.org"), ("action", "signup")])
        #expect(signUp.has("signup"))
        #expect(signUp.bodyText.contains("value=\"sam@example.org\""))
        let short = browser.submit(signUp, form: "signup", [("email", "sam@example.org"), ("passwd", "short"), ("action", "create")])
        #expect(short.bodyText.contains("id=\"signupError\""))
        let consent = browser.submit(short, form: "signup", [("email", "sam@example.org"), ("displayName", ""), ("passwd", "L0ngEnough!"), ("action", "create")])
        #expect(consent.has("consent"))
        let sam = try #require(browser.service.currentDirectory.user(signInName: "sam@example.org"))
        #expect(sam.tenantID == Tenant.consumersTenantID && sam.displayName == "sam")
    }

    @Test func domainHintNarrowsTheSignedInAccounts() throws {
        let browser = signedIn([F.adele, F.megan])
        #expect(browser.get(F.authorize()).has("picker"))
        let redirect = try #require(RedirectResult(browser.get(F.authorize(extra: [("domain_hint", "consumers")]))))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.tenantID == Tenant.consumersTenantID)
        let contoso = try #require(RedirectResult(browser.get(F.authorize(extra: [("domain_hint", "contoso.com")]))))
        let contosoRecord = try #require(browser.service.state.withLock { $0.authorizationCodes[contoso["code"] ?? ""] })
        #expect(contosoRecord.grant.tenantID == Directory.contosoTenantID)
    }

    @Test func autoLoginWithAHintRedirectsStraightAway() throws {
        var options = IdentityOptions()
        options.autoLogin = true
        let browser = ScriptedBrowser(options: options)
        let response = browser.get(F.authorize(extra: [("login_hint", F.alex)]))
        let redirect = try #require(RedirectResult(response))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(browser.service.currentDirectory.user(id: record.grant.userID)?.userPrincipalName == F.alex)
        #expect(browser.sessionCookie != nil)
        let alex = browser.service.currentDirectory.user(signInName: F.alex)!
        #expect(browser.service.currentDirectory.grantedScopes(clientID: F.clientID, resourceAppID: Resource.graphAppID, userID: alex.id, tenantID: alex.tenantID) == ["user.read"])
    }

    @Test func autoLoginSignsInTheOnlyUserOfTheTenant() throws {
        var options = IdentityOptions()
        options.autoLogin = true
        let browser = ScriptedBrowser(options: options)
        let redirect = try #require(RedirectResult(browser.get(F.authorize(tenant: "consumers"))))
        let record = try #require(browser.service.state.withLock { $0.authorizationCodes[redirect["code"] ?? ""] })
        #expect(record.grant.tenantID == Tenant.consumersTenantID)
    }

    @Test func autoLoginShowsThePickerWhenAmbiguous() throws {
        var options = IdentityOptions()
        options.autoLogin = true
        let browser = ScriptedBrowser(options: options)
        let picker = browser.get(F.authorize(tenant: "contoso.onmicrosoft.com"))
        #expect(picker.has("picker"))
        #expect(picker.bodyText.contains(F.adele) && picker.bodyText.contains(F.alex) && !picker.bodyText.contains(F.megan))
        let adele = browser.service.currentDirectory.user(signInName: F.adele)!
        let redirect = try #require(RedirectResult(browser.submit(picker, form: "picker", [("account", adele.id)])))
        #expect(redirect["code"] != nil)
    }

    @Test func displayNamesAndParametersAreEscaped() throws {
        var directory = F.directory()
        let index = directory.users.firstIndex { $0.answers(to: F.alex) }!
        directory.users[index].displayName = "<script>alert('x')</script>"
        directory.applications[directory.applications.count - 1].displayName = "Notes \"&\" <b>bold</b>"
        let browser = ScriptedBrowser(directory: directory)
        let hint = "\"><script>alert(1)</script>"
        let signIn = browser.get(F.authorize(extra: [("login_hint", hint)]))
        #expect(!signIn.bodyText.contains("<script>"))
        #expect(signIn.bodyText.contains("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(signIn.bodyText.contains("Notes &quot;&amp;&quot; &lt;b&gt;bold&lt;/b&gt;"))

        _ = browser.signInAndConsent(F.authorize(extra: [("prompt", "login")]), login: F.alex)
        _ = browser.signInAndConsent(F.authorize(extra: [("prompt", "login")]), login: F.adele)
        let picker = browser.get(F.authorize())
        #expect(picker.has("picker"))
        #expect(!picker.bodyText.contains("<script>"))
        #expect(picker.bodyText.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))

        let posted = browser.get(F.authorize(extra: [("response_mode", "form_post"), ("state", "\"/><script>x()</script>"), ("login_hint", F.adele)]))
        let form = try #require(ScrapedForm.parse(posted.bodyText, id: "response"))
        #expect(form.hidden.first { $0.0 == "state" }?.1 == "\"/><script>x()</script>")
        #expect(!posted.bodyText.contains("<script>x()"))
    }
}
