import EntraCrypto
package import EntraHTTP
import FoundationGaps
import Scenarios

/// The one rule for who may use `/_fakeentra/…` (control API, journal, token mint, conformance runs)
/// and the console. Without a control secret, loopback clients only; with one, every caller presents
/// it, as `Authorization: Bearer` (scripts) or, for a browser, as the cookie the console's sign-in form
/// sets once the secret was typed. Health checks need nothing (`ControlPlane`).
package struct ControlAccess: Sendable {
    package enum Decision: Equatable {
        case allowed
        /// A secret is configured and was not presented (or was wrong): ask for it.
        case needsSecret
        /// No secret is configured and the caller is not on this machine.
        case loopbackOnly
    }

    package static let cookieName = "fakeentra_console"
    package let secret: String?

    package init(secret: String?) { self.secret = secret }

    /// `acceptCookie`: the console's pages; the JSON endpoints take the bearer header only.
    package func decide(_ request: HTTPRequest, context: ConnectionFacts, acceptCookie: Bool) -> Decision {
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

    /// The JSON endpoints' refusal, in the control API's error shape; nil when the caller may proceed.
    package func refusal(_ request: HTTPRequest, context: ConnectionFacts) -> HTTPResponse? {
        switch decide(request, context: context, acceptCookie: false) {
        case .allowed: nil
        case .needsSecret: ScenarioEngineError.unauthorized().response
        case .loopbackOnly: ScenarioEngineError.loopbackOnly().response
        }
    }

    /// True when `presented` is the control secret (the sign-in form).
    package func isSecret(_ presented: String) -> Bool {
        guard let secret else { return false }
        return ConstantTime.equals(presented, secret)
    }

    /// The cookie carries a digest of the secret, not the secret: a cookie jar that leaks does not give
    /// away the bearer secret scripts use.
    package var cookieValue: String {
        Base64URL.encode(Digest.sha256("fakeentra-console:\(secret ?? "")".utf8))
    }

    package func signInCookie(secure: Bool) -> String {
        CookieCoding.setCookie(name: Self.cookieName, value: cookieValue, secure: secure, httpOnly: true, sameSite: "Strict")
    }
}
