import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import IdentityPlatform
import Synchronization

/// One step of a B2C user flow: decides which page comes next or ends the flow with a code or an
/// error on the redirect URI. The pending sign-in, its session cookie (`x-ms-cpim-sso_<tenant>`) and the
/// step it is at are the platform's `BrowserFlowCore`, as for Entra's pages; what is B2C's own is the user
/// flow kinds, the pages' texts and element ids, and which action each step accepts (`B2CFlowActions`),
/// so that no page can skip one (a password reset without its code).
struct B2CFlow: BrowserFlow {
    enum Step: String {
        case signIn, signUp, editProfile, resetEmail, resetCode, resetPassword
    }

    static let internalPrefix = "fakeentra_b2c_"
    static let resetEmailKey = internalPrefix + "reset_email"

    let exchange: B2CExchange
    var core: BrowserFlowCore<Step>
    let request: B2CAuthorizationRequest

    var policy: B2CConfiguration.Policy { exchange.policy }
    var tenantID: String { exchange.tenantID }

    init(exchange: B2CExchange, pending: PendingAuthorization, request: B2CAuthorizationRequest, directory: Directory) {
        self.exchange = exchange
        self.request = request
        core = BrowserFlowCore(exchange: exchange.base, cookie: exchange.sessionCookie, pending: pending, directory: directory)
    }

    var form: PageForm { PageForm(action: exchange.authorizeAction, flowID: pending.id) }

    // MARK: - Starting

    /// Single sign-on from the B2C session where the policy allows it, else the policy's first page.
    mutating func begin() -> HTTPResponse {
        let signedIn = request.prompt == .login ? nil : sessionUser()
        let silent = request.prompt == .silent
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
            guard let user = directory.user(id: account.userID), user.tenantID == tenantID, user.isUsable else { continue }
            // A password reset elsewhere ends the sessions signed in before it, as it revokes their grants.
            if let validFrom = user.tokensValidFrom, account.authTime < validFrom { continue }
            if request.demandsSignIn(authenticatedAt: account.authTime, now: now) { continue }
            return SignedInUser(account: account, user: user)
        }
        return nil
    }

    /// `--auto-login` (CI): the `login_hint` account, or the tenant's only usable one, signs in without
    /// pages; nil when there is no such account (the sign-in page then, as without the option).
    mutating func autoSignIn() -> HTTPResponse? {
        guard service.options.autoLogin else { return nil }
        let usable = directory.users(inTenant: tenantID).filter(\.isUsable)
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
    func fail(_ error: IdentityError) -> HTTPResponse {
        core.fail(error, redirectURI: request.redirectURI, mode: request.responseMode, state: request.state)
    }

    /// Sends what the response type asks for to the redirect URI: the authorization code (which remembers
    /// the policy, as codes and refresh tokens are bound to it, and whether the account was just
    /// created), and for hybrid and implicit requests the id token and access token themselves.
    mutating func complete(_ user: DirectoryUser, authTime: Date? = nil) -> HTTPResponse {
        let signedInAt = authTime ?? session?.accounts.first(where: { $0.userID == user.id })?.authTime ?? now
        let grant = GrantContext(
            clientID: request.client.clientID, userID: user.id, tenantID: tenantID, scopes: request.scopes.scopes,
            resourceAppID: request.scopes.resource?.appID, endpointVersion: .v2, authTime: signedInAt,
            sessionID: session?.publicID, authenticationMethods: ["pwd"], policy: policy.name, isNewUser: pending.isNewUser
        )
        core.end()
        var parameters: [(String, String)] = []
        var hashes: [(String, String)] = []
        if request.responseTypes.contains("code") {
            let code = B2CGrantToken.make()
            core.issueCode(code, grant: grant, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge,
                           codeChallengeMethod: request.codeChallengeMethod, nonce: request.nonce)
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
        return core.deliver(parameters, redirectURI: request.redirectURI, mode: request.responseMode)
    }

    /// Adds `user` to the browser's B2C session (creating it, bound to the policy, and its cookie if needed)
    /// and to this flow.
    mutating func signIn(_ user: DirectoryUser) { core.signIn(user, methods: ["pwd"]) }
}
