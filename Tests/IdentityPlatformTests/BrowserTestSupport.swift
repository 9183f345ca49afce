import EntraCrypto
import EntraHTTP
import Foundation
import Testing
import ExchangeKernel
@testable import IdentityPlatform

/// A scripted browser: keeps cookies, submits forms the way a headless client (Python requests) would.
final class ScriptedBrowser {
    let service: IdentityService
    let handler: EntraHandler
    let clock: VirtualClock
    var cookies: [String: String] = [:]
    var secure = true
    /// What an active scenario changes for the requests sent (see `under`).
    var directives = ScenarioDirectives()
    static let host = "login.fakeentra.test:8443"

    init(directory: Directory = BrowserFixtures.directory(), options: IdentityOptions = .init(), limits: StateLimits = .standard) {
        clock = VirtualClock(frozenAt: BrowserFixtures.start)
        service = IdentityService(directory: directory, keys: BrowserFixtures.keys, clock: clock, options: options, limits: limits)
        handler = EntraHandler(service: service)
    }

    @discardableResult
    func get(_ target: String) -> HTTPResponse { send(HTTPRequest(method: "GET", target: target, headers: baseHeaders())) }

    @discardableResult
    func post(_ target: String, _ fields: [(String, String)]) -> HTTPResponse {
        var headers = baseHeaders()
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        return send(HTTPRequest(method: "POST", target: target, headers: headers, body: Array(FormParameters(fields).encoded.utf8)))
    }

    /// Submits the page's form `formID` with its hidden fields plus `fields` (a button's name/value included).
    @discardableResult
    func submit(_ page: HTTPResponse, form formID: String, _ fields: [(String, String)]) -> HTTPResponse {
        guard let form = ScrapedForm.parse(page.bodyText, id: formID) else {
            Issue.record("no form '\(formID)' in page: \(page.bodyText.prefix(400))")
            return HTTPResponse(status: .badRequest)
        }
        return post(form.action, form.hidden + fields)
    }

    private func baseHeaders() -> HTTPHeaders {
        var headers: HTTPHeaders = ["Host": Self.host]
        if !cookies.isEmpty { headers.set("Cookie", cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")) }
        return headers
    }

    private func send(_ request: HTTPRequest) -> HTTPResponse {
        let context = ExchangeContext(connection: ConnectionFacts(isSecure: secure, localPort: 8443), route: RouteResolver([EntraRoutes()]).route(request), directives: directives)
        let response = WorldRouter([handler]).respond(to: request, context: context)
        for header in response.headers.values(for: "Set-Cookie") {
            let pair = header.split(separator: ";")[0]
            guard let eq = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<eq]), value = String(pair[pair.index(after: eq)...])
            if header.contains("Max-Age=0") || value.isEmpty { cookies.removeValue(forKey: name) } else { cookies[name] = value }
        }
        return response
    }

    var sessionCookie: String? { cookies["fakeentra_session"] }

    /// Runs `body` with the browser's requests answered under `scenario` (as the scenario engine would pass them).
    func under<T>(_ scenario: ScenarioDirectives, _ body: () throws -> T) rethrows -> T {
        let saved = directives
        directives = scenario
        defer { directives = saved }
        return try body()
    }


    /// Signs `login` in through the pages and accepts consent if asked; returns the final response.
    func signInAndConsent(_ authorizeTarget: String, login: String, password: String = Directory.demoPassword) -> HTTPResponse {
        var page = get(authorizeTarget)
        if page.bodyText.contains("id=\"signin\"") {
            page = submit(page, form: "signin", [("login", login), ("passwd", password), ("action", "signin")])
        }
        if page.bodyText.contains("id=\"consent\"") {
            page = submit(page, form: "consent", [("action", "accept")])
        }
        return page
    }
}

/// What a script reads from a page's form.
struct ScrapedForm {
    var action: String
    var hidden: [(String, String)]

