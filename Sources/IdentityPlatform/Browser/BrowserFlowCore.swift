package import ExchangeKernel
import EntraCrypto
package import EntraHTTP
package import FoundationGaps
import Synchronization

/// What every browser sign-in flow shares, Entra's pages and B2C's user flows alike: the pending sign-in
/// kept server-side under its `ctx` together with the step whose page it showed last, the browser session
/// its cookie names, how a page is shown and how the flow ends on the redirect URI. Each flow adds its own
/// steps (`Step`), its own pages (texts and element ids) and its own rules for going from one to the next.
package struct BrowserFlowCore<Step: RawRepresentable> where Step.RawValue == String {
    package let exchange: IdentityExchange
    /// Entra's and B2C's sessions are separate: each flow reads and sets its own cookie.
    package let cookie: SessionCookie
    package var pending: PendingAuthorization
    package var directory: Directory
    package var session: BrowserSession?
    /// Headers every answer of this step carries (the session cookie when it changed).
    package var headers: HTTPHeaders = [:]

    package init(exchange: IdentityExchange, cookie: SessionCookie, pending: PendingAuthorization, directory: Directory) {
        self.exchange = exchange
        self.cookie = cookie
        self.pending = pending
        self.directory = directory
        let fromCookie = cookie.session(for: exchange)
        session = fromCookie ?? pending.sessionID.flatMap { id in exchange.service.state.withLock { $0.sessions[id] } }
        // A flow that signed in without the browser keeping the cookie hands the cookie out again.
        if fromCookie == nil, session != nil, let secret = pending.sessionCookie {
            headers.set("Set-Cookie", cookie.setCookie(secret, secure: exchange.connection.isSecure))
        }
    }

    package var service: IdentityService { exchange.service }
    package var now: Date { exchange.now }

    /// The step whose page the flow showed last; nil before its first page.
    package var step: Step? { pending.step.flatMap(Step.init(rawValue:)) }

    // MARK: - Pages

    /// Stores the flow at `step` and shows `page`; the receipt names the step.
    package mutating func show(_ step: Step, _ page: HTML, status: HTTPStatus = .ok) -> HTTPResponse {
        pending.step = step.rawValue
        let snapshot = pending
        service.state.withLock { $0.pendingAuthorizations[snapshot.id] = snapshot }
        exchange.receipt.flow(snapshot.id, step: step.rawValue)
        return PageLayout.response(page, status: status, headers: headers)
    }

    /// An answer that is not a page of the flow (an error page, a device's last page) with this step's headers.
    package func respond(_ page: HTML, status: HTTPStatus = .ok) -> HTTPResponse {
        PageLayout.response(page, status: status, headers: headers)
    }

    // MARK: - Changing state

    /// Adds `user` to the browser session (creating it and its cookie if needed; a B2C flow's new session
    /// is bound to its policy) and to this flow.
    package mutating func signIn(_ user: DirectoryUser, methods: [String]) {
        let existing = session?.id
        let policy = pending.policy
        let now = self.now
        let (updated, newCookie) = service.state.withLock { state in
            let result = state.signIn(userID: user.id, methods: methods, at: now, sessionID: existing)
            if result.newCookie != nil, let policy { state.sessions[result.session.id]?.policy = policy }
            return result
        }
        session = updated
        if let newCookie {
            headers.set("Set-Cookie", cookie.setCookie(newCookie, secure: exchange.connection.isSecure))
            pending.sessionCookie = newCookie
        }
        pending.userID = user.id
        pending.authenticationMethods = methods
        pending.sessionID = updated.id
    }

    /// The flow is over: its `ctx` can no longer be continued.
    package func end() {
        let flowID = pending.id
        service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
    }

    // MARK: - Ending on the redirect URI

    /// Ends the flow with an error sent back to the app (`error_subcode=cancel` when the user backed out).
    package func fail(_ error: IdentityError, redirectURI: String, mode: ResponseMode, state: String?, cancelled: Bool = false) -> HTTPResponse {
        end()
        return AuthorizeErrorRedirect(error, redirectURI: redirectURI, mode: mode, state: state, subcode: cancelled ? "cancel" : nil, headers: headers).response(in: exchange.trace)
    }

    /// Ends the flow with an authorization code for `grant`, kept for the token endpoint (single use, short-lived).
    package func issueCode(_ code: String, grant: GrantContext, redirectURI: String, codeChallenge: String?, codeChallengeMethod: String?, nonce: String?) {
        service.issueCode(code, grant: grant, redirectURI: redirectURI, codeChallenge: codeChallenge, codeChallengeMethod: codeChallengeMethod,
                          nonce: nonce, now: now, endingFlow: pending.id)
        exchange.receipt.grant(.authorizationCode, .created, handle: code)
    }

    /// Sends `parameters` (a code, tokens, state…) to the redirect URI in the response mode asked for.
    package func deliver(_ parameters: [(String, String)], redirectURI: String, mode: ResponseMode) -> HTTPResponse {
        AuthorizationResponder.deliver(parameters, uri: redirectURI, mode: mode, headers: headers)
    }
}

