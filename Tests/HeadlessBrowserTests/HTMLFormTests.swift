import EntraHTTP
import HeadlessBrowser
import Testing

@Suite struct HTMLFormTests {
    @Test func formsKeepTheirAttributesWithReferencesDecoded() {
        let page = """
            <html><head><style>form { color: red }</style><script>var x = "<form id=fake>";</script></head><body>
            <!-- <form id="commented"> -->
            <form id="consent" method="post" action="/common/login?a=1&amp;b=2">
            <input type="hidden" name="ctx" value="abc&#x2F;def">
            <input type=checkbox name=scope value="User.Read" checked>
            <input type="checkbox" name="scope" value='Mail.Read'>
            <button type="submit" name="action" value="accept" id="idBtn_Accept" class="primary wide">Accept</button>
            <button type="button" id="help">?</button>
            <input type="submit" name="action" value="cancel">
            </form><form action="https://elsewhere/"><input name=q></form>
            """
        let forms = HTMLForm.parse(page)
        #expect(forms.map(\.id) == ["consent", nil])
        let consent = forms[0]
        #expect(consent.action == "/common/login?a=1&b=2")
        #expect(consent.method == "POST" && forms[1].method == "GET")
        #expect(consent.inputs.map(\.type) == ["hidden", "checkbox", "checkbox"])
        #expect(consent.buttons.count == 3 && consent.buttons.filter(\.isSubmit).count == 2)
        #expect(consent.buttons[0].classes == ["primary", "wide"])
        let untouched = consent.submission(with: consent.buttons[0]) { _ in nil }
        #expect(untouched.encoded == "ctx=abc%2Fdef&scope=User.Read&action=accept")
        let ticked = consent.submission(with: nil) { $0.type == "checkbox" ? $0.value : nil }
        #expect(ticked.values("scope") == ["User.Read", "Mail.Read"])
    }

    @Test func urlsResolveLikeABrowsers() throws {
        let page = try #require(BrowserURL("https://localhost:8443/common/oauth2/v2.0/authorize?x=1#frag"))
        #expect(page.authority == "localhost:8443" && page.path == "/common/oauth2/v2.0/authorize")
        #expect(page.resolving("/login?ctx=1")?.description == "https://localhost:8443/login?ctx=1")
        #expect(page.resolving("consent")?.description == "https://localhost:8443/common/oauth2/v2.0/consent")
        #expect(page.resolving("?y=2")?.description == "https://localhost:8443/common/oauth2/v2.0/authorize?y=2")
        #expect(page.resolving("http://localhost:5000/?code=a")?.port == 5000)
        // A relative reference whose query holds a URL stays relative (RFC 3986 §4.2): a page's own link.
        #expect(page.resolving("/common/oauth2/v2.0/authorize?redirect_uri=http://localhost/cb")?.description
                == "https://localhost:8443/common/oauth2/v2.0/authorize?redirect_uri=http://localhost/cb")
        #expect(page.resolving("consent?next=https://a.example/")?.description == "https://localhost:8443/common/oauth2/v2.0/consent?next=https://a.example/")
        #expect(page.resolving("HTTPS://other.example/x")?.host == "other.example")
        let app = try #require(BrowserURL("http://localhost:5000"))
        #expect(try #require(BrowserURL("http://localhost:5000/?code=a")).isWithin(app))
        #expect(!(try #require(BrowserURL("http://localhost:5001/?code=a"))).isWithin(app))
        #expect(BrowserURL("ftp://x/") == nil && BrowserURL("https://host:99999/") == nil && BrowserURL("localhost/x") == nil)
    }

    @Test func cookiesAreKeptPerHostAndDeletedByMaxAgeZero() throws {
        var jar = CookieJar()
        let server = try #require(BrowserURL("https://localhost:8443/"))
        jar.store(["ESTSAUTH=abc; Path=/; Secure; HttpOnly", "other=1"], from: server)
        #expect(jar.header(for: try #require(BrowserURL("https://localhost:9999/x"))) == "ESTSAUTH=abc; other=1")
        jar.store(["ESTSAUTH=; Max-Age=0; Path=/"], from: server)
        #expect(jar.header(for: server) == "other=1")
        #expect(jar.header(for: try #require(BrowserURL("https://127.0.0.1/"))) == nil)
    }
}
