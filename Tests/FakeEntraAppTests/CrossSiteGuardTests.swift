import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FakeEntraApp
import Foundation
import IdentityPlatform
import Testing

/// No web page can drive FakeEntra: state-changing `/_fakeentra/` requests from another origin are refused,
/// JSON endpoints take JSON only, and pages cannot be framed.
@Suite struct CrossSiteGuardTests {
    let application: FakeEntraApplication

    init() throws {
        let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate()))
        application = FakeEntraApplication(service: service, servedHosts: ServedHosts(names: ["127.0.0.1", "localhost"], primary: "127.0.0.1"))
    }

    func send(_ method: String, _ target: String, headers: HTTPHeaders = [:], body: String = "") -> HTTPResponse {
        var h = headers
        if h["Host"] == nil { h.set("Host", "127.0.0.1:8443") }
        return application.responder.respond(to: HTTPRequest(method: method, target: target, headers: h, body: Array(body.utf8)),
                                             context: RequestContext(remoteAddress: "127.0.0.1", isSecure: true, localPort: 8443))
    }

    static func code(_ response: HTTPResponse) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
    }

    @Test func aPageOfAnotherOriginCannotChangeAnything() {
        let user = #"{"userPrincipalName": "mallory@contoso.onmicrosoft.com", "displayName": "Mallory"}"#
        // What a page's auto-submitted `<form enctype="text/plain">` sends.
        let form = send("POST", "/_fakeentra/users", headers: ["Origin": "https://evil.example", "Content-Type": "text/plain"], body: user)
        #expect(form.status.code == 403 && Self.code(form) == "cross_site_request")
        let fetched = send("POST", "/_fakeentra/clock/advance", headers: ["Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"], body: #"{"seconds": 60}"#)
        #expect(fetched.status.code == 403)
        #expect(send("POST", "/_fakeentra/reset", headers: ["Origin": "null"]).status.code == 403)
        // A form or text/plain body without any origin (a script), to a JSON endpoint: not JSON, refused.
        let reset = send("POST", "/_fakeentra/reset", headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(reset.status.code == 415 && Self.code(reset) == "unsupported_media_type")
        #expect(send("POST", "/_fakeentra/tokens", headers: ["Origin": "https://evil.example", "Content-Type": "application/json"], body: "{}").status.code == 403)
        // The control plane's paths are told case-insensitively, and so is the guard's reach.
        #expect(send("POST", "/_FAKEENTRA/Users", headers: ["Origin": "https://evil.example", "Content-Type": "application/json"], body: user).status.code == 403)
        // Nothing was created.
        #expect(application.service.currentDirectory.user(signInName: "mallory@contoso.onmicrosoft.com") == nil)
    }

    @Test func programsAndFakeEntrasOwnPagesGoOn() {
        let user = #"{"userPrincipalName": "carol@contoso.onmicrosoft.com", "displayName": "Carol"}"#
        #expect(send("POST", "/_fakeentra/users", headers: ["Content-Type": "application/json"], body: user).status.code == 201)
        #expect(send("POST", "/_fakeentra/reset").status.code == 200)
        #expect(send("POST", "/_fakeentra/reset", headers: ["Origin": "https://127.0.0.1:8443", "Sec-Fetch-Site": "same-origin"]).status.code == 200)
        // Reads are not guarded (the access rule decides them).
        #expect(send("GET", "/_fakeentra/health", headers: ["Origin": "https://evil.example"]).status.code == 200)
    }

    /// Script-running redirect URIs are refused at registration and at /authorize; form_post posts to the web only.
    @Test func javascriptRedirectURIsAreRefusedEverywhere() throws {
        let app = #"{"clientId": "6c0ffee0-0000-4000-8000-0000000000aa", "redirectUris": ["https://app.example/cb", "javascript:alert(document.domain)"]}"#
        let refused = send("POST", "/_fakeentra/apps", headers: ["Content-Type": "application/json"], body: app)
        #expect(refused.status.code == 422)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("/redirectUris/1"))
        #expect(application.service.currentDirectory.application(clientID: "6c0ffee0-0000-4000-8000-0000000000aa") == nil)
        let authorize = send("GET", "/common/oauth2/v2.0/authorize?client_id=6c0ffee0-0000-4000-8000-0000000000ab&response_type=code&response_mode=form_post&scope=openid&redirect_uri=javascript:alert(1)")
        #expect(!String(decoding: authorize.body, as: UTF8.self).contains("action=\"javascript:"))
        #expect(String(decoding: authorize.body, as: UTF8.self).contains("AADSTS50011"))
        for uri in ["data:text/html,x", "VBScript:x", "file:///etc/passwd", "no-scheme"] {
            #expect(ClientResolver.redirectURIProblem(uri) != nil, "\(uri)")
        }
        for uri in ["https://app.example/cb", "http://localhost:8400", "msauth.com.contoso.app://auth", "urn:ietf:wg:oauth:2.0:oob"] {
            #expect(ClientResolver.redirectURIProblem(uri) == nil, "\(uri)")
        }
    }

    @Test func aRebindedNameIsMisdirectedAndPagesCannotBeFramed() {
        let rebound = send("GET", "/_fakeentra/console", headers: ["Host": "rebind.evil.example:8443"])
        #expect(rebound.status.code == 421)
        let page = send("GET", "/common/oauth2/v2.0/authorize?client_id=5c0ffee0-0000-4000-8000-000000000002&response_type=code&redirect_uri=http://localhost/cb&scope=openid")
        #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(page.headers["X-Frame-Options"] == "DENY" && page.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(page.headers["X-Content-Type-Options"] == "nosniff" && page.headers["Referrer-Policy"] == "no-referrer")
        #expect(send("GET", "/_fakeentra/console").headers["X-Frame-Options"] == "DENY")
    }
}
