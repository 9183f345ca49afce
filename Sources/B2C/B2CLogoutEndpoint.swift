import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import Synchronization

/// `…/{policy}/oauth2/v2.0/logout`: ends the browser's B2C session, then returns to
/// `post_logout_redirect_uri` (any absolute URI, as the service allows) or shows the signed-out page.
enum B2CLogoutEndpoint {
    static func respond(_ exchange: B2CExchange) -> HTTPResponse {
        let parameters = exchange.request.method == "POST" ? exchange.request.form : exchange.request.query
        var headers: HTTPHeaders = [:]
        let cookie = exchange.sessionCookie
        if let session = cookie.session(for: exchange.base) {
            exchange.service.endSession(id: session.id)
        }
        if exchange.request.cookies[cookie.name] != nil {
            headers.add("Set-Cookie", cookie.clearCookie(secure: exchange.base.connection.isSecure))
        }
        guard let target = parameters["post_logout_redirect_uri"], !target.isEmpty else {
            return PageLayout.response(Pages.signedOut(), headers: headers)
        }
        let url = URLComponents(string: target)
        let scheme = url?.scheme?.lowercased() ?? ""
        guard !scheme.isEmpty, (scheme != "http" && scheme != "https") || url?.host?.isEmpty == false else {
            let error = IdentityError.b2cBadPostLogoutRedirect(target)
            return SignInErrorPage(error, headers: headers).response(in: exchange.trace)
        }
        return AuthorizationResponder.signedOutRedirect(to: target, state: parameters["state"], headers: headers)
    }
}
