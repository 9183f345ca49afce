import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import Synchronization

/// One step of an interactive sign-in (browser /authorize or /devicelogin): decides which page comes next,
/// or ends the flow with a code, an approved device code, or an error. The authorize parameters live
/// server-side in `PlatformState.pendingAuthorizations`; pages carry only the flow id (`ctx`).
struct InteractiveFlow: BrowserFlow {
    /// The pages of Entra's flow, as the receipt names them.
    enum Step: String {
        case signIn = "sign_in", chooseAccount = "choose_account", mfa, consent
        case adminConsentRequired = "admin_consent_required", passwordChange = "password_change"
        case createAccount = "create_account", verifyEmail = "verify_email", deviceConfirm = "device_confirm"
        case emailCode = "email_code", resetPassword = "reset_password", newPassword = "new_password"
    }

    /// The pending sign-in, session and cookie handling every browser flow shares (B2C's too).
    var core: BrowserFlowCore<Step>
    let request: AuthorizationRequest

    var exchange: IdentityExchange { core.exchange }
    var options: IdentityOptions { service.options }
    var app: Application { request.application }
    var appName: String { app.displayName }

    init(exchange: IdentityExchange, pending: PendingAuthorization, request: AuthorizationRequest, directory: Directory) {
        core = BrowserFlowCore(exchange: exchange, cookie: .entra, pending: pending, directory: directory)
        self.request = request
    }

    var form: PageForm {
        let action: String = switch request.reply {
        case .device: "/devicelogin"
        case .redirect:
            "/" + FormCoding.encodeComponent(pending.tenantSegment) + (pending.endpointVersion == .v1 ? "/oauth2/authorize" : "/oauth2/v2.0/authorize")
        }
        return PageForm(action: action, flowID: pending.id)
    }

    // MARK: - Deciding the next step

    /// Moves the flow as far as it can go without the user, then shows the page that needs them.
    mutating func proceed(consentAccepted: Bool = false) -> HTTPResponse {
        guard let userID = pending.userID else { return chooseAccount() }
        guard let user = directory.user(id: userID), let tenant = directory.tenant(id: user.tenantID) else {
            pending.userID = nil
            return chooseAccount()
        }
        if let problem = accountProblem(user) { return showSignIn(login: user.userPrincipalName, error: problem) }
        guard admits(user, tenant) else { return showSignIn(login: user.userPrincipalName, error: notInTenant()) }

        if needsMFA(user), !pending.authenticationMethods.contains("mfa") {
            guard user.mfaRegistered else { return fail(.mfaEnrollmentRequired(resource: resourceName)) }
            if request.prompt == .silent { return fail(.mfaRequiredInteractive(resource: resourceName)) }
            if options.autoLogin { return completeMFA(user) }
            return show(.mfa, Pages.mfa(form: form, displayName: user.displayName, error: nil))
        }

        let evaluation = consentEvaluation(for: user)
        // FakeEntra has no directory roles: anyone of an organisation may act as its administrator.
        let forOrganization = request.prompt == .adminConsent && tenant.kind == .organization
        if !evaluation.needingAdminConsent.isEmpty && !forOrganization {
            if request.prompt == .silent { return fail(.consentRequiredInteractive(clientID: app.clientID, appName: appName)) }
            if options.autoLogin { return fail(.adminConsentRequired()) }
            return show(.adminConsentRequired, Pages.adminConsentRequired(form: form, appName: appName, error: .adminConsentRequired(), permissions: evaluation.needingAdminConsent),
                        answering: .adminConsentRequired())
        }
        let wantsConsent = !evaluation.needingUserConsent.isEmpty || request.prompt == .consent || forOrganization
        if wantsConsent && !consentAccepted && !options.autoLogin {
            if request.prompt == .silent { return fail(.consentRequiredInteractive(clientID: app.clientID, appName: appName)) }
            return showConsent(user: user, evaluation: evaluation, forOrganization: forOrganization)
        }
        let granting = (forOrganization ? evaluation.permissions : evaluation.needingUserConsent).filter { !pending.declinedPermissions.contains($0) }
        if let resource = evaluation.resource, !granting.isEmpty {
            service.directory.withLock {
                $0.recordConsent(client: app, resource: resource, permissions: granting, user: user, forWholeTenant: forOrganization)
            }
            directory = service.currentDirectory
        }
        return complete(user: user)
    }

