@testable import Journal
import ExchangeKernel
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
import FakeEntraApp
import Scenarios

@Suite struct ConsolePageTests {
    @Test func rootAndConsolePathServeTheOverview() {
        let harness = ConsoleHarness()
        for path in ["/", "/_fakeentra/console"] {
            let response = harness.get(path)
            #expect(response.status.code == 200)
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
            let page = response.bodyText
            #expect(page.contains("id=\"authorities\""))
            #expect(page.contains("data-authority=\"https://login.fake.test/common\""))
            #expect(page.contains("https://login.fake.test/contoso.onmicrosoft.com"))
            #expect(page.contains("https://login.fake.test/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi"))
            #expect(page.contains("id=\"nav\""))
        }
        // Other methods on / are not the console's.
        #expect(harness.post("/", form: []).status.code == 404)
    }

    @Test func everyUserSuppliedStringIsEscaped() throws {
        let harness = ConsoleHarness()
        harness.signIn(ConsoleHarness.hostileUPN)
        harness.signIn(client: "<script>alert(4)</script>")
        _ = harness.get("/organizations/oauth2/v2.0/authorize?client_id=%22%3E%3Cscript%3Ealert(5)%3C/script%3E&login_hint=%3Cimg%20src=x%3E")
        _ = harness.get("/%3Cscript%3Ealert(6)%3C/script%3E")
        let pages = ["/_fakeentra/console/directory", "/_fakeentra/console/journal", "/_fakeentra/console/journal?client=%3Cscript%3E",
                     "/_fakeentra/console/scenarios?done=%3Cscript%3E", "/_fakeentra/console/journal/rows?after=0",
                     "/_fakeentra/console/%3Cscript%3E"]
            + (1...4).map { "/_fakeentra/console/journal/\($0)" }
        for path in pages {
            let page = harness.get(path).bodyText
            #expect(!page.contains("<script>alert"), "\(path) shows an unescaped script")
            #expect(!page.contains("<img src=x"), "\(path) shows an unescaped image")
            #expect(!page.contains("<svg onload"), "\(path) shows an unescaped svg")
        }
        let directory = harness.get("/_fakeentra/console/directory").bodyText
        #expect(directory.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;"))
    }

    /// Groups, managed identities and Microsoft's own apps are listed with the rest of the directory.
    @Test func theDirectoryListsGroupsIdentitiesAndMicrosoftsApps() {
        let directory = ConsoleHarness().get("/_fakeentra/console/directory").bodyText
        #expect(directory.contains("id=\"groupTable\"") && directory.contains("data-group=\"4b2d8c3e-5f6a-4b7c-8d8e-9f0a1b2c3d4e\""))
        #expect(directory.contains("data-identity=\"\(ManagedIdentity.demoUserAssignedClientID)\""))
        #expect(directory.contains("data-first-party=\"\(MicrosoftFirstParty.azureCLI)\"") && directory.contains("Windows Azure Service Management API"))
        // A B2C local account is listed by the email it signs in with, as the docs name it.
        let ben = directory.components(separatedBy: "<tr data-user=\"").first(where: { $0.contains("fabrikamb2c.onmicrosoft.com\"") })
        #expect(ben?.split(separator: "<td>").dropFirst().first?.contains("ben@fabrikam.test") == true, "\(ben ?? "no B2C row")")
    }

    /// The codes External ID mailed are in the directory's outbox, and its customers are listed by email.
    @Test func theDirectoryShowsTheOutboxAndExternalCustomersByEmail() throws {
        let harness = ConsoleHarness()
        let client = "7c2f0e51-9a4b-4d36-8e1f-0b5a6c3d2e19", address = "console@woodgrove.example"
        let started = harness.post("/woodgrove.onmicrosoft.com/signup/v1.0/start", form: [("client_id", client), ("username", address), ("challenge_type", "oob redirect")])
        let token = try #require((try JSONSerialization.jsonObject(with: Data(started.body)) as? [String: Any])?["continuation_token"] as? String)
        let challenged = harness.post("/woodgrove.onmicrosoft.com/signup/v1.0/challenge", form: [("client_id", client), ("continuation_token", token), ("challenge_type", "oob redirect")])
        #expect(challenged.status.code == 200, "\(challenged.bodyText)")
        let directory = harness.get("/_fakeentra/console/directory").bodyText
        let row = try #require(directory.components(separatedBy: "<tr data-mail=\"").dropFirst().first)
        #expect(row.hasPrefix(address) && row.contains("signUp"))
        #expect(row.range(of: "[0-9]{8}", options: .regularExpression) != nil, "the code is shown")
        let jordan = directory.components(separatedBy: "<tr data-user=\"").first(where: { $0.contains("@woodgrove.onmicrosoft.com\"") })
        #expect(jordan?.split(separator: "<td>").dropFirst().first?.contains("jordan@woodgrove.example") == true, "\(jordan ?? "no External ID row")")
    }

