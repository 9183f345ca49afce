import EntraCrypto
import EntraHTTP
import Foundation

/// Who may use the console and the token mint: the control API's rule. Without a control secret,
/// loopback clients only; with one, every caller presents it, as `Authorization: Bearer` (scripts) or,
/// for a browser, as the cookie the console's sign-in form sets once the secret was typed.
struct ControlAccess: Sendable {
    enum Decision: Equatable {
        case allowed
        /// A secret is configured and was not presented (or was wrong): ask for it.
        case needsSecret
        /// No secret is configured and the caller is not on this machine.
        case loopbackOnly
    }

    static let cookieName = "fakeentra_console"
    let secret: String?

    /// `acceptCookie`: the console's pages; the JSON endpoints take the bearer header only, like the control API.
    func decide(_ request: HTTPRequest, context: RequestContext, acceptCookie: Bool) -> Decision {
        guard let secret else { return context.isLoopback ? .allowed : .loopbackOnly }
        if let presented = request.headers["Authorization"]?.credentials(ofScheme: "bearer"),
           ConstantTime.equals(presented.utf8, secret.utf8) {
            return .allowed
        }
        if acceptCookie, let cookie = request.cookies[Self.cookieName], ConstantTime.equals(cookie, cookieValue) {
            return .allowed
        }
        return .needsSecret
    }

    /// True when `presented` is the control secret (the sign-in form).
    func isSecret(_ presented: String) -> Bool {
        guard let secret else { return false }
        return ConstantTime.equals(presented, secret)
    }

    /// The cookie carries a digest of the secret, not the secret: a cookie jar that leaks does not give
    /// away the bearer secret scripts use.
    var cookieValue: String {
        Base64URL.encode(Digest.sha256("fakeentra-console:\(secret ?? "")".utf8))
    }

    func signInCookie(secure: Bool) -> String {
        CookieCoding.setCookie(name: Self.cookieName, value: cookieValue, secure: secure, httpOnly: true, sameSite: "Strict")
    }
}

/// Cross-site request forgery guard for the console's forms: a random token per server run in every
/// form (a page on another origin cannot read it), and a foreign `Origin` refused outright.
struct FormGuard: Sendable {
    static let fieldName = "csrf"
    let token: String

    init(token: String = SecureRandom.base64URLString(byteCount: 24)) { self.token = token }

    func accepts(_ request: HTTPRequest, form: FormParameters) -> Bool {
        if let origin = request.headers["Origin"], origin != "null" {
            let host = request.headers["Host"]?.lowercased() ?? ""
            let originHost = origin.lowercased().split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? ""
            guard originHost == host else { return false }
        }
        guard let presented = form[Self.fieldName] else { return false }
        return ConstantTime.equals(presented, token)
    }
}
