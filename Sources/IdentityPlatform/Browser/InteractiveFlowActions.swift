import ExchangeKernel
import EntraCrypto
import EntraHTTP
import FoundationGaps
import Synchronization

/// What the pages post back (`action=` plus the page's own fields), and how the flow ends.
extension InteractiveFlow {
    mutating func handle(_ form: FormParameters) -> HTTPResponse {
        switch Self.action(of: form) {
        case "signin": return submitCredentials(login: form["login"] ?? "", password: form["passwd"] ?? "")
        case "pick": return pickAccount(form["account"] ?? "")
        case "mfa": return submitVerificationCode(form["otc"] ?? "")
        case "accept", Pages.acceptChosenAction:
            guard pending.userID != nil else { return proceed() }
            if Self.action(of: form) == Pages.acceptChosenAction { recordUnticked(form.values(Pages.consentScopeField)) }
            return proceed(consentAccepted: true)
        case "changepassword":
            return changePassword(login: form["login"] ?? "", current: form["currentPassword"] ?? "", new: form["newPassword"] ?? "", confirmation: form["confirmNewPassword"] ?? "")
        case "signup": return showCreateAccount(email: form["login"], error: nil)
        case "create": return createAccount(form)
        case "verifyemail": return verifyEmail(code: form["verificationCode"] ?? "")
        case "emailcode": return submitEmailCode(form["oneTimeCode"] ?? "")
        case "resendcode": return resendEmailCode()
        case "forgotpassword": return showResetPassword(email: form["login"], error: nil)
        case "sendresetcode": return sendResetCode(email: form["email"] ?? "")
        case "setnewpassword": return setNewPassword(form["newPassword"] ?? "", confirmation: form["confirmNewPassword"] ?? "")
        case "back": return backToSignIn()
        case "cancel": return fail(.userCancelled(), cancelled: true)
        case "return": return fail(.adminConsentRequired())
        default: return proceed()
        }
    }

    /// The `action` the pressed button sent; a script (or a browser submitting on Enter without a
    /// button) may leave it out, and then the page's own fields say what was meant.
    static func action(of form: FormParameters) -> String {
        if let action = form["action"], !action.isEmpty { return action.lowercased() }
        if form["account"] != nil { return "pick" }
        if form["newPassword"] != nil { return "changepassword" }
        if form["otc"] != nil { return "mfa" }
        if form["verificationCode"] != nil { return "verifyemail" }
        if form["oneTimeCode"] != nil { return "emailcode" }
        if form["email"] != nil { return "create" }
        if form["login"] != nil { return "signin" }
        return ""
    }

    // MARK: - Consent page

    /// The permissions the consent page offered that are not among the ticked ones are declined.
    mutating func recordUnticked(_ ticked: [String]) {
        guard let userID = pending.userID, let user = directory.user(id: userID) else { return }
        let evaluation = consentEvaluation(for: user)
        let offered = request.prompt == .consent ? evaluation.permissions : evaluation.needingUserConsent
        pending.declinedPermissions = offered.filter { permission in !ticked.contains { $0.caseInsensitiveCompare(permission) == .orderedSame } }
    }

    // MARK: - Sign-in page

    mutating func submitCredentials(login rawLogin: String, password: String) -> HTTPResponse {
        let login = rawLogin.trimmingCharacters(in: .whitespaces)
        guard !login.isEmpty else { return showSignIn(login: nil, error: .missingSignInName()) }
        guard let user = findUser(login) else { return showSignIn(login: login, error: .userNotFound(login, tenant: directoryName(for: login))) }
        guard let tenant = directory.tenant(id: user.tenantID), admits(user, tenant) else { return showSignIn(login: login, error: notInTenant()) }
        if let problem = accountProblem(user) { return showSignIn(login: login, error: problem) }
        if signsInWithCode(user) { return mailEmailCode(to: user, purpose: .signIn) }
        // A name without a password is Microsoft's first step: the same page asks for the password.
        if password.isEmpty { return showSignIn(login: login, error: nil) }
        let signedIn: DirectoryUser
        switch PasswordSubmit(exchange).check(password, of: user, signInName: login, client: app) {
        case .accepted(let checked): signedIn = checked
        case .refused: return showSignIn(login: login, error: .invalidCredentials())
        case .blocked(let title, let message): return blockSignIn(title: title, message: message)
        case .failed: return fail(.customExtensionFailed())
        }
        directory = service.currentDirectory
        if signedIn.passwordExpired { return showPasswordChange(login: login, error: nil) }
        signIn(signedIn, methods: ["pwd"])
        return proceed()
    }

    /// The user named `login`, preferring the tenants this authority admits (one name may exist twice).
    func findUser(_ login: String) -> DirectoryUser? {
        // An external tenant's pages know its own customers only: anyone else is an unknown address there.
        if let tenant = externalTenant {
            return directory.users.first { $0.tenantID == tenant.id && $0.isNamed(by: login) }
        }
        let matches = directory.users.filter { $0.isNamed(by: login) }
        return matches.first { user in directory.tenant(id: user.tenantID).map { admits(user, $0) } ?? false } ?? matches.first
    }

