import EntraHTTP
import Foundation

/// What one iteration of a load run does against one server. Each step checks the answer the way a
/// client would (status, the form field or code it needs) so a broken server cannot look fast.
protocol LoadFlow {
    /// One unit of work (a whole sign-in, one refresh grant, one request); counted when it returns.
    mutating func iterate(_ connection: ClientConnection) throws
}

struct FlowFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The same request over and over: the figure wrk can check.
struct RepeatedRequest: LoadFlow {
    var method: String
    var target: String
    var body: [UInt8]

    mutating func iterate(_ connection: ClientConnection) throws {
        let headers = body.isEmpty ? [] : [("Content-Type", "application/x-www-form-urlencoded")]
        let response = try connection.send(method, target, headers: headers, body: body)
        guard response.status == 200 else { throw FlowFailure("\(method) \(target) answered \(response.status): \(response.text.prefix(300))") }
    }
}

/// The servers a flow can drive: FakeEntra's Entra ID pages, or oidc-provider-mock's.
enum Provider: String {
    case fakeentra
    case oidcProviderMock = "oidc-provider-mock"
}

/// Authorize page → sign-in post → consent (when asked) → code → token: what a browser and an app do.
struct AuthorizationCodeFlow: LoadFlow {
    var provider: Provider
    let clientID = "7b2d4e6f-1a3c-4d5e-8f90-a1b2c3d4e5f6"
    let redirectURI = "http://localhost/callback"
    var cookies = CookieJar()
    /// The refresh token of the last completed flow (the refresh benchmark starts from it).
    var refreshToken: String?

    init(provider: Provider) { self.provider = provider }

    mutating func iterate(_ connection: ClientConnection) throws {
        cookies = CookieJar()   // a new browser each time: every flow signs in
        let code = try signIn(connection)
        let token = try redeem(connection, [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI)])
        guard token.status == 200, let refresh = Self.jsonString("refresh_token", in: token.text) else {
            throw FlowFailure("code redemption answered \(token.status): \(token.text.prefix(300))")
        }
        refreshToken = refresh
    }

    /// A token request as the provider's clients send it: FakeEntra's public client names itself and the
    /// scopes; oidc-provider-mock's confidential client authenticates with HTTP Basic (all its grants accept it).
    func redeem(_ connection: ClientConnection, _ grant: [(String, String)]) throws -> ClientConnection.Response {
        var form = grant
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        switch provider {
        case .fakeentra:
            form += [("client_id", clientID), ("scope", "openid profile offline_access User.Read")]
        case .oidcProviderMock:
            headers.append(("Authorization", "Basic " + Data("\(clientID):load-secret".utf8).base64EncodedString()))
        }
        return try connection.send("POST", tokenPath, headers: headers, body: Array(FormParameters(form).encoded.utf8))
    }

    var tokenPath: String { provider == .fakeentra ? "/contoso.onmicrosoft.com/oauth2/v2.0/token" : "/oauth2/token" }

    private var authorizeQuery: String {
        FormParameters([
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirectURI),
            ("scope", "openid profile offline_access" + (provider == .fakeentra ? " User.Read" : "")),
            ("state", "load"),
        ] + (provider == .fakeentra ? [("login_hint", "adele.vance@contoso.onmicrosoft.com")] : [])).encoded
    }

    private mutating func signIn(_ connection: ClientConnection) throws -> String {
        switch provider {
        case .fakeentra:
            let authorizePath = "/contoso.onmicrosoft.com/oauth2/v2.0/authorize"
            let page = try get(connection, authorizePath + "?" + authorizeQuery)
            guard page.status == 200, let context = Self.hiddenField("ctx", in: page.text) else {
                throw FlowFailure("authorize answered \(page.status) without a sign-in form")
            }
            var answer = try post(connection, authorizePath, [
                ("ctx", context), ("login", "adele.vance@contoso.onmicrosoft.com"), ("passwd", "Passw0rd!"), ("action", "signin"),
            ])
            if answer.status == 200, let consent = Self.hiddenField("ctx", in: answer.text) {
                answer = try post(connection, authorizePath, [("ctx", consent), ("action", "accept")])
            }
            return try Self.code(from: answer)
        case .oidcProviderMock:
            let target = "/oauth2/authorize?" + authorizeQuery
            let page = try get(connection, target)
            guard page.status == 200, page.text.contains("name=\"sub\"") else {
                throw FlowFailure("authorize answered \(page.status) without a sign-in form")
            }
            return try Self.code(from: try post(connection, target, [("sub", "alice@example.com")]))
        }
    }

    private mutating func get(_ connection: ClientConnection, _ target: String) throws -> ClientConnection.Response {
        let response = try connection.send("GET", target, headers: cookies.header)
        cookies.store(response.headers)
        return response
    }

    private mutating func post(_ connection: ClientConnection, _ target: String, _ form: [(String, String)]) throws -> ClientConnection.Response {
        let headers = [("Content-Type", "application/x-www-form-urlencoded")] + cookies.header
        let response = try connection.send("POST", target, headers: headers, body: Array(FormParameters(form).encoded.utf8))
        cookies.store(response.headers)
        return response
    }

    private static func code(from response: ClientConnection.Response) throws -> String {
        guard (300..<400).contains(response.status), let location = response.headers["Location"],
              let query = location.split(separator: "?", maxSplits: 1).last,
              let code = FormParameters(decoding: String(query))["code"] else {
            throw FlowFailure("sign-in answered \(response.status) without a code: \(response.text.prefix(300))")
        }
        return code
    }

    /// `<input type="hidden" name="NAME" value="VALUE">` as the sign-in pages write it.
    static func hiddenField(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// A string member of a flat JSON object (token responses; their values need no unescaping).
    static func jsonString(_ name: String, in json: String) -> String? {
        guard let start = json.range(of: "\"\(name)\":") else { return nil }
        let rest = json[start.upperBound...].drop { $0 == " " }
        guard rest.first == "\"" else { return nil }
        let value = rest.dropFirst()
        guard let end = value.firstIndex(of: "\"") else { return nil }
        return String(value[..<end])
    }
}

