import EntraCrypto
import EntraHTTP
import Foundation
import Testing
@testable import B2C
import ExchangeKernel
import IdentityPlatform

enum B2CFixtures {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let keys = SigningKeyRing(current: try! SigningCredential.generate(commonName: "B2C tests"))
    static let clientID = B2CConfiguration.sampleClientID
    static let redirectURI = "msauth.com.microsoft.identitysample.MSALiOS://auth"
    static let apiScope = "https://fabrikamb2c.onmicrosoft.com/helloapi/demo.read"
    static let tenantID = B2CConfiguration.defaultTenantID
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-abcdefgh"
}

/// A scripted browser and app in one: keeps the cookies, follows the pages by their element ids the
/// way a headless driver would, and redeems codes at the token endpoint. Requests go through the
/// world router the app mounts (B2C and Entra, by the application's routes), so routing between the two is exercised too.
final class B2CBrowser {
    let service: IdentityService
    let clock: VirtualClock
    let chain: WorldRouter
    let routes: RouteResolver
    var host: String
    var cookies: [String: String] = [:]
    /// What an active scenario changes for the requests sent (see `under`).
    var directives = ScenarioDirectives()

    init(options: IdentityOptions = .init(), configuration: B2CConfiguration = .embeddedDefault, host: String = "login.fakeentra.test:8443", limits: StateLimits = .standard) {
        clock = VirtualClock(frozenAt: B2CFixtures.start)
        service = IdentityService(directory: .embeddedDefault, keys: B2CFixtures.keys, clock: clock, options: options, limits: limits)
        chain = WorldRouter([EntraHandler(service: service), B2CHandler(service: service, configuration: configuration)])
        routes = RouteResolver([configuration.routes, EntraRoutes()])
        self.host = host
    }

    init(sharing other: B2CBrowser) {
        service = other.service
        clock = other.clock
        chain = other.chain
        routes = other.routes
        host = other.host
    }

    static let authority = "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi"

    /// `…/oauth2/v2.0/authorize?…` with MSAL's parameters (PKCE S256, client_info) plus `extra`.
    func authorizeURL(authority: String = authority, scope: String = "\(B2CFixtures.apiScope) openid profile offline_access", extra: [(String, String)] = []) -> String {
        var parameters = FormParameters([
            ("client_id", B2CFixtures.clientID), ("response_type", "code"), ("redirect_uri", B2CFixtures.redirectURI),
            ("scope", scope), ("state", "st4te"), ("client_info", "1"), ("nonce", "n0nce"),
            ("code_challenge", PKCE.challenge(for: B2CFixtures.verifier, method: .s256)), ("code_challenge_method", "S256"),
        ])
        for (name, value) in extra { parameters.append(name, value) }
        let separator = authority.contains("?") ? "&" : "?"
        return authority + "/oauth2/v2.0/authorize" + separator + parameters.encoded
    }

    @discardableResult
    func get(_ target: String) -> HTTPResponse { send(HTTPRequest(method: "GET", target: target, headers: baseHeaders())) }

    @discardableResult
    func post(_ target: String, _ fields: [(String, String)], headers extra: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = baseHeaders()
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        for field in extra { headers.set(field.name, field.value) }
        return send(HTTPRequest(method: "POST", target: target, headers: headers, body: Array(FormParameters(fields).encoded.utf8)))
    }

    /// Submits the page's form `formID` (hidden fields included) with `fields` and the button `button`.
    @discardableResult
    func submit(_ page: HTTPResponse, form formID: String, button: String, _ fields: [(String, String)] = []) -> HTTPResponse {
        guard let form = ScrapedPage(page.bodyText).form(formID) else {
            Issue.record("no form '\(formID)' in: \(page.bodyText.prefix(300))")
            return HTTPResponse(status: .badRequest)
        }
        guard let action = ScrapedPage(page.bodyText).buttonValue(button) else {
            Issue.record("no button '\(button)'")
            return HTTPResponse(status: .badRequest)
        }
        return post(form.action, form.hidden + fields + [("action", action)])
    }

    /// Follows the link with element id `id`.
    @discardableResult
    func follow(_ page: HTTPResponse, link id: String) -> HTTPResponse {
        guard let href = ScrapedPage(page.bodyText).href(id) else {
            Issue.record("no link '\(id)'")
            return HTTPResponse(status: .badRequest)
        }
        return get(href)
    }

    func signIn(_ page: HTTPResponse, email: String = "ben@fabrikam.test", password: String = "Passw0rd!") -> HTTPResponse {
        submit(page, form: "localAccountForm", button: "next", [("signInName", email), ("password", password)])
    }

    private func baseHeaders() -> HTTPHeaders {
        var headers: HTTPHeaders = ["Host": host]
        if !cookies.isEmpty { headers.set("Cookie", cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")) }
        return headers
    }

    func send(_ request: HTTPRequest) -> HTTPResponse {
        let context = ExchangeContext(connection: ConnectionFacts(isSecure: true, localPort: 8443), route: routes.route(request), directives: directives)
        let response = chain.respond(to: request, context: context)
        for header in response.headers.values(for: "Set-Cookie") {
            let pair = header.split(separator: ";")[0]
            guard let eq = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<eq]), value = String(pair[pair.index(after: eq)...])
            if header.contains("Max-Age=0") || value.isEmpty { cookies.removeValue(forKey: name) } else { cookies[name] = value }
        }
        return response
    }