    /// The directory an unknown user was looked for in, as AADSTS50034 names it.
    func directoryName(for login: String) -> String {
        if case .specific(let tenant) = request.selector { return tenant.primaryDomain }
        if let at = login.lastIndex(of: "@") { return String(login[login.index(after: at)...]) }
        return pending.tenantSegment
    }

    // MARK: - Account picker

    mutating func pickAccount(_ choice: String) -> HTTPResponse {
        switch choice.lowercased() {
        case "cancel": return fail(.userCancelled(), cancelled: true)
        case "other", "": return showSignIn(login: nil, error: nil)
        default: break
        }
        if let candidate = sessionCandidates().first(where: { $0.user.id == choice.lowercased() }) {
            return useSessionAccount(candidate.account, user: candidate.user)
        }
        // With --auto-login the picker lists directory users, who sign in without a password.
        if options.autoLogin, let user = autoLoginCandidates().first(where: { $0.id == choice.lowercased() }) {
            return autoSignIn(user)
        }
        return showSignIn(login: nil, error: nil)
    }

    // MARK: - Second factor

    mutating func submitVerificationCode(_ code: String) -> HTTPResponse {
        guard let userID = pending.userID, let user = directory.user(id: userID) else { return proceed() }
        let digits = code.trimmingCharacters(in: .whitespaces)
        guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return show(.mfa, Pages.mfa(form: form, displayName: user.displayName, error: .invalidVerificationCode()), answering: .invalidVerificationCode())
        }
        signIn(user, methods: pending.authenticationMethods.filter { $0 != "mfa" } + ["mfa"])
        return proceed()
    }

    // MARK: - Expired password

    mutating func showPasswordChange(login: String, error: String?) -> HTTPResponse {
        show(.passwordChange, Pages.passwordChange(form: form, login: login, notice: .passwordExpired(), error: error))
    }

    mutating func changePassword(login: String, current: String, new: String, confirmation: String) -> HTTPResponse {
        // Only the page that asked for it may change a password, and only one that exists: a customer who
        // signs in with codes has none, and no empty "current password" may stand in for it.
        guard pending.step == Step.passwordChange.rawValue, let user = findUser(login), !user.password.isEmpty,
              let tenant = directory.tenant(id: user.tenantID), admits(user, tenant),
              accountProblem(user) == nil else { return showSignIn(login: login, error: nil) }
        guard user.accepts(password: current) else { return showPasswordChange(login: login, error: "Your current password is incorrect.") }
        if tenant.kind == .external {
            // External ID holds every new password to its native API's rules (8 characters among them).
            do throws(NativeAuthError) { try PasswordPolicy.check(new, tenant: tenant, names: [user.givenName, user.surname]) } catch {
                return showPasswordChange(login: login, error: error.error.message)
            }
        } else if new.count < 8 {
            return showPasswordChange(login: login, error: "Your new password must have at least 8 characters.")
        }
        guard new == confirmation else { return showPasswordChange(login: login, error: "The passwords don't match.") }
        guard new != current else { return showPasswordChange(login: login, error: "You can't reuse your current password.") }
        let now = self.now
        _ = service.directory.withLock { directory in directory.changePassword(userID: user.id, to: new, now: now) }
        directory = service.currentDirectory
        signIn(user, methods: ["pwd"])
        return proceed()
    }

    // MARK: - prompt=create

    static let accountExists = "An account already exists with this email address. Sign in instead."

    /// The tenant a new account joins: the authority's own, or for common/consumers the consumers tenant
    /// (sign-up through Microsoft accounts); `organizations` takes the tenant owning the email's domain.
    func signUpTenant(for email: String?) -> Tenant? {
        switch request.selector {
        case .specific(let tenant): return tenant
        case .consumers, .common:
            if let email, let domain = email.split(separator: "@").last.map(String.init), let owner = directory.tenant(matching: domain),
               owner.kind == .organization, case .common = request.selector { return owner }
            return directory.tenant(id: Tenant.consumersTenantID)
        case .organizations:
            guard let email, let domain = email.split(separator: "@").last.map(String.init) else { return nil }
            return directory.tenant(matching: domain).flatMap { $0.kind == .organization ? $0 : nil }
        }
    }

    var canCreateAccounts: Bool {
        if case .specific(let tenant) = request.selector { return tenant.kind != .b2c }
        return true
    }

    /// The sign-up page: an external tenant's asks what its user flow collects, any other the name.
    mutating func showCreateAccount(email: String?, values: [String: String] = [:], error: String?) -> HTTPResponse {
        let tenant = signUpTenant(for: email)
        var values = values
        // The page's first showing: External ID calls the extensions listening for the attribute page's start.
        if let tenant, tenant.kind == .external, error == nil, values.isEmpty {
            switch collectAttributes(.attributeCollectionStart, tenant: tenant, email: email ?? "", values: [:]) {
            case .proceed(let prefilled): values = prefilled
            case .refused: break
            case .blocked(let message): return blockSignUp(message)
            case .failed: return fail(.customExtensionFailed())
            }
        }
        let userFlow = tenant.flatMap { $0.kind == .external ? $0.externalUserFlow : nil }
        let fields = userFlow?.attributes.map { Pages.AttributeField($0, value: values[$0.name]) }
            ?? [Pages.AttributeField(SignUpAttribute(name: "displayName", label: "Name"), value: values["displayName"])]
        return show(.createAccount, Pages.createAccount(form: form, appName: appName, tenantName: tenant?.displayName ?? "your organization", email: email,
                                                        fields: fields, asksPassword: userFlow?.allowsPassword(appCanAsk: true) ?? true, error: error))
    }

    mutating func createAccount(_ form: FormParameters) -> HTTPResponse {
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let name = (form["displayName"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = form["passwd"] ?? ""
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        // The native API's rule for an address, and the longest it keeps.
        guard EmailAddress.isValid(email), email.utf8.count <= NativeAuthRequest.longestValue else {
            return showCreateAccount(email: email, values: ["displayName": name], error: "Enter a valid email address.")
        }
        guard let tenant = signUpTenant(for: email) else {
            return showCreateAccount(email: email, values: ["displayName": name], error: "No organization in this directory owns the domain '\(parts[1])'.")
        }
        if tenant.kind == .external { return startCustomerSignUp(email: email, password: password, form: form, tenant: tenant) }
        guard password.utf16.count >= 8 else {
            return showCreateAccount(email: email, values: ["displayName": name], error: "Passwords must have at least 8 characters.")
        }
        // Entra's limits (a password of 256 characters, a display name of 256): a new account costs the directory
        // a bounded size, whatever a form posts.
        guard password.utf16.count <= 256 else {
            return showCreateAccount(email: email, values: ["displayName": name], error: "Passwords can have at most 256 characters.")
        }
        guard name.utf16.count <= 256 else {
            return showCreateAccount(email: email, values: [:], error: "Enter a name of at most 256 characters.")
        }
        let localPart = String(parts[0])
        let user = DirectoryUser(
            id: SecureRandom.guid(), tenantID: tenant.id, userPrincipalName: email,
            displayName: name.isEmpty ? localPart : name, mail: email, password: password
        )
        let created: Bool = service.directory.withLock { directory in
            guard !directory.users.contains(where: { $0.tenantID == tenant.id && $0.answers(to: email) }) else { return false }
            directory.users.append(user)
            return true
        }
        guard created else {
            return showCreateAccount(email: email, values: ["displayName": name], error: Self.accountExists)
        }
        directory = service.currentDirectory
        pending.isNewUser = true
        signIn(user, methods: ["pwd"])
        return proceed()
    }

    // MARK: - The end of a successful flow

    /// Issues the authorization code (or approves the device code) for `user`.
    mutating func complete(user: DirectoryUser) -> HTTPResponse {
        let evaluation = directory.evaluateConsent(request.scopes, client: app, user: user)
        let account = session?.account(userID: user.id)
        var grant = GrantContext(
            clientID: app.clientID, userID: user.id, tenantID: user.tenantID,
            scopes: request.scopes.responseScopes(granted: evaluation.permissions.filter { !pending.declinedPermissions.contains($0) }),
            resourceAppID: request.scopes.resource?.appID, endpointVersion: request.version,
            authTime: account?.authTime ?? now, sessionID: session?.publicID,
            authenticationMethods: pending.authenticationMethods.isEmpty ? ["pwd"] : pending.authenticationMethods,
            claimsRequest: request.claimsRequest, clientCapabilities: request.clientCapabilities,
            isNewUser: pending.isNewUser
        )
        grant.declinedPermissions = pending.declinedPermissions
        switch request.reply {
        case .redirect(let uri, let mode, _):
            let code = SecureRandom.base64URLString(byteCount: 48)
            core.issueCode(code, grant: grant, redirectURI: uri, codeChallenge: request.codeChallenge,
                           codeChallengeMethod: request.codeChallengeMethod, nonce: request.nonce)
            let parameters = AuthorizationResponder.successParameters(code: code, request: request, user: user, sessionState: session?.publicID,
                                                                      stateOverride: exchange.directives.redirectState)
            return core.deliver(parameters, redirectURI: uri, mode: mode)
        case .device(let deviceCode):
            core.end()
            let now = self.now
            let approved: Bool = service.state.withLock { state in
                guard var record = state.deviceCodes[deviceCode], record.status == .pending, record.expiresAt > now else { return false }
                record.status = .approved(grant)
                state.deviceCodes[deviceCode] = record
                return true
            }
            guard approved else {
                return core.respond(Pages.deviceCodeEntry(action: DeviceLogin.path, code: nil, message: DeviceLogin.expiredMessage))
            }
            return core.respond(Pages.deviceSignedIn(appName: appName))
        }
    }
}