/// A browser sign-in flow (Entra's `InteractiveFlow`, B2C's `B2CFlow`): its own steps, pages and rules
/// around the shared core, whose state it reads and changes through these members.
package protocol BrowserFlow {
    associatedtype Step: RawRepresentable where Step.RawValue == String
    var core: BrowserFlowCore<Step> { get set }
}

extension BrowserFlow {
    package var pending: PendingAuthorization {
        get { core.pending }
        set { core.pending = newValue }
    }

    /// The directory as this step sees it, read again after the flow changes it (a sign-up, a new password).
    package var directory: Directory {
        get { core.directory }
        set { core.directory = newValue }
    }

    package var session: BrowserSession? { core.session }
    package var step: Step? { core.step }
    package var service: IdentityService { core.service }
    package var now: Date { core.now }

    /// Stores the flow at `step` and shows `page`.
    package mutating func show(_ step: Step, _ page: HTML) -> HTTPResponse { core.show(step, page) }

    /// Shows `page`, whose `error` (a wrong password, a wrong code) is the answer's error though the page is a 200.
    package mutating func show(_ step: Step, _ page: HTML, answering error: IdentityError?) -> HTTPResponse {
        core.show(step, page).stating(error.flatMap(\.stated))
    }
}

/// Where a flow starts and where a page's post finds it again.
extension IdentityService {
    /// A new pending sign-in under a fresh `ctx` (stored by its first page); expired flows are purged.
    /// Parameters over `PendingAuthorization.largestParameters` are refused before anything is kept.
    package func newSignInFlow(parameters: [String: String], tenantSegment: String, version: EndpointVersion, policy: String? = nil, now: Date, expiresAt: Date) throws(IdentityError) -> PendingAuthorization {
        guard PendingAuthorization.keptBytes(of: parameters) <= PendingAuthorization.largestParameters else { throw .queryStringTooLong() }
        state.withLock { $0.purge(now: now) }
        return PendingAuthorization(id: SecureRandom.base64URLString(byteCount: 24), parameters: parameters, tenantSegment: tenantSegment,
                                    endpointVersion: version, policy: policy, expiresAt: expiresAt)
    }

    /// The pending sign-in `flowID` names while it lives and `belongsHere` accepts it (a B2C flow only on its
    /// own policy); any other is forgotten, so that a lost `ctx` stays lost.
    package func pendingSignIn(_ flowID: String, now: Date, where belongsHere: (PendingAuthorization) -> Bool = { _ in true }) -> PendingAuthorization? {
        state.withLock { state in
            if let pending = state.pendingAuthorizations[flowID], pending.expiresAt > now, belongsHere(pending) { return pending }
            _ = state.pendingAuthorizations.removeValue(forKey: flowID)
            return nil
        }
    }

    /// Forgets a pending sign-in whose stored request no longer validates.
    package func forgetSignIn(_ flowID: String) {
        state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
    }
}