    @Test func journalFiltersByClientUserEndpointAndStatus() throws {
        let harness = ConsoleHarness()
        let appA = "aaaaaaaa-0000-4000-8000-00000000000a", appB = "bbbbbbbb-0000-4000-8000-00000000000b"
        #expect(harness.signIn(ConsoleHarness.adele, client: appA).status.code == 200)
        #expect(harness.signIn(ConsoleHarness.alex, client: appB).status.code == 200)
        #expect(harness.signIn(ConsoleHarness.alex, client: appB, password: "wrong").status.code == 400)
        _ = harness.get("/common/discovery/instance?api-version=1.1&authorization_endpoint=https://login.fake.test/common/oauth2/v2.0/authorize")

        func rows(_ query: String) -> [String] {
            let page = harness.get("/_fakeentra/console/journal?\(query)").bodyText
            return page.components(separatedBy: "<tr data-entry-id=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        }
        #expect(rows("").count == 4)
        #expect(rows("client=\(appA)") == ["1"])
        #expect(rows("client=bbbbbbbb") == ["3", "2"])
        #expect(rows("user=alex.wilber") == ["3", "2"])
        #expect(rows("user=ADELE") == ["1"])
        #expect(rows("kind=token") == ["3", "2", "1"])
        #expect(rows("kind=instance_discovery") == ["4"])
        #expect(rows("status=4xx") == ["3"])
        #expect(rows("status=200&client=\(appB)") == ["2"])
        #expect(harness.get("/_fakeentra/console/journal?status=abc").status.code == 400)

        // The live list asks for rows newer than the last it has.
        let live = harness.get("/_fakeentra/console/journal/rows?after=2&kind=token").bodyText
        #expect(live.contains("data-entry-id=\"3\"") && !live.contains("data-entry-id=\"2\"") && !live.contains("data-entry-id=\"4\""))
    }

    @Test func entryShowsTheDecodedTokensTheJournalRedacts() throws {
        let harness = ConsoleHarness()
        #expect(harness.signIn().status.code == 200)
        // The journal itself keeps tokens redacted.
        let journal = harness.application.journal.entries()
        #expect(journal.count == 1)
        #expect(!journal[0].responseBody.contains("eyJ"))

        let page = harness.get("/_fakeentra/console/journal/1").bodyText
        #expect(page.contains("data-entry-id=\"1\""))
        #expect(page.contains("data-token=\"id_token\"") && page.contains("data-token=\"access_token\""))
        let row = try #require(page.range(of: "<tr data-claim=\"preferred_username\">"))
        #expect(page[row.upperBound...].prefix(300).contains(ConsoleHarness.adele))
        #expect(page.contains("data-signature=\"valid\""))
        #expect(page.contains("The user&#39;s sign-in name"))
        // No raw token is shown: the page has the claims, not a bearer credential.
        #expect(!page.contains("eyJ0eXAiOiJKV1Qi"))
        #expect(harness.get("/_fakeentra/console/journal/99").status.code == 404)
    }

    @Test func accessFollowsTheControlAPIRule() throws {
        let open = ConsoleHarness()
        #expect(open.get("/", from: "10.0.0.7").status.code == 403)
        #expect(open.get("/_fakeentra/console/journal", from: "10.0.0.7").status.code == 403)

        let guarded = ConsoleHarness(secret: "s3cret")
        let ask = guarded.get("/_fakeentra/console/journal")
        #expect(ask.status.code == 401)
        #expect(ask.bodyText.contains("id=\"signInForm\""))
        #expect(!ask.bodyText.contains("id=\"journal\""))
        #expect(guarded.post("/_fakeentra/console/login", form: [("secret", "nope")]).status.code == 401)
        let signedIn = guarded.post("/_fakeentra/console/login", form: [("secret", "s3cret"), ("next", "/_fakeentra/console/journal")], from: "10.0.0.7")
        #expect(signedIn.status.code == 303)
        #expect(signedIn.headers["Location"] == "/_fakeentra/console/journal")
        let cookie = try #require(signedIn.headers["Set-Cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains("s3cret"))
        let pair = String(cookie.prefix { $0 != ";" })
        #expect(guarded.get("/_fakeentra/console/journal", headers: ["Cookie": pair], from: "10.0.0.7").status.code == 200)
        #expect(guarded.get("/_fakeentra/console", headers: ["Authorization": "Bearer s3cret"], from: "10.0.0.7").status.code == 200)
        // The sign-in form does not redirect elsewhere.
        let offsite = guarded.post("/_fakeentra/console/login", form: [("secret", "s3cret"), ("next", "https://evil.test/")])
        #expect(offsite.headers["Location"] == "/_fakeentra/console")
    }

    @Test func scenarioFormsPostToTheControlAPIBehindAFormGuard() throws {
        let harness = ConsoleHarness()
        let page = harness.get("/_fakeentra/console/scenarios").bodyText
        let csrf = try #require(ConsoleHarness.csrf(in: page))
        let bindForm: [(String, String)] = [("scenario", "mfa-required"), ("target", "client"), ("value", "cccccccc-0000-4000-8000-00000000000c")]

        #expect(harness.post("/_fakeentra/console/bind", form: bindForm).status.code == 403)
        #expect(harness.post("/_fakeentra/console/bind", form: bindForm + [("csrf", csrf)], headers: ["Origin": "https://evil.test"]).status.code == 403)
        #expect(harness.application.engine.bindings.isEmpty)

        let bound = harness.post("/_fakeentra/console/bind", form: bindForm + [("csrf", csrf)], headers: ["Origin": "https://login.fake.test"])
        #expect(bound.status.code == 303)
        let binding = try #require(harness.application.engine.bindings.first)
        #expect(binding.scenario == "mfa-required")
        #expect(harness.get("/_fakeentra/console/scenarios").bodyText.contains("data-binding=\"\(binding.id)\""))

        // The control API's own validation speaks through the console.
        let twice = harness.post("/_fakeentra/console/bind", form: bindForm + [("csrf", csrf)])
        #expect(twice.status.code == 409)
        #expect(twice.bodyText.contains("id=\"actionError\""))

        #expect(harness.post("/_fakeentra/console/clock", form: [("csrf", csrf), ("binding", binding.id), ("seconds", "3600")]).status.code == 303)
        #expect(harness.application.engine.world(binding: binding.id)?.virtualClock?.offset == 3600)
        #expect(harness.post("/_fakeentra/console/reset", form: [("csrf", csrf), ("binding", binding.id)]).status.code == 303)
        #expect(harness.application.engine.world(binding: binding.id)?.virtualClock?.offset == 0)
        #expect(harness.post("/_fakeentra/console/unbind", form: [("csrf", csrf), ("binding", binding.id)]).status.code == 303)
        #expect(harness.application.engine.bindings.isEmpty)
    }

    @Test func mintFormShowsTheTokenDecoded() throws {
        let harness = ConsoleHarness()
        let csrf = try #require(ConsoleHarness.csrf(in: harness.get("/_fakeentra/console/tokens").bodyText))
        let form: [(String, String)] = [("type", "access"), ("user", ConsoleHarness.adele), ("scopes", "api://orders-api/Orders.Read"),
                                        ("roles", "Orders.Admin"), ("lifetime", "600"), ("claims", #"{"ctry": "<script>alert(7)</script>"}"#)]
        #expect(harness.post("/_fakeentra/console/tokens", form: form).status.code == 403)
        let minted = harness.post("/_fakeentra/console/tokens", form: form + [("csrf", csrf)])
        #expect(minted.status.code == 200)
        let page = minted.bodyText
        #expect(page.contains("id=\"mintedToken\""))
        #expect(page.contains("<tr data-claim=\"roles\">") && page.contains("Orders.Admin"))
        #expect(page.contains("data-signature=\"valid\""))
        #expect(!page.contains("<script>alert"))
        #expect(harness.post("/_fakeentra/console/tokens", form: [("claims", "[1]"), ("csrf", csrf)]).status.code == 400)
        let unknown = harness.post("/_fakeentra/console/tokens", form: [("user", "nobody@contoso.onmicrosoft.com"), ("csrf", csrf)])
        #expect(unknown.status.code == 404 && unknown.bodyText.contains("id=\"mintError\""))
    }

    @Test func caDownloadNeedsACertificateDirectory() {
        #expect(ConsoleHarness().get("/_fakeentra/console/ca.pem").status.code == 404)
    }
}
