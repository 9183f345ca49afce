import B2C
import ControlPlane
import EntraCrypto
import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import LocatedJSON
import Scenarios
import Synchronization

/// The sign-ins the console's "Try it" started and not yet finished, by `state`: the PKCE verifier and
/// the authority each needs to redeem its code. Bounded (a page reloaded a hundred times keeps the
/// newest) and short-lived, as a browser's sign-in is.
final class TryItSignIns: Sendable {
    struct Started: Sendable {
        var verifier: String
        var authority: String
        var scopes: String
        /// B2C tokens are for the app's own API: no Graph call with them.
        var callsGraph: Bool
        var startedAt: ContinuousClock.Instant
    }

    static let capacity = 64
    static let lifetime: Duration = .seconds(600)
    private let started = Mutex<[(state: String, sign: Started)]>([])

    func begin(_ sign: Started) -> String {
        let state = SecureRandom.base64URLString(byteCount: 16)
        started.withLock { list in
            list.removeAll { ContinuousClock.now - $0.sign.startedAt > Self.lifetime }
            if list.count >= Self.capacity { list.removeFirst(list.count - Self.capacity + 1) }
            list.append((state, sign))
        }
        return state
    }

    /// The sign-in `state` names, once: a second use of the same redirect finds nothing.
    func finish(_ state: String) -> Started? {
        started.withLock { list in
            guard let index = list.firstIndex(where: { $0.state == state }) else { return nil }
            let found = list.remove(at: index).sign
            return ContinuousClock.now - found.startedAt > Self.lifetime ? nil : found
        }
    }
}

/// "Try it": a real sign-in with an authority, as a public client with PKCE (the console's own app,
/// registered with this origin's redirect URI), ending on a page with the tokens decoded and the
/// signed-in user's Graph profile. The code is redeemed and Graph called through the layers below the
/// console, so both land in the journal as any client's requests do.
extension ConsolePage {
    static let tryItScopes = "openid profile offline_access User.Read"
    var tryItRedirectURI: String { "\(origin)\(Self.base)/try/done" }

    /// A B2C user flow's sign-in asks for the tenant's first API scope (B2C issues an access token for
    /// an API of its own, not for Graph); Entra's for Graph's User.Read.
    func tryItScopes(for authority: String) -> (scopes: String, callsGraph: Bool) {
        guard authority.hasPrefix("/tfp/") else { return (Self.tryItScopes, true) }
        let api = console.b2c.flatMap { b2c in b2c.apis.first.flatMap { api in api.scopes.first.map { "\(b2c.identifierURI(of: api))/\($0)" } } }
        return ((["openid", "offline_access"] + [api].compactMap { $0 }).joined(separator: " "), false)
    }

    func tryItStart() -> HTTPResponse {
        guard let authority = request.query["authority"], Self.isAuthorityPath(authority) else {
            return tryItPage(.badRequest, "<p class=\"alert\" role=\"alert\" id=\"tryError\">Pick an authority on the overview page.</p>")
        }
        do { try console.commands.registerConsoleApp(redirectURI: tryItRedirectURI) } catch {
            return tryItPage(HTTPStatus(error.status), "<p class=\"alert\" role=\"alert\" id=\"tryError\">\(error.message)</p>")
        }
        let verifier = SecureRandom.base64URLString(byteCount: 32)
        let (scopes, callsGraph) = tryItScopes(for: authority)
        let state = console.tryIt.begin(.init(verifier: verifier, authority: authority, scopes: scopes, callsGraph: callsGraph, startedAt: .now))
        var query = FormParameters()
        for (name, value) in [("client_id", ControlCommands.consoleClientID), ("response_type", "code"), ("redirect_uri", tryItRedirectURI),
                              ("scope", scopes), ("state", state), ("code_challenge", PKCE.challenge(for: verifier, method: .s256)),
                              ("code_challenge_method", "S256"), ("prompt", "select_account")] {
            query.append(name, value)
        }
        return redirect(to: "\(authority)/oauth2/v2.0/authorize?\(query.encoded)")
    }

