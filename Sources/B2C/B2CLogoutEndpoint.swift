import EntraHTTP
import Foundation
import IdentityPlatform
import Synchronization

/// `…/{policy}/oauth2/v2.0/logout`: ends the browser's B2C session, then returns to
/// `post_logout_redirect_uri` (any absolute URI, as the service allows) or shows the signed-out page.
enum B2CLogoutEndpoint {
    static func respond(_ exchange: B2CExchange) -> HTTPResponse {
        let parameters = exchange.request.method == "POST" ? exchange.request.form : exchange.request.query
        var headers: HTTPHeaders = [:]
        if let session = B2CSessionCookie.session(for: exchange) {
            exchange.service.state.withLock { _ = $0.sessions.removeValue(forKey: session.id) }
        }
        if exchange.request.cookies[B2CSessionCookie.name(exchange)] != nil {
            headers.add("Set-Cookie", B2CSessionCookie.clearCookie(exchange: exchange))
        }
        guard let target = parameters["post_logout_redirect_uri"], !target.isEmpty else {
            return SharedPages.response(SharedPages.signedOut(), headers: headers)
        }
        let url = URLComponents(string: target)
        let scheme = url?.scheme?.lowercased() ?? ""
        guard !scheme.isEmpty, (scheme != "http" && scheme != "https") || url?.host?.isEmpty == false else {
            let error = IdentityError.b2cBadPostLogoutRedirect(target)
            return SharedPages.response(SharedPages.error(error, trace: exchange.trace), status: .badRequest, headers: headers)
        }
        let state = parameters["state"].map { [("state", $0)] } ?? []
        headers.set("Location", state.isEmpty ? target : SharedRedirect.url(target, parameters: state))
        headers.set("Cache-Control", "no-store, no-cache")
        headers.set("Content-Length", "0")
        return HTTPResponse(status: .found, headers: headers)
    }
}
