import ControlPlane
import EntraHTTP
import FakeEntraApp
import Foundation
import IdentityPlatform
import Scenarios
import Testing

/// "Try it" in process: the redirect it starts, the app it registers where the sign-in goes, and what it
/// refuses.
@Suite struct TryItTests {
    @Test func aWholeTryItWithAServerWideScenarioBound() throws {
        let harness = ConsoleHarness()
        try harness.application.engine.bind(scenario: "happy-path", to: .server)
        let start = harness.get("/_fakeentra/console/try?authority=%2Fcontoso.onmicrosoft.com")
        #expect(start.status.code == 303)
        let authorize = try #require(start.headers["Location"])
        #expect(authorize.hasPrefix("/contoso.onmicrosoft.com/oauth2/v2.0/authorize?client_id=\(ControlCommands.consoleClientID)&"))
        // Registered where the requests go: the server binding's world, and the default world.
        for binding in [nil, "default"] as [String?] {
            let app = harness.application.engine.world(binding: binding)?.service.currentDirectory.application(clientID: ControlCommands.consoleClientID)
            #expect(app?.redirectURIs == ["https://\(ConsoleHarness.host)/_fakeentra/console/try/done"], "\(binding ?? "unbound")")
        }
        // The sign-in pages themselves, the redemption and the Graph call: Tests/RealClients/test_browser_console_try_it.py.
        let page = harness.get(authorize).bodyText
        #expect(page.contains("id=\"picker\"") || page.contains("id=\"i0116\""), "a sign-in page (prompt=select_account): \(page.prefix(300))")
        #expect(harness.get("/_fakeentra/console/try/done?state=unknown&code=x").bodyText.contains("id=\"tryError\""))
    }

    @Test(arguments: ["//evil.example", "https://evil.example", "/common/../x", "/a//b", "/tfp/x/../y", "/a/b/c/d", "/", "", "/ｃommon", "/common?x=1"])
    func onlyAnAuthorityOfThisServer(authority: String) {
        let harness = ConsoleHarness()
        let start = harness.get("/_fakeentra/console/try?authority=\(FormCoding.encodeComponent(authority))")
        #expect(start.status.code == 400 && start.headers["Location"] == nil, "\(authority)")
    }
}
