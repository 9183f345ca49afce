import EntraCrypto
import EntraHTTP
import Foundation
import IdentityPlatform
import Synchronization

/// One step of a B2C user flow: decides which page comes next or ends the flow with a code or an
/// error on the redirect URI. The authorize parameters live server-side in
/// `PlatformState.pendingAuthorizations` (with the policy); pages carry only the flow id (`ctx`), and the
/// step the flow is at is kept with it so that no page can skip one (a password reset without its code).
struct B2CFlow {
    enum Step: String {
        case signIn, signUp, editProfile, resetEmail, resetCode, resetPassword
    }

    static let internalPrefix = "fakeentra_b2c_"
    static let stepKey = internalPrefix + "step"
    static let resetEmailKey = internalPrefix + "reset_email"

    let exchange: B2CExchange
    var pending: PendingAuthorization
    let request: B2CAuthorizationRequest
    var directory: Directory
    var session: BrowserSession?
    /// Headers every answer of this step carries (the session cookie when it changed).
    var headers: HTTPHeaders = [:]

    var service: IdentityService { exchange.service }
    var policy: B2CConfiguration.Policy { exchange.policy }
    var tenantID: String { exchange.tenantID }
    var now: Date { exchange.now }

    init(exchange: B2CExchange, pending: PendingAuthorization, request: B2CAuthorizationRequest, directory: Directory) {
        self.exchange = exchange
        self.pending = pending
        self.request = request
        self.directory = directory
        let fromCookie = B2CSessionCookie.session(for: exchange)
        session = fromCookie ?? pending.sessionID.flatMap { id in exchange.service.state.withLock { $0.sessions[id] } }
        // A flow that signed in without the browser keeping the cookie hands the cookie out again.
        if fromCookie == nil, let session {
            headers.set("Set-Cookie", B2CSessionCookie.setCookie(sessionID: session.id, exchange: exchange))
        }
    }

    var step: Step? {
        get { pending.parameters[Self.stepKey].flatMap(Step.init(rawValue:)) }
        set { pending.parameters[Self.stepKey] = newValue?.rawValue }
    }

    var form: B2CPages.Form { B2CPages.Form(action: exchange.authorizeAction, flowID: pending.id) }

    // MARK: - Starting

    /// Single sign-on from the B2C session where the policy allows it, else the policy's first page.
    mutating func begin() -> HTTPResponse {
        let signedIn = request.prompt == "login" ? nil : sessionUser()
        let silent = request.prompt == "none"
        switch policy.kind {
        case .susi, .signin, .ropc:
            if let signedIn { return useSession(signedIn) }
            if silent { return fail(.b2cNoSession(prompt: "none")) }
            if let done = autoSignIn() { return done }
            return showSignIn(login: request.loginHint, error: nil)
        case .signup:
            if silent { return fail(.b2cNoSession(prompt: "none")) }
            return showSignUp(B2CPages.Profile(email: request.loginHint), error: nil)
        case .editProfile:
            if let signedIn {
                pending.userID = signedIn.user.id
                pending.sessionID = session?.id
                return silent ? complete(signedIn.user) : showEditProfile(signedIn.user, error: nil)
            }
            if silent { return fail(.b2cNoSession(prompt: "none")) }
            if let done = autoSignIn() { return done }
            return showSignIn(login: request.loginHint, error: nil)
        case .passwordReset:
            if silent { return fail(.b2cNoSession(prompt: "none")) }
            return showResetEmail(email: request.loginHint, error: nil)
        }
    }

    struct SignedInUser {
        var account: BrowserSession.SignedInAccount
        var user: DirectoryUser
    }

    /// The most recent account of the browser's B2C session that still exists in this tenant and may sign in.
    func sessionUser() -> SignedInUser? {
        guard let session else { return nil }
        for account in session.accounts.reversed() {
            guard let user = directory.user(id: account.userID), user.tenantID == tenantID, user.accountEnabled, !user.locked else { continue }
            // A password reset elsewhere ends the sessions signed in before it, as it revokes their grants.
            if let validFrom = user.tokensValidFrom, account.authTime < validFrom { continue }
            if let maxAge = request.maxAge, now.timeIntervalSince(account.authTime) > maxAge { continue }
            return SignedInUser(account: account, user: user)
        }
        return nil
    }

    /// `--auto-login` (CI): the `login_hint` account, or the tenant's only usable one, signs in without
    /// pages; nil when there is no such account (the sign-in page then, as without the option).
    mutating func autoSignIn() -> HTTPResponse? {
        guard service.options.autoLogin else { return nil }
        let usable = directory.users(inTenant: tenantID).filter { $0.accountEnabled && !$0.locked }
        let chosen = request.loginHint.map { hint in usable.first { $0.answers(to: hint) } } ?? (usable.count == 1 ? usable[0] : nil)
        guard let user = chosen else { return nil }
        signIn(user)
        return complete(user)
    }

    mutating func useSession(_ signedIn: SignedInUser) -> HTTPResponse {
        pending.userID = signedIn.user.id
        pending.sessionID = session?.id
        return complete(signedIn.user, authTime: signedIn.account.authTime)
    }

    // MARK: - Pages

