import ExchangeKernel
import EntraHTTP

/// The endpoints a browser (or a script acting as one) talks to: /authorize and its pages, /devicelogin,
/// logout, and the page `error_uri` points at.
enum BrowserEndpoints {
    static func respond(_ exchange: IdentityExchange) -> HTTPResponse {
        switch exchange.route.endpoint {
        case .authorize(let version): AuthorizeEndpoint.respond(exchange, version: version)
        case .logout(let version): LogoutEndpoint.respond(exchange, version: version)
        case .deviceLogin: DeviceLogin.respond(exchange)
        case .errorLookup: ErrorLookup.respond(exchange)
        default: SignInErrorPage(.malformedRequest(), status: .notFound).response(in: exchange.trace)
        }
    }
}