    static func parse(_ html: String, id: String) -> ScrapedForm? {
        guard let start = html.range(of: "<form id=\"\(id)\"") else { return nil }
        let rest = html[start.lowerBound...]
        guard let end = rest.range(of: "</form>") else { return nil }
        let form = String(rest[..<end.upperBound])
        guard let action = attribute("action", in: String(form.prefix(while: { $0 != ">" }))) else { return nil }
        var hidden: [(String, String)] = []
        var cursor = form.startIndex
        while let input = form.range(of: "<input type=\"hidden\"", range: cursor..<form.endIndex) {
            let tagEnd = form[input.lowerBound...].firstIndex(of: ">") ?? form.endIndex
            let tag = String(form[input.lowerBound..<tagEnd])
            if let name = attribute("name", in: tag) { hidden.append((name, attribute("value", in: tag) ?? "")) }
            cursor = tagEnd
        }
        return ScrapedForm(action: action, hidden: hidden)
    }

    static func attribute(_ name: String, in tag: String) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let value = tag[start.upperBound...].prefix(while: { $0 != "\"" })
        return unescape(String(value))
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// A redirect's parameters, from its query or fragment.
struct RedirectResult {
    var base: String
    var parameters: [String: String]
    var inFragment: Bool

    init?(_ response: HTTPResponse) {
        guard response.status.code == 302, let location = response.headers["Location"] else { return nil }
        self.init(location: location)
    }

    init(location: String) {
        if let hash = location.firstIndex(of: "#") {
            base = String(location[..<hash])
            parameters = FormParameters(decoding: String(location[location.index(after: hash)...])).firstValues
            inFragment = true
        } else if let q = location.firstIndex(of: "?") {
            base = String(location[..<q])
            parameters = FormParameters(decoding: String(location[location.index(after: q)...])).firstValues
            inFragment = false
        } else {
            base = location
            parameters = [:]
            inFragment = false
        }
    }

    subscript(name: String) -> String? { parameters[name] }

    /// The numeric AADSTS code at the start of `error_description`.
    var aadsts: Int? {
        guard let description = parameters["error_description"], description.hasPrefix("AADSTS") else { return nil }
        return Int(description.dropFirst(6).prefix(while: { $0.isNumber }))
    }
}

enum BrowserFixtures {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let keys = SigningKeyRing(current: try! SigningCredential.generate())
    static let clientID = "7f2b3c4d-1111-4a2b-9c3d-5e6f7a8b9c0d"
    static let redirectURI = "https://app.example.com/auth/callback"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-0123456789"
    static var challenge: String { PKCE.challenge(for: verifier, method: .s256) }

    static func directory() -> Directory {
        var directory = Directory.embeddedDefault
        directory.applications.append(Application(
            clientID: clientID, displayName: "Contoso Notes", isPublicClient: true,
            redirectURIs: [redirectURI, "https://app.example.com/signed-out"],
            requiredResourceAccess: [.init(resource: Resource.graphAppID, scopes: ["User.Read"])]
        ))
        return directory
    }

    static let adele = "adele.vance@contoso.onmicrosoft.com"
    static let alex = "alex.wilber@contoso.onmicrosoft.com"
    static let megan = "megan@outlook.com"

    static func authorize(
        tenant: String = "common", clientID: String = BrowserFixtures.clientID, redirectURI: String = BrowserFixtures.redirectURI,
        scope: String = "openid profile offline_access User.Read", extra: [(String, String)] = []
    ) -> String {
        var parameters: [(String, String)] = [
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", "st-123"), ("nonce", "n-456"), ("code_challenge", challenge), ("code_challenge_method", "S256"),
            ("client_info", "1"),
        ]
        for (name, value) in extra {
            parameters.removeAll { $0.0 == name }
            parameters.append((name, value))
        }
        return "/\(tenant)/oauth2/v2.0/authorize?" + FormParameters(parameters.filter { !$0.1.isEmpty }).encoded
    }
}

extension HTTPResponse {
    /// The `data-aadsts` code of the first alert on the page.
    var pageErrorCode: Int? {
        guard let range = bodyText.range(of: "data-aadsts=\"") else { return nil }
        return Int(bodyText[range.upperBound...].prefix(while: { $0.isNumber }))
    }

    func has(_ formID: String) -> Bool { bodyText.contains("<form id=\"\(formID)\"") }
}