    /// Stores the flow at `step` and shows `page`.
    mutating func show(_ step: Step, _ page: HTML, status: HTTPStatus = .ok) -> HTTPResponse {
        self.step = step
        let snapshot = pending
        service.state.withLock { $0.pendingAuthorizations[snapshot.id] = snapshot }
        exchange.base.receipt.flow(snapshot.id, step: step.rawValue)
        return SharedPages.response(page, status: status, headers: headers)
    }

    mutating func showSignIn(login: String?, error: String?) -> HTTPResponse {
        show(.signIn, B2CPages.signIn(form: form, tenantName: exchange.configuration.tenant.displayName, login: login, error: error, offerSignUp: policy.kind == .susi))
    }

    mutating func showSignUp(_ profile: B2CPages.Profile, error: String?) -> HTTPResponse {
        show(.signUp, B2CPages.signUp(form: form, profile: profile, error: error))
    }

    mutating func showEditProfile(_ user: DirectoryUser, error: String?) -> HTTPResponse {
        show(.editProfile, B2CPages.editProfile(form: form, profile: Self.profile(of: user), error: error))
    }

    mutating func showResetEmail(email: String?, error: String?) -> HTTPResponse {
        show(.resetEmail, B2CPages.resetEmail(form: form, email: email, error: error))
    }

    static func profile(of user: DirectoryUser) -> B2CPages.Profile {
        B2CPages.Profile(email: user.mail, displayName: user.displayName, givenName: user.givenName, surname: user.surname)
    }

    // MARK: - Ending

    /// Back to the app with an error (`access_denied` for cancel and forgotten password, as B2C does).
    mutating func fail(_ error: IdentityError) -> HTTPResponse {
        let flowID = pending.id
        service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
        let parameters = SharedRedirect.errorParameters(error, state: request.state, trace: exchange.trace)
        return SharedRedirect.deliver(parameters, uri: request.redirectURI, responseMode: request.responseMode, headers: headers)
    }

    /// Sends what the response type asks for to the redirect URI: the authorization code (which remembers
    /// the policy, as codes and refresh tokens are bound to it, and whether the account was just
    /// created), and for hybrid and implicit requests the id token and access token themselves.
    mutating func complete(_ user: DirectoryUser, authTime: Date? = nil) -> HTTPResponse {
        let options = service.options
        let signedInAt = authTime ?? session?.accounts.first(where: { $0.userID == user.id })?.authTime ?? now
        let grant = GrantContext(
            clientID: request.client.clientID, userID: user.id, tenantID: tenantID, scopes: request.scopes.scopes,
            resourceAppID: request.scopes.resource?.appID, endpointVersion: .v2, authTime: signedInAt,
            sessionID: session?.sharedPublicID, authenticationMethods: ["pwd"], policy: policy.name, isNewUser: pending.isNewUser
        )
        let flowID = pending.id
        service.state.withLock { _ = $0.pendingAuthorizations.removeValue(forKey: flowID) }
        var parameters: [(String, String)] = []
        var hashes: [(String, String)] = []
        if request.responseTypes.contains("code") {
            let code = B2CGrantToken.make()
            let record = AuthorizationCodeRecord(
                code: code, grant: grant, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge,
                codeChallengeMethod: request.codeChallengeMethod, nonce: request.nonce, issuedAt: now,
                expiresAt: now.addingTimeInterval(options.authorizationCodeLifetime)
            )
            service.state.withLock { $0.authorizationCodes[code] = record }
            exchange.base.receipt.grant(.authorizationCode, .created, handle: code)
            parameters.append(("code", code))
            hashes.append(("c_hash", B2CTokenMinter.halfHash(code)))
        }
        do throws(IdentityError) {
            let issue = B2CTokenIssue(clientID: request.client.clientID, user: user, scopes: request.scopes, grant: grant, nonce: request.nonce)
            let minter = B2CTokenMinter(exchange: exchange)
            if request.responseTypes.contains("token"), let access = try minter.accessToken(issue) {
                parameters += [("access_token", access.token), ("token_type", "Bearer"),
                               ("expires_in", String(Int(saturating: minter.options.accessTokenLifetime))), ("scope", request.scopes.scopes.joined(separator: " "))]
                hashes.append(("at_hash", B2CTokenMinter.halfHash(access.token)))
            }
            if request.responseTypes.contains("id_token") { parameters.append(("id_token", try minter.idToken(issue, hashes: hashes))) }
        } catch {
            return fail(error)
        }
        if let state = request.state { parameters.append(("state", state)) }
        return SharedRedirect.deliver(parameters, uri: request.redirectURI, responseMode: request.responseMode, headers: headers)
    }

    // MARK: - Changing state

    /// Adds `user` to the browser's B2C session (creating it and its cookie if needed) and to this flow.
    mutating func signIn(_ user: DirectoryUser) {
        let existing = session?.id
        let policyName = policy.name
        let (updated, isNew) = service.state.withLock { state in
            let result = state.recordSignIn(userID: user.id, methods: ["pwd"], at: now, sessionID: existing)
            if result.isNew { state.sessions[result.session.id]?.policy = policyName }
            return result
        }
        session = updated
        if isNew { headers.set("Set-Cookie", B2CSessionCookie.setCookie(sessionID: updated.id, exchange: exchange)) }
        pending.userID = user.id
        pending.sessionID = updated.id
    }
}
