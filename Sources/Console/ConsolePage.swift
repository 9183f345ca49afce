import ControlPlane
import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import Scenarios

/// One console request: the frame, the navigation and the pages that are not about a single area.
struct ConsolePage {
    let console: Console
    let request: HTTPRequest
    let context: ConnectionFacts
    let next: ExchangeStack.Next

    var origin: String { PublicOrigin(request: request, context: context).url }
    static let base = ConsoleLayer.base

    enum Tab: String, CaseIterable {
        case overview = "Overview", directory = "Directory", journal = "Journal", scenarios = "Scenarios & clock", tokens = "Mint a token"
        var path: String {
            switch self {
            case .overview: ConsolePage.base
            case .directory: ConsolePage.base + "/directory"
            case .journal: ConsolePage.base + "/journal"
            case .scenarios: ConsolePage.base + "/scenarios"
            case .tokens: ConsolePage.base + "/tokens"
            }
        }
    }

    func frame(_ tab: Tab?, heading: String, lede: String, _ content: HTML, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        let links = Tab.allCases.map { item -> HTML in
            "<a href=\"\(item.path)\" id=\"tab-\(String(item.path.split(separator: "/").last ?? "console"))\"\(HTML(raw: item == tab ? " aria-current=\"page\"" : ""))>\(item.rawValue)</a>"
        }
        let nav: HTML = tab == nil ? .empty : "<nav class=\"tabs\" id=\"nav\" aria-label=\"Console\">\(links)</nav>"
        let page = PageLayout.document(title: "FakeEntra · \(heading)", heading: heading,
                                        content: "<p class=\"lede\">\(lede)</p>\n\(nav)\n\(content)", head: ConsoleAssets.head, fullWidth: true)
        var response = PageLayout.response(page, status: status, headers: headers)
        if request.method == "HEAD" { response.body = [] }
        return response
    }

    /// A value with a copy button (shown only where the script runs).
    static func copyable(_ text: String, id: String? = nil) -> HTML {
        let idAttribute: HTML = id.map { " id=\"\($0)\"" } ?? .empty
        return "<code\(idAttribute)>\(text)</code><button type=\"button\" class=\"copy small\" data-copy=\"\(text)\" hidden>Copy</button>"
    }

    var csrfField: HTML { HTML.hidden(FormGuard.fieldName, console.formGuard.token) }

    // MARK: Access

    func refusal() -> HTTPResponse {
        frame(nil, heading: "Console unavailable", lede: "The console follows the control API's access rule.",
              "<p class=\"alert\" role=\"alert\" id=\"accessError\">The console answers loopback clients only. Start the server with <code>--control-secret</code> to use it from another machine.</p>",
              status: .forbidden)
    }

    func signInForm(status: HTTPStatus, failed: Bool) -> HTTPResponse {
        let error: HTML = failed ? "<p class=\"alert\" role=\"alert\" id=\"accessError\">That is not this server's control secret.</p>" : .empty
        let content: HTML = """
        \(error)
        <p>This server was started with <code>--control-secret</code>. Enter it once; the browser keeps an HttpOnly cookie for this session.</p>
        <form method="post" action="\(Self.base)/login" class="stack" id="signInForm">
        <label for="secret">Control secret<input type="password" id="secret" name="secret" autocomplete="current-password" required autofocus></label>
        <input type="hidden" name="next" value="\(request.rawPath == "/" ? Self.base : request.rawPath)">
        <button type="submit" class="primary" id="signIn">Open the console</button>
        </form>
        """
        var headers: HTTPHeaders = [:]
        headers.set("WWW-Authenticate", "Bearer realm=\"fakeentra\"")
        return frame(nil, heading: "FakeEntra console", lede: "A control secret protects this server.", content, status: status, headers: headers)
    }

    /// `POST …/login`: the secret once, then a cookie and back to the page asked for.
    func signIn() -> HTTPResponse {
        let form = request.form
        guard console.access.isSecret(form["secret"] ?? "") else { return signInForm(status: .unauthorized, failed: true) }
        var headers: HTTPHeaders = [:]
        headers.add("Set-Cookie", console.access.signInCookie(secure: context.isSecure))
        return redirect(to: Self.localTarget(form["next"]), headers: headers)
    }

    /// Only console paths: a `next` pointing elsewhere would make the sign-in form an open redirect.
    static func localTarget(_ next: String?) -> String {
        guard let next, next.hasPrefix(base), !next.contains("//"), !next.contains("\\") else { return base }
        return next
    }

    func redirect(to location: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.set("Location", location)
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: HTTPStatus(303), headers: headers, body: [])
    }

    func notFound() -> HTTPResponse {
        frame(.overview, heading: "Not found", lede: "The console has no page at this address.",
              "<p class=\"alert\" role=\"alert\">No console page at <code>\(request.rawPath)</code>.</p>", status: .notFound)
    }

    // MARK: CA

    func certificateDownload() -> HTTPResponse {
        guard let ca = console.certificateAuthority else { return notFound() }
        var headers: HTTPHeaders = [:]
        headers.set("Content-Disposition", "attachment; filename=\"fakeentra-ca.pem\"")
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: .ok, headers: headers, text: ca.pem, contentType: "application/x-pem-file")
    }
}
