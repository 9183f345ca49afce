import ExchangeKernel
import EntraCrypto
import EntraHTTP
import LocatedJSON
import Synchronization

/// `/{tenant}/oauth2/v2.0/logout` and v1 `/{tenant}/oauth2/logout`: ends the browser session (or, with
/// `logout_hint`, one account of it) and returns to `post_logout_redirect_uri` when that URI is one the
/// app may use; otherwise, and without one, shows the signed-out page.
enum LogoutEndpoint {
    static func respond(_ exchange: IdentityExchange, version: EndpointVersion) -> HTTPResponse {
        let parameters = exchange.parameters
        let service = exchange.service
        var headers: HTTPHeaders = [:]

        if let cookie = exchange.request.cookies[SessionCookie.entra.name] {
            let sessionID = BrowserSession.id(forCookie: cookie)
            let hint = parameters["logout_hint"]
            let directory = service.currentDirectory
            let sessionEnded: Bool = service.state.withLock { state in
                guard var session = state.sessions[sessionID] else { return true }
                if let hint, let user = directory.users.first(where: { $0.isNamed(by: hint) }),
                   session.accounts.contains(where: { $0.userID == user.id }), session.accounts.count > 1 {
                    session.accounts.removeAll { $0.userID == user.id }
                    state.sessions[sessionID] = session
                    return false
                }
                state.sessions.removeValue(forKey: sessionID)
                return true
            }
            if sessionEnded { headers.add("Set-Cookie", SessionCookie.entra.clearCookie(secure: exchange.connection.isSecure)) }
        }

        if let target = parameters["post_logout_redirect_uri"] ?? parameters["redirect_uri"], !target.isEmpty,
           isAllowed(target, clientID: clientID(parameters), directory: service.currentDirectory, options: service.options) {
            return AuthorizationResponder.signedOutRedirect(to: target, state: parameters["state"], headers: headers)
        }
        return PageLayout.response(Pages.signedOut(), headers: headers)
    }

    /// `client_id`, or the audience of `id_token_hint` (read, not verified: it only picks the app whose
    /// redirect URIs are compared).
    static func clientID(_ parameters: FormParameters) -> String? {
        if let id = parameters["client_id"], !id.isEmpty { return id }
        guard let hint = parameters["id_token_hint"] else { return nil }
        let segments = hint.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = Base64URL.decode(String(segments[1])),
              let claims = LocatedJSON.object(body: payload) else { return nil }
        return claims["aud"]?.string ?? claims["aud"]?.strings?.first
    }

    /// The app's own redirect URIs (as /authorize checks them); without a known app, any registered app's
    /// redirect URI, or outside strict mode the native forms a lenient client may use.
    static func isAllowed(_ uri: String, clientID: String?, directory: Directory, options: IdentityOptions) -> Bool {
        if let clientID, let client = try? ClientResolver.resolve(clientID: clientID, directory: directory, options: options) {
            return (try? ClientResolver.validateRedirectURI(uri, for: client)) != nil
        }
        if directory.applications.contains(where: { $0.allRedirectURIs.contains(uri) }) { return true }
        return !options.strict && ClientResolver.isNativeRedirectURI(uri)
    }
}