    /// Runs `body` with the browser's requests answered under `scenario` (as the scenario engine would pass them).
    func under<T>(_ scenario: ScenarioDirectives, _ body: () throws -> T) rethrows -> T {
        let saved = directives
        directives = scenario
        defer { directives = saved }
        return try body()
    }

    // MARK: - Redirects and tokens

    /// The query (or fragment) parameters of a 302 to the app.
    static func redirectParameters(_ response: HTTPResponse) -> FormParameters? {
        guard response.status.code == 302, let location = response.headers["Location"] else { return nil }
        guard let mark = location.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return FormParameters() }
        return FormParameters(decoding: String(location[location.index(after: mark)...]))
    }

    func code(from response: HTTPResponse) -> String? {
        let parameters = Self.redirectParameters(response)
        #expect(parameters?["state"] == "st4te")
        return parameters?["code"]
    }

    @discardableResult
    func redeem(_ code: String, authority: String = authority, verifier: String = B2CFixtures.verifier, scope: String = "\(B2CFixtures.apiScope) openid profile offline_access", extra: [(String, String)] = []) -> HTTPResponse {
        post(authority + "/oauth2/v2.0/token", [
            ("client_id", B2CFixtures.clientID), ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", B2CFixtures.redirectURI), ("code_verifier", verifier), ("client_info", "1"), ("scope", scope),
        ] + extra)
    }

    @discardableResult
    func refresh(_ token: String, authority: String = authority) -> HTTPResponse {
        post(authority + "/oauth2/v2.0/token", [
            ("client_id", B2CFixtures.clientID), ("grant_type", "refresh_token"), ("refresh_token", token), ("client_info", "1"),
            ("scope", "\(B2CFixtures.apiScope) openid profile offline_access"),
        ])
    }

    /// Signs ben in through `authority` and returns the token response.
    func signInAndRedeem(authority: String = authority) throws -> TokenResponse {
        let page = get(authorizeURL(authority: authority))
        let code = try #require(self.code(from: signIn(page)))
        return try TokenResponse(redeem(code, authority: authority))
    }
}

/// A token endpoint JSON answer with its tokens decoded and their signatures checked.
struct TokenResponse {
    let json: [String: Any]

    init(_ response: HTTPResponse) throws {
        #expect(response.status.code == 200, "token response: \(response.bodyText)")
        json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    subscript(name: String) -> String? { json[name] as? String }

    /// A numeric member (B2C writes its lifetimes and instants as numbers).
    func number(_ name: String) -> Int? { json[name] as? Int }

    var idToken: [String: Any] { get throws { try Self.verifiedClaims(try #require(self["id_token"])) } }
    var accessToken: [String: Any] { get throws { try Self.verifiedClaims(try #require(self["access_token"])) } }

    var clientInfo: [String: String] {
        get throws {
            let text = try #require(self["client_info"])
            let bytes = try #require(Base64URL.decode(text))
            return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String])
        }
    }

    static func verifiedClaims(_ compact: String) throws -> [String: Any] {
        let jws = try #require(JWS.decode(compact))
        let keyID = try #require(jws.keyID)
        let key = try #require(B2CFixtures.keys.credential(keyID: keyID, at: Date()))
        let publicKey = try key.certificate.publicKey
        #expect(JWS.verifyRS256(jws, key: publicKey))
        return try #require(try JSONSerialization.jsonObject(with: Data(jws.payloadJSON)) as? [String: Any])
    }
}

/// Reads what a headless driver needs from a page: forms with their hidden fields, buttons, links.
struct ScrapedPage {
    let html: String
    init(_ html: String) { self.html = html }

    struct Form {
        var action: String
        var hidden: [(String, String)]
    }

    func form(_ id: String) -> Form? {
        guard let start = html.range(of: "<form id=\"\(id)\"") else { return nil }
        let rest = html[start.lowerBound...]
        guard let end = rest.range(of: "</form>") else { return nil }
        let body = String(rest[..<end.upperBound])
        guard let action = attribute("action", in: String(body.prefix { $0 != ">" })) else { return nil }
        var hidden: [(String, String)] = []
        for tag in tags("input", in: body) where attribute("type", in: tag) == "hidden" {
            hidden.append((attribute("name", in: tag) ?? "", attribute("value", in: tag) ?? ""))
        }
        return Form(action: action, hidden: hidden)
    }

    func buttonValue(_ id: String) -> String? {
        tags("button", in: html).first { attribute("id", in: $0) == id }.flatMap { attribute("value", in: $0) }
    }

    func href(_ id: String) -> String? {
        tags("a", in: html).first { attribute("id", in: $0) == id }.flatMap { attribute("href", in: $0) }
    }

    func hasElement(_ id: String) -> Bool { html.contains("id=\"\(id)\"") }

    func input(_ id: String) -> String? { tags("input", in: html).first { attribute("id", in: $0) == id } }

    private func tags(_ name: String, in text: String) -> [String] {
        text.components(separatedBy: "<\(name) ").dropFirst().map { String($0.prefix { $0 != ">" }) }
    }

    func attribute(_ name: String, in tag: String) -> String? {
        guard let range = tag.range(of: " \(name)=\"") ?? (tag.hasPrefix("\(name)=\"") ? tag.range(of: "\(name)=\"") : nil) else { return nil }
        let value = tag[range.upperBound...].prefix { $0 != "\"" }
        return String(value).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