    func tryItDone() -> HTTPResponse {
        let query = request.query
        guard let state = query["state"], let started = console.tryIt.finish(state) else {
            return tryItPage(.badRequest, "<p class=\"alert\" role=\"alert\" id=\"tryError\">This sign-in is unknown or already finished: start again from the overview.</p>")
        }
        if let error = query["error"] {
            return tryItPage(.ok, "<p class=\"alert\" role=\"alert\" id=\"tryError\">The authority answered <code>\(error)</code>: \(query["error_description"] ?? "")</p>")
        }
        guard let code = query["code"] else { return tryItPage(.badRequest, "<p class=\"alert\" role=\"alert\" id=\"tryError\">No code reached the redirect URI.</p>") }

        var form = FormParameters()
        for (name, value) in [("client_id", ControlCommands.consoleClientID), ("grant_type", "authorization_code"), ("code", code),
                              ("redirect_uri", tryItRedirectURI), ("code_verifier", started.verifier), ("scope", started.scopes)] {
            form.append(name, value)
        }
        let tokenAnswer = send("POST", "\(started.authority)/oauth2/v2.0/token", body: Array(form.encoded.utf8),
                               headers: [("Content-Type", "application/x-www-form-urlencoded")])
        let tokens = Self.members(tokenAnswer.body)
        guard tokenAnswer.status.code == 200, let accessToken = tokens["access_token"] else {
            return tryItPage(.ok, "<p class=\"alert\" role=\"alert\" id=\"tryError\">The token endpoint answered \(String(tokenAnswer.status.code)): \(tokens["error_description"] ?? tokenAnswer.bodyText)</p>")
        }
        let keys = console.signingKeys, now = console.now
        let decoded = [("id_token", tokens["id_token"]), ("access_token", accessToken)].compactMap { label, token -> HTML? in
            token.flatMap { TokenInspection($0, keys: keys) }.map { TokenView.render($0, label: label, now: now) }
        }
        let idClaims = tokens["id_token"].flatMap { JWS.decode($0) }.map { Self.members($0.payloadJSON) } ?? [:]
        let summary: HTML, graph: HTML
        if started.callsGraph {
            let me = send("GET", "/v1.0/me", body: [], headers: [("Authorization", "Bearer \(accessToken)")])
            // The name the person signed in with: an External ID customer's email, not their generated UPN.
            let user = idClaims["preferred_username"] ?? Self.members(me.body)["userPrincipalName"] ?? "?"
            summary = "Signed in as <strong>\(user)</strong> with \(started.authority): the code was redeemed with PKCE, and Graph answered <code>GET /v1.0/me</code> with \(String(me.status.code)). Both requests are in the <a href=\"\(Self.base)/journal\">journal</a>."
            graph = "<section id=\"tryGraph\"><h2>Graph: GET /v1.0/me</h2><pre id=\"tryGraphBody\">\(JournalFacts.readableBody(me.bodyText) ?? "")</pre></section>"
        } else {
            let user = idClaims["name"] ?? idClaims["oid"] ?? "?"
            summary = "Signed in as <strong>\(user)</strong> with the user flow \(started.authority): the code was redeemed with PKCE (in the <a href=\"\(Self.base)/journal\">journal</a>). The access token is for the tenant's API (\(started.scopes)), as B2C issues them, not for Graph."
            graph = .empty
        }
        let content: HTML = """
        <p class="notice" role="status" id="trySignedIn">\(summary)</p>
        <section id="tryTokens"><h2>Tokens</h2>\(decoded.reduce(HTML.empty, +))</section>
        \(graph)
        <p><a href="\(Self.base)">Back to the overview</a></p>
        """
        return tryItPage(.ok, content)
    }

    /// A path of an authority this server serves (`/common`, `/contoso.onmicrosoft.com`, a tenant id, or a
    /// B2C user flow's `/tfp/{tenant}/{policy}`): segments of ASCII letters, digits, '.', '_' and '-', none
    /// empty or a dot-segment, so nothing can send the browser elsewhere.
    static func isAuthorityPath(_ text: String) -> Bool {
        guard text.hasPrefix("/") else { return false }
        let segments = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard (1...3).contains(segments.count) else { return false }
        return segments.allSatisfy { segment in
            !segment.isEmpty && segment != "." && segment != ".." && segment.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
        }
    }

    private func send(_ method: String, _ target: String, body: [UInt8], headers extra: [(String, String)]) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        headers.set("Host", request.headers["Host"] ?? "127.0.0.1")
        for (name, value) in extra { headers.set(name, value) }
        headers.set("Content-Length", String(body.count))
        let request = HTTPRequest(method: method, target: target, headers: headers, body: body)
        let (response, receipt) = next.exchange(request, connection: context)
        // Below the console: its ledger learns these tokens here, so their journal entries decode too.
        console.ledger.observe(request, response, receipt: receipt)
        return response
    }

    private func tryItPage(_ status: HTTPStatus, _ content: HTML) -> HTTPResponse {
        frame(.overview, heading: "Try it", lede: "A sign-in as a public client with PKCE, the tokens it got, and a Graph call with them.", content, status: status)
    }

    /// A JSON object's string members (a token answer, a Graph user).
    static func members(_ body: [UInt8]) -> [String: String] {
        guard let tree = try? LocatedJSON.parse(body, file: "answer"), let members = tree.members else { return [:] }
        var strings: [String: String] = [:]
        for member in members { if let text = member.value.string { strings[member.key] = text } }
        return strings
    }
}
