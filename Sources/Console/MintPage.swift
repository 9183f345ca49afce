import ControlPlane
import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import LocatedJSON
import Scenarios

extension ConsolePage {
    /// `…/tokens`: the token mint as a form. GET shows it; POST mints and shows the token, ready to copy
    /// into curl, decoded underneath.
    func mintPage() -> HTTPResponse {
        guard request.method == "POST" else { return mintForm(result: .empty, status: .ok) }
        let form = request.form
        guard console.formGuard.accepts(request, form: form) else {
            return mintForm(result: "<p class=\"alert\" role=\"alert\" id=\"mintError\">The form was refused: it did not come from this console page.</p>", status: .forbidden)
        }
        let words = { (name: String) -> [String] in (form[name] ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) }
        let text = { (name: String) -> String? in form[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 } }
        var mint = TokenMintRequest()
        mint.kind = form["type"] == "id" ? .id : .access
        mint.user = text("user")
        if let client = text("clientId") { mint.clientID = client }
        mint.scopes = words("scopes")
        mint.roles = words("roles")
        mint.audience = text("audience")
        mint.lifetime = text("lifetime").flatMap(Double.init)
        if let claims = text("claims") {
            guard let tree = try? LocatedJSON.parse(Array(claims.utf8), file: "claims"), let members = tree.members else {
                return mintForm(result: "<p class=\"alert\" role=\"alert\" id=\"mintError\">Extra claims must be a JSON object, like {\"groups\": [\"g1\"]}.</p>", status: .badRequest)
            }
            mint.extraClaims = members.map { ($0.key, $0.value) }
        }
        do {
            let minted = try console.commands.mint(mint, binding: nil, origin: origin)
            let inspection = TokenInspection(minted.token, keys: console.signingKeys)
            let curl = "curl -H \"Authorization: Bearer \(minted.token)\" https://localhost:5001/"
            let result: HTML = """
            <section id="minted"><h2>Your token</h2>
            <p>Expires \(ConsoleFormat.dateTime(minted.expiresOn)) (\(ConsoleFormat.relative(minted.expiresOn, now: console.now))). <button type="button" class="copy small" data-copy="\(minted.token)" hidden>Copy token</button> <button type="button" class="copy small" data-copy="\(curl)" hidden>Copy as curl</button></p>
            <textarea id="mintedToken" readonly rows="5" spellcheck="false">\(minted.token)</textarea>
            \(inspection.map { TokenView.render($0, label: mint.kind == .id ? "id_token" : "access_token", now: console.now) } ?? .empty)
            </section>
            """
            return mintForm(result: result, status: .ok)
        } catch {
            return mintForm(result: "<p class=\"alert\" role=\"alert\" id=\"mintError\">\(error.message)</p>", status: HTTPStatus(error.reason == .invalidRequest ? 400 : 404))
        }
    }

    func mintForm(result: HTML, status: HTTPStatus) -> HTTPResponse {
        let form = request.method == "POST" ? request.form : FormParameters()
        let directory = console.engine.world(binding: "default")?.service.currentDirectory ?? Directory()
        let b2cTenants = Set(directory.tenants.filter { $0.kind == .b2c }.map(\.id))
        let chosen = form["user"] ?? ""
        let users = [HTML("<option value=\"\">nobody: an app-only token</option>")] + directory.users.filter { !b2cTenants.contains($0.tenantID) }.map { user -> HTML in
            "<option value=\"\(user.userPrincipalName)\"\(HTML(raw: user.userPrincipalName == chosen ? " selected" : ""))>\(user.userPrincipalName)</option>"
        }
        let isID = form["type"] == "id"
        let content: HTML = """
        <p class="muted">Signed with the server's key and built like a sign-in's token, so your API validates it against the published JWKS. The same as <code>fakeentra token</code> and <code>POST /_fakeentra/tokens</code>.</p>
        <form method="post" action="\(Self.base)/tokens" class="stack" id="mint-form">\(csrfField)
        <label for="m-type">Token<select id="m-type" name="type"><option value="access">access token</option><option value="id"\(HTML(raw: isID ? " selected" : ""))>id token</option></select></label>
        <label for="m-user">For user<select id="m-user" name="user">\(users)</select></label>
        <label for="m-client">Client id<input id="m-client" name="clientId" value="\(form["clientId"])" placeholder="\(TokenMintRequest.defaultClientID)"></label>
        <label for="m-scopes">Scopes<input id="m-scopes" name="scopes" value="\(form["scopes"])" placeholder="api://my-api/read or User.Read"></label>
        <label for="m-roles">App roles<input id="m-roles" name="roles" value="\(form["roles"])" placeholder="Orders.Admin"></label>
        <label for="m-audience">Audience<input id="m-audience" name="audience" value="\(form["audience"])" placeholder="from the scopes"></label>
        <label for="m-lifetime">Lifetime (s)<input id="m-lifetime" name="lifetime" type="number" min="1" value="\(form["lifetime"])" placeholder="3599"></label>
        <label for="m-claims">Extra claims (JSON)<input id="m-claims" name="claims" value="\(form["claims"])" placeholder="{&quot;groups&quot;: [&quot;g1&quot;]}"></label>
        <button type="submit" class="primary small" id="mint">Mint</button>
        </form>
        \(result)
        """
        return frame(.tokens, heading: "Mint a token", lede: "An access or id token for a user or an app, for testing your web API with curl.", content, status: status)
    }
}
