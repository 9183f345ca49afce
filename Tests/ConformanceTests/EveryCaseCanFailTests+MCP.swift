import Conformance
import Foundation
import Testing

extension EveryCaseCanFailTests {
    static let mcpServer = "http://127.0.0.1:8123/mcp"
    static let mcpCase = "mcp.entra-resource-and-registration"

    /// An MCP client's sign-in and redemption, each naming `resource` (nil: none), asking `scope`.
    private static func mcpJourney(resource: String?, redeemedResource: String?, scope: String = "\(mcpServer)/tools.call offline_access",
                                   registration: Bool = false, ok: Bool = true) -> Synthetic {
        var journal = Synthetic()
        journal.mcpServer = MCPServerSettings(url: Self.mcpServer, apiClientID: "api", issuer: "https://login.test/t/v2.0")
        if registration { journal.add(at: 0.05, "POST", "/register", status: 404, kind: "other") }
        journal.authorize(at: 0.1, extra: [("scope", scope)] + (resource.map { [("resource", $0)] } ?? []))
        journal.redeem(at: 0.5, extra: redeemedResource.map { ["resource": $0] } ?? [:])
        journal.reply(1, .callMCP, from: 0, to: 1, ok: ok)
        return journal
    }

    @Test func mcpClientMeetingEntra() {
        let correct = Self.mcpJourney(resource: Self.mcpServer, redeemedResource: Self.mcpServer)
        correct.expectPassed(Self.mcpCase)

        Self.mcpJourney(resource: nil, redeemedResource: nil).expect(Self.mcpCase, .failed, decidedBy: "resource-on-authorize")
        let onlyOnAuthorize = Self.mcpJourney(resource: Self.mcpServer, redeemedResource: nil)
        onlyOnAuthorize.expect(Self.mcpCase, .failed, decidedBy: "resource-on-token")
        #expect(onlyOnAuthorize.check(Self.mcpCase, "resource-on-authorize").verdict == .passed)
        // A trailing slash is another resource: Entra compares the Application ID URI character for character.
        Self.mcpJourney(resource: Self.mcpServer + "/", redeemedResource: Self.mcpServer + "/")
            .expect(Self.mcpCase, .failed, decidedBy: "resource-on-authorize")
        // The short name Entra reads as Graph's, with the server's URL as resource.
        let shortScope = Self.mcpJourney(resource: Self.mcpServer, redeemedResource: Self.mcpServer, scope: "tools.call offline_access")
        shortScope.expect(Self.mcpCase, .failed, decidedBy: "resource-on-authorize")
        #expect(shortScope.check(Self.mcpCase, "resource-on-authorize").reason.contains("in full"))
        Self.mcpJourney(resource: Self.mcpServer, redeemedResource: Self.mcpServer, registration: true)
            .expect(Self.mcpCase, .failed, decidedBy: "no-dynamic-registration")
        // A registration another MCP case's app may have sent: which app cannot be told.
        var shared = Self.mcpJourney(resource: Self.mcpServer, redeemedResource: Self.mcpServer)
        shared.unattributable = [Exchange(id: 99, time: Synthetic.t0, method: "POST", path: "/register", kind: "other", status: 404)]
        #expect(shared.check(Self.mcpCase, "no-dynamic-registration").verdict == .notTestable)
        // Another scope of the server's origin is not the server's scope.
        Self.mcpJourney(resource: Self.mcpServer, redeemedResource: Self.mcpServer, scope: "\(Self.mcpServer)/anything offline_access")
            .expect(Self.mcpCase, .failed, decidedBy: "resource-on-authorize")
        // A later refresh that leaves the resource out.
        var refreshedWithout = correct
        refreshedWithout.outcomes.removeAll()
        refreshedWithout.refresh(at: 0.8)
        refreshedWithout.reply(1, .callMCP, from: 0, to: 1)
        refreshedWithout.expect(Self.mcpCase, .failed, decidedBy: "resource-on-token")

        var neverSignedIn = Synthetic()
        neverSignedIn.mcpServer = MCPServerSettings(url: Self.mcpServer, apiClientID: "api", issuer: "https://login.test/t/v2.0")
        neverSignedIn.reply(1, .callMCP, from: 0, to: 1, ok: false)
        #expect(neverSignedIn.check(Self.mcpCase, "resource-on-authorize").verdict == .notTestable)
        neverSignedIn.expect(Self.mcpCase, .failed, decidedBy: "calls-the-tool")

        var olderAdapter = Synthetic()
        olderAdapter.mcpServer = MCPServerSettings(url: Self.mcpServer, apiClientID: "api", issuer: "https://login.test/t/v2.0")
        olderAdapter.outcomes = [StepOutcome(id: 1, step: .callMCP, observed: .answered, ok: false, error: .unsupported, startedAt: Synthetic.t0, endedAt: Synthetic.t0)]
        #expect(olderAdapter.judge(Self.mcpCase).verdict == .skipped)
    }
}

/// Which unbound posts count as an app registering itself.
@Suite struct RegistrationPathTests {
    @Test(arguments: ["/register", "/REGISTER", "/contoso.onmicrosoft.com/register", "/4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70/v2.0/register"])
    func registrations(path: String) {
        #expect(Judge.isDynamicRegistration(method: "POST", path: path))
        #expect(!Judge.isDynamicRegistration(method: "GET", path: path))
    }

    @Test(arguments: ["/", "/register/", "/registers", "/woodgrove.onmicrosoft.com/register/v1.0/challenge",
                      "/t/api/v2.0/auth/methods/email/e/register", "/t/oauth2/v2.0/register", "/a/b/c/register"])
    func otherPaths(path: String) { #expect(!Judge.isDynamicRegistration(method: "POST", path: path)) }
}
