import EntraHTTP
import IdentityPlatform
import Synchronization

/// The B2C single sign-on cookie (`x-ms-cpim-sso_<tenant>`), naming a server-side `BrowserSession`.
/// Separate from the Entra session cookie: signing in to B2C never signs in to Entra, nor the reverse.
enum B2CSessionCookie {
    static func name(_ exchange: B2CExchange) -> String { "x-ms-cpim-sso_\(exchange.configuration.tenant.shortName)" }

    static func session(for exchange: B2CExchange) -> BrowserSession? {
        guard let id = exchange.request.cookies[name(exchange)], !id.isEmpty else { return nil }
        return exchange.service.state.withLock { $0.sessions[id] }
    }

    /// `SameSite=None` needs `Secure`; a plain-HTTP instance falls back to `Lax`.
    static func setCookie(sessionID: String, exchange: B2CExchange) -> String {
        let secure = exchange.base.connection.isSecure
        return CookieCoding.setCookie(name: name(exchange), value: sessionID, secure: secure, httpOnly: true, sameSite: secure ? "None" : "Lax")
    }

    static func clearCookie(exchange: B2CExchange) -> String {
        let secure = exchange.base.connection.isSecure
        return CookieCoding.setCookie(name: name(exchange), value: "", maxAge: 0, secure: secure, httpOnly: true, sameSite: secure ? "None" : "Lax")
    }
}
