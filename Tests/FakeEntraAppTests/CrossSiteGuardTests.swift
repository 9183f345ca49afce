import EntraHTTP
import EntraServer
import FakeEntraTesting
import Foundation
import IdentityPlatform
import Testing

/// No web page can drive FakeEntra: state-changing `/_fakeentra/` requests from another origin are refused,
/// JSON endpoints take JSON only, and pages cannot be framed. Through FakeEntraTesting, in process and over
/// TLS: the guard sits in the stack both reach.
@Suite struct CrossSiteGuardTests {
    static func userNames(_ client: FakeEntraClient) async throws -> [String] {
        let users = try await client.execute(.get, "/_fakeentra/users")
        return ((try users.json()["users"] as? [[String: Any]]) ?? []).compactMap { ($0["userPrincipalName"] as? String)?.lowercased() }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func aPageOfAnotherOriginCannotChangeAnything(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let user = Array(#"{"userPrincipalName": "mallory@contoso.onmicrosoft.com", "displayName": "Mallory"}"#.utf8)
            // What a page's auto-submitted `<form enctype="text/plain">` sends.
            let form = try await client.execute(.post, "/_fakeentra/users", headers: ["Origin": "https://evil.example", "Content-Type": "text/plain"], body: user)
            #expect(form.status == 403 && nestedErrorCode(form) == "cross_site_request")
            let fetched = try await client.execute(.post, "/_fakeentra/clock/advance", headers: ["Sec-Fetch-Site": "cross-site"], json: ["seconds": 60])
            #expect(fetched.status == 403)
            #expect(try await client.execute(.post, "/_fakeentra/reset", headers: ["Origin": "null"]).status == 403)
            // A form or text/plain body without any origin (a script), to a JSON endpoint: not JSON, refused.
            let reset = try await client.execute(.post, "/_fakeentra/reset", headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(reset.status == 415 && nestedErrorCode(reset) == "unsupported_media_type")
            #expect(try await client.execute(.post, "/_fakeentra/tokens", headers: ["Origin": "https://evil.example"], json: [:]).status == 403)
            // The control plane's paths are told case-insensitively, and so is the guard's reach.
            let shouted = try await client.execute(.post, "/_FAKEENTRA/Users", headers: ["Origin": "https://evil.example", "Content-Type": "application/json"], body: user)
            #expect(shouted.status == 403)
            // Nothing was created.
            #expect(try await !Self.userNames(client).contains("mallory@contoso.onmicrosoft.com"))
        }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func programsAndFakeEntrasOwnPagesGoOn(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let created = try await client.execute(.post, "/_fakeentra/users", json: ["userPrincipalName": "carol@contoso.onmicrosoft.com", "displayName": "Carol"])
            #expect(created.status == 201, "\(created.text)")
            #expect(try await Self.userNames(client).contains("carol@contoso.onmicrosoft.com"))
            #expect(try await client.execute(.post, "/_fakeentra/reset").status == 200)
            let sameOrigin = try await client.execute(.post, "/_fakeentra/reset", headers: ["Origin": client.baseURL, "Sec-Fetch-Site": "same-origin"])
            #expect(sameOrigin.status == 200, "\(sameOrigin.text)")
            // Reads are not guarded (the access rule decides them).
            #expect(try await client.execute(.get, "/_fakeentra/health", headers: ["Origin": "https://evil.example"]).status == 200)
        }
    }

    /// Script-running redirect URIs are refused at registration and at /authorize; form_post posts to the web only.
    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func javascriptRedirectURIsAreRefusedEverywhere(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let refused = try await client.execute(.post, "/_fakeentra/apps", json: [
                "clientId": "6c0ffee0-0000-4000-8000-0000000000aa", "redirectUris": ["https://app.example/cb", "javascript:alert(document.domain)"],
            ])
            #expect(refused.status == 422 && refused.text.contains("/redirectUris/1"))
            let apps = try await client.execute(.get, "/_fakeentra/apps")
            #expect(!apps.text.contains("6c0ffee0-0000-4000-8000-0000000000aa"), "nothing registered")
            let authorize = try await client.execute(.get, "/common/oauth2/v2.0/authorize?client_id=6c0ffee0-0000-4000-8000-0000000000ab&response_type=code&response_mode=form_post&scope=openid&redirect_uri=javascript:alert(1)")
            #expect(!authorize.text.contains("action=\"javascript:") && authorize.text.contains("AADSTS50011"))
        }
        for uri in ["data:text/html,x", "VBScript:x", "file:///etc/passwd", "no-scheme"] {
            #expect(ClientResolver.redirectURIProblem(uri) != nil, "\(uri)")
        }
        for uri in ["https://app.example/cb", "http://localhost:8400", "msauth.com.contoso.app://auth", "urn:ietf:wg:oauth:2.0:oob"] {
            #expect(ClientResolver.redirectURIProblem(uri) == nil, "\(uri)")
        }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func pagesCannotBeFramed(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let page = try await client.execute(.get, "/common/oauth2/v2.0/authorize?client_id=5c0ffee0-0000-4000-8000-000000000002&response_type=code&redirect_uri=http://localhost/cb&scope=openid")
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.header("X-Frame-Options") == "DENY" && page.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            #expect(page.header("X-Content-Type-Options") == "nosniff" && page.header("Referrer-Policy") == "no-referrer")
            #expect(try await client.execute(.get, "/_fakeentra/console").header("X-Frame-Options") == "DENY")
        }
    }

    /// A name the listener does not serve is refused (DNS rebinding), as `serve` refuses it: here `127.1`, which
    /// resolves to the listener's address but is not one of its certificate's names, and would otherwise
    /// become the issuer. A `.router` request names any host (a test reaches graph.microsoft.com by its Host).
    @Test func theListenerAnswersOnlyItsNames() async throws {
        try await withFakeEntra(FakeEntraConfiguration(listener: .plainHTTP)) { server in
            let port = try #require(server.port)
            let socket = BlockingHTTPClient(trust: nil, timeoutSeconds: 10)
            let rebound = try socket.exchange(secure: false, host: "127.1", port: port, method: "GET", target: "/common/v2.0/.well-known/openid-configuration")
            #expect(rebound.status.code == 421 && rebound.bodyText.contains("does not serve the host name"), "\(rebound.status.code) \(rebound.bodyText)")
            let served = try socket.exchange(secure: false, host: "localhost", port: port, method: "GET", target: "/common/v2.0/.well-known/openid-configuration")
            #expect(served.status.code == 200)
            let inProcess = try await server.test(.router) { client in
                try await client.execute(.get, "/common/v2.0/.well-known/openid-configuration", headers: ["Host": "rebind.evil.example:8443"]).status
            }
            #expect(inProcess == 200)
        }
    }
}