    /// No account chosen yet: single sign-on from the browser session, the picker, or the sign-in page.
    private mutating func chooseAccount() -> HTTPResponse {
        let prompt = request.prompt
        if prompt == .create { return showCreateAccount(email: request.loginHint, error: nil) }
        let candidates = request.forcesSignIn ? [] : sessionCandidates()

        if let hint = request.loginHint {
            if prompt != .selectAccount, let match = candidates.first(where: { $0.user.isNamed(by: hint) }) {
                return useSessionAccount(match.account, user: match.user)
            }
            if prompt == .selectAccount, !candidates.isEmpty, !options.autoLogin { return showPicker(candidates) }
            return signInRequired(login: signInName(for: hint))
        }
        if prompt == .selectAccount, !candidates.isEmpty, !options.autoLogin { return showPicker(candidates) }
        // With --auto-login the one signed-in account answers even `select_account`: no page is shown.
        if candidates.count == 1, prompt != .selectAccount || options.autoLogin {
            return useSessionAccount(candidates[0].account, user: candidates[0].user)
        }
        if candidates.count > 1 {
            if prompt == .silent { return fail(.accountSelectionRequired()) }
            if !options.autoLogin { return showPicker(candidates) }
        }
        return signInRequired(login: nil)
    }

    /// What the sign-in page shows for a hint: an opaque `login_hint` claim as its user's sign-in name, an
    /// opaque one naming no one as nothing, any other hint as given.
    private func signInName(for hint: String) -> String? {
        guard TokenIdentifiers.objectID(fromLoginHint: hint) != nil else { return hint }
        return directory.users.first { $0.isNamed(by: hint) }?.userPrincipalName
    }

    /// The session cannot answer: `prompt=none` fails, `--auto-login` signs someone in, else the sign-in page.
    private mutating func signInRequired(login: String?) -> HTTPResponse {
        if options.autoLogin {
            let users = autoLoginCandidates()
            if let hint = login {
                if let user = users.first(where: { $0.isNamed(by: hint) }) { return autoSignIn(user) }
            } else if users.count == 1 {
                return autoSignIn(users[0])
            } else if users.count > 1 {
                return show(.chooseAccount, Pages.accountPicker(form: form, appName: appName, accounts: users.map(tile)))
            }
        }
        if request.prompt == .silent { return fail(.loginRequired()) }
        return showSignIn(login: login, error: nil)
    }

    mutating func useSessionAccount(_ account: BrowserSession.SignedInAccount, user: DirectoryUser) -> HTTPResponse {
        if request.demandsSignIn(authenticatedAt: account.authTime, now: now) {
            if request.prompt == .silent { return fail(.loginRequired()) }
            if options.autoLogin { return autoSignIn(user) }
            return showSignIn(login: user.userPrincipalName, error: nil)
        }
        pending.userID = user.id
        pending.authenticationMethods = account.authenticationMethods
        pending.sessionID = session?.id
        return proceed()
    }

    /// `--auto-login`: signed in as if the password (and any second factor) had been entered.
    mutating func autoSignIn(_ user: DirectoryUser) -> HTTPResponse {
        signIn(user, methods: needsMFA(user) && user.mfaRegistered ? ["pwd", "mfa"] : ["pwd"])
        return proceed()
    }

    private mutating func completeMFA(_ user: DirectoryUser) -> HTTPResponse {
        signIn(user, methods: pending.authenticationMethods.filter { $0 != "mfa" } + ["mfa"])
        return proceed()
    }

    // MARK: - Who may sign in

    struct Candidate {
        var account: BrowserSession.SignedInAccount
        var user: DirectoryUser
    }

    /// Accounts of the browser session this request may use: existing, enabled, admitted by the authority.
    func sessionCandidates() -> [Candidate] {
        guard let session else { return [] }
        return session.accounts.compactMap { account in
            guard let user = directory.user(id: account.userID), let tenant = directory.tenant(id: user.tenantID),
                  accountProblem(user) == nil, admits(user, tenant), matchesDomainHint(tenant) else { return nil }
            return Candidate(account: account, user: user)
        }
    }

    func autoLoginCandidates() -> [DirectoryUser] {
        directory.users.filter { user in
            guard let tenant = directory.tenant(id: user.tenantID) else { return false }
            return accountProblem(user) == nil && admits(user, tenant) && matchesDomainHint(tenant)
        }
    }

    /// The authority's tenant rule, and a registered single-tenant app's home tenant.
    func admits(_ user: DirectoryUser, _ tenant: Tenant) -> Bool {
        guard request.selector.admits(tenant) else { return false }
        if request.client.isRegistered, let home = app.tenantID { return home == tenant.id }
        return true
    }

    /// `domain_hint` narrows which signed-in accounts are offered: `consumers`, `organizations` or a domain.
    func matchesDomainHint(_ tenant: Tenant) -> Bool {
        guard let hint = request.domainHint?.lowercased() else { return true }
        switch hint {
        case "consumers": return tenant.kind == .consumers
        case "organizations": return tenant.kind == .organization
        default:
            guard directory.tenant(matching: hint) != nil else { return true }
            return tenant.domains.contains(hint) || tenant.id == hint
        }
    }

