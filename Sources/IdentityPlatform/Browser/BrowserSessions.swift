import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import Synchronization

/// A browser session cookie and the server-side `BrowserSession` it names. Entra's and each B2C tenant's
/// are separate cookies: signing in to B2C never signs in to Entra, nor the reverse.
package struct SessionCookie: Sendable {
    package var name: String

    package init(name: String) { self.name = name }

    /// Entra's (and the device login's) session.
    package static let entra = SessionCookie(name: "fakeentra_session")

    /// The session the request's cookie names, if it still exists.
    package func session(for exchange: IdentityExchange) -> BrowserSession? {
        guard let cookie = exchange.request.cookies[name], !cookie.isEmpty else { return nil }
        return exchange.service.state.withLock { $0.sessions[BrowserSession.id(forCookie: cookie)] }
    }

    /// `SameSite=None` lets the cookie ride on the cross-site form posts of `response_mode=form_post`
    /// and on sign-ins started from an app's own origin; browsers accept `None` only with `Secure`, so a
    /// plain-HTTP instance falls back to `Lax` rather than have the cookie dropped.
    package func setCookie(_ secret: String, secure: Bool) -> String {
        CookieCoding.setCookie(name: name, value: secret, secure: secure, httpOnly: true, sameSite: secure ? "None" : "Lax")
    }

    package func clearCookie(secure: Bool) -> String {
        CookieCoding.setCookie(name: name, value: "", maxAge: 0, secure: secure, httpOnly: true, sameSite: secure ? "None" : "Lax")
    }
}

extension BrowserSession {
    /// The session's id is a digest of its cookie's secret, as refresh tokens are kept by theirs: the
    /// `--state` file holds no cookie a browser could present.
    package static func id(forCookie secret: String) -> String {
        Hex.lowercase(Digest.sha256("fakeentra-session:\(secret)".utf8))
    }

    /// Whether `key` has the form of `id(forCookie:)` (a state file of an earlier version kept the cookie).
    static func isDigestID(_ key: String) -> Bool {
        key.utf8.count == 64 && key.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The session's public identifier: `session_state` on redirects and `sid` in tokens. Derived from the
    /// cookie's secret id by a one-way hash so that neither reveals the cookie.
    package var publicID: String {
        Hex.guid(Digest.sha256("fakeentra-sid:\(id)".utf8))
    }

    func account(userID: String) -> SignedInAccount? { accounts.first { $0.userID == userID } }
}

extension DirectoryUser {
    /// A `login_hint`, `logout_hint` or typed name: a sign-in name, the object id, or the value of the
    /// `login_hint` claim of this user's tokens (MSAL.js sends that claim back as both hints).
    func isNamed(by hint: String) -> Bool {
        if answers(to: hint) || id == hint.lowercased() { return true }
        guard let claim = TokenIdentifiers.objectID(fromLoginHint: hint) else { return false }
        return claim.objectID.lowercased() == id && claim.tenantID.lowercased() == tenantID.lowercased()
    }
}

extension PlatformState {
    /// Records that `userID` signed in, in the named session or a new one; returns the session and, when
    /// it is new, the secret its cookie carries (the response must then set the cookie).
    mutating func signIn(userID: String, methods: [String], at now: Date, sessionID: String?) -> (session: BrowserSession, newCookie: String?) {
        var session: BrowserSession
        var newCookie: String?
        if let sessionID, let existing = sessions[sessionID] {
            session = existing
        } else {
            let secret = SecureRandom.base64URLString(byteCount: 32)
            session = BrowserSession(id: BrowserSession.id(forCookie: secret), createdAt: now, expiresAt: now)
            newCookie = secret
        }
        let account = BrowserSession.SignedInAccount(userID: userID, authTime: now, authenticationMethods: methods)
        if let index = session.accounts.firstIndex(where: { $0.userID == userID }) {
            session.accounts[index] = account
        } else {
            session.accounts.append(account)
        }
        session.expiresAt = now.addingTimeInterval(limits.sessionLifetime)
        sessions[session.id] = session
        return (session, newCookie)
    }
}

extension IdentityService {
    /// The form field naming the server-side flow a page continues.
    package static let flowFieldName = "ctx"

    /// The /authorize parameters (client_id, redirect_uri, state…) a page's `ctx` continues, so that layers
    /// in front of the pages (scenario rules, logs) can tell which client a page post belongs to.
    package func authorizeParameters(forFlow flowID: String) -> [String: String]? {
        state.withLock { $0.pendingAuthorizations[flowID]?.parameters }
    }
}