/// Refresh-token grants, each with the refresh token the previous one returned (rotation, as MSAL does).
struct RefreshTokenFlow: LoadFlow {
    var signIn: AuthorizationCodeFlow
    var refreshToken: String?

    init(provider: Provider) { signIn = AuthorizationCodeFlow(provider: provider) }

    mutating func prepare(_ connection: ClientConnection) throws {
        try signIn.iterate(connection)
        refreshToken = signIn.refreshToken
    }

    mutating func iterate(_ connection: ClientConnection) throws {
        guard let current = refreshToken else { throw FlowFailure("no refresh token to redeem") }
        let response = try signIn.redeem(connection, [("grant_type", "refresh_token"), ("refresh_token", current)])
        guard response.status == 200 else { throw FlowFailure("refresh grant answered \(response.status): \(response.text.prefix(300))") }
        refreshToken = AuthorizationCodeFlow.jsonString("refresh_token", in: response.text) ?? current
    }
}

/// The cookies one simulated browser holds (name → value; attributes are not needed on loopback).
struct CookieJar {
    private var values: [(String, String)] = []

    var header: [(String, String)] {
        values.isEmpty ? [] : [("Cookie", values.map { "\($0.0)=\($0.1)" }.joined(separator: "; "))]
    }

    mutating func store(_ headers: HTTPHeaders) {
        for line in headers.values(for: "Set-Cookie") {
            guard let pair = line.split(separator: ";", maxSplits: 1).first, let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals]).trimmingCharacters(in: .whitespaces)
            let value = String(pair[pair.index(after: equals)...])
            values.removeAll { $0.0 == name }
            if !value.isEmpty { values.append((name, value)) }
        }
    }
}