    func accountProblem(_ user: DirectoryUser) -> IdentityError? {
        user.refusal.map(IdentityError.refusing)
    }

    func needsMFA(_ user: DirectoryUser) -> Bool {
        user.mfaRequired || exchange.directives.requireMFA || ClaimsRequest.requiresMFA(request.claimsRequest)
    }

    /// The consent the user still has to give; a scenario may withdraw earlier consent (`consentRequiredScopes`).
    func consentEvaluation(for user: DirectoryUser) -> ConsentEvaluation {
        var evaluation = directory.evaluateConsent(request.scopes, client: app, user: user)
        let withdrawn = evaluation.alreadyGranted.filter { request.scopes.matches($0, any: exchange.directives.consentRequiredScopes) }
        evaluation.alreadyGranted.removeAll { withdrawn.contains($0) }
        evaluation.needingUserConsent += withdrawn
        return evaluation
    }

    func notInTenant() -> IdentityError {
        let tenant: String = switch request.selector {
        case .specific(let t): t.id
        case .consumers: Tenant.consumersTenantID
        case .common, .organizations: app.tenantID ?? pending.tenantSegment
        }
        return .userNotInTenant(tenant: tenant, clientID: app.clientID, appName: appName)
    }

    var resourceName: String { request.scopes.resource?.displayName ?? appName }

    // MARK: - Changing state

    /// Adds `user` to the browser session (creating it and its cookie if needed) and to this flow.
    mutating func signIn(_ user: DirectoryUser, methods: [String]) { core.signIn(user, methods: methods) }

    mutating func showSignIn(login: String?, error: IdentityError?) -> HTTPResponse {
        pending.userID = nil
        // A sign-up or a code left unfinished ends here (a pending sign-up holds the password typed).
        pending.signUp = nil
        pending.emailCode = nil
        var variant = externalTenant.map { Pages.SignInVariant.external($0.externalUserFlow) } ?? Pages.SignInVariant()
        variant.offersSignUp = canCreateAccounts
        return show(.signIn, Pages.signIn(form: form, appName: appName, login: login, error: error, variant: variant), answering: error)
    }

    mutating func showPicker(_ candidates: [Candidate]) -> HTTPResponse {
        show(.chooseAccount, Pages.accountPicker(form: form, appName: appName, accounts: candidates.map { tile($0.user) }))
    }

    func tile(_ user: DirectoryUser) -> Pages.AccountTile {
        let tenant = directory.tenant(id: user.tenantID)
        return Pages.AccountTile(userID: user.id, displayName: user.displayName, signInName: user.userPrincipalName,
                                 note: tenant?.kind == .consumers ? "Personal account" : tenant?.displayName)
    }

    mutating func showConsent(user: DirectoryUser, evaluation: ConsentEvaluation, forOrganization: Bool) -> HTTPResponse {
        let asked = request.prompt == .consent || forOrganization ? evaluation.permissions : evaluation.needingUserConsent
        var lines = asked.map { permission in
            let entry = PermissionDescriptions.describe(permission, resource: evaluation.resource)
            let scope = request.scopes.responseScopes(granted: [permission]).first ?? permission
            return Pages.PermissionLine(scope: scope, title: entry.title, detail: entry.detail, optionalPermission: forOrganization ? nil : permission)
        }
        lines += request.scopes.reserved.map { reserved in
            let entry = PermissionDescriptions.describe(reserved)
            return Pages.PermissionLine(scope: reserved.rawValue, title: entry.title, detail: entry.detail)
        }
        let publisher = request.client.isRegistered ? "Registered in this FakeEntra directory" : "Unverified (not registered in this FakeEntra directory)"
        return show(.consent, Pages.consent(form: form, appName: appName, publisher: publisher, signInName: user.userPrincipalName, permissions: lines, forOrganization: forOrganization))
    }

    /// Ends the flow with an error: back to the app for a browser flow, on a page for a device.
    mutating func fail(_ error: IdentityError, cancelled: Bool = false) -> HTTPResponse {
        switch request.reply {
        case .redirect(let uri, let mode, let state):
            return core.fail(error, redirectURI: uri, mode: mode, state: state, cancelled: cancelled)
        case .device(let deviceCode):
            core.end()
            guard cancelled else { return SignInErrorPage(error, appName: appName, headers: core.headers).response(in: exchange.trace) }
            let now = self.now
            service.state.withLock { state in
                if var record = state.deviceCodes[deviceCode], record.status == .pending, record.expiresAt > now {
                    record.status = .declined
                    state.deviceCodes[deviceCode] = record
                }
            }
            return core.respond(Pages.deviceDeclined(appName: appName))
        }
    }
}
