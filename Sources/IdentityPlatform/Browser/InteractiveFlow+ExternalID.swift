import ExchangeKernel
import EntraHTTP
import FoundationGaps

/// The pages only External ID's tenants show: sign-up with the address proved by a mailed code before the
/// account exists, sign-in with a one-time passcode, and self-service password reset. Every code goes to the
/// outbox, where a test reads it as a person reads their mail.
extension InteractiveFlow {
    /// The external tenant this authority names, if it is one.
    var externalTenant: Tenant? {
        if case .specific(let tenant) = request.selector, tenant.kind == .external { return tenant }
        return nil
    }

    // MARK: - Sign-up

    /// The user flow's attributes checked by the native API's rules; then the code is mailed. The account
    /// is made only once the code comes back (`verifyEmail`).
    mutating func startCustomerSignUp(email: String, password: String, form: FormParameters, tenant: Tenant) -> HTTPResponse {
        let userFlow = tenant.externalUserFlow
        // What the browser sent for the flow's attributes, as the native API keeps them (`collected`): an
        // unticked box sends nothing.
        var values: [String: String] = [:]
        for attribute in userFlow.attributes { if let value = form[attribute.name], !value.isEmpty { values[attribute.name] = value } }
        if let invalid = userFlow.invalidAttributes(in: values).first {
            return showCreateAccount(email: email, values: values, error: "Please enter a valid \(invalid.displayLabel).")
        }
        if let missing = userFlow.missingAttributes(in: values).first {
            return showCreateAccount(email: email, values: values, error: "\(missing.displayLabel) is required.")
        }
        let keepsPassword = userFlow.allowsPassword(appCanAsk: true)
        if keepsPassword {
            do throws(NativeAuthError) { try PasswordPolicy.check(password, tenant: tenant, names: [values["givenName"], values["surname"]]) } catch {
                return showCreateAccount(email: email, values: values, error: error.error.message)
            }
        }
        guard directory.user(signInName: email, tenantID: tenant.id) == nil else {
            return showCreateAccount(email: email, values: values, error: Self.accountExists)
        }
        switch collectAttributes(.attributeCollectionSubmit, tenant: tenant, email: email, values: values) {
        case .proceed(let modified): values = modified
        case .refused(let message): return showCreateAccount(email: email, values: values, error: message)
        case .blocked(let message): return blockSignUp(message)
        case .failed: return fail(.customExtensionFailed())
        }
        let (code, expiresAt) = service.outbox.mailCode(to: email, purpose: .signUp, now: now)
        pending.signUp = PendingSignUp(email: email, attributes: values, password: keepsPassword ? password : "",
                                       code: code, codeExpiresAt: expiresAt)
        return showVerifyEmail(error: nil)
    }

    /// The custom authentication extensions of `event` for this app's sign-up.
    func collectAttributes(_ event: CustomAuthenticationExtension.Event, tenant: Tenant, email: String, values: [String: String]) -> AttributeCollection.Outcome {
        guard !tenant.extensions(at: event).isEmpty else { return .proceed(values) }
        let collection = AttributeCollection(service: service, origin: exchange.origin.url, now: now, receipt: exchange.receipt,
                                             clientAddress: exchange.connection.remoteAddress)
        return collection.run(event, tenant: tenant, client: app, resource: request.scopes.resource, email: email, values: values)
    }

    /// An extension's showBlockPage: the sign-up ends on its message.
    mutating func blockSignUp(_ message: String) -> HTTPResponse {
        core.end()
        exchange.receipt.flow(pending.id, step: "sign_up_blocked")
        return core.respond(Pages.blocked(heading: "Sign up", title: nil, message: message))
    }

    /// A password-migration extension's Block: the sign-in ends on its title and message.
    mutating func blockSignIn(title: String?, message: String) -> HTTPResponse {
        core.end()
        exchange.receipt.flow(pending.id, step: "sign_in_blocked")
        return core.respond(Pages.blocked(heading: "Sign in", title: title, message: message))
    }

    mutating func showVerifyEmail(error: IdentityError?) -> HTTPResponse {
        show(.verifyEmail, Pages.verifyEmail(form: form, email: pending.signUp?.email ?? "", error: error), answering: error)
    }

    mutating func verifyEmail(code rawCode: String) -> HTTPResponse {
        guard pending.step == Step.verifyEmail.rawValue, let signUp = pending.signUp, let tenant = externalTenant else { return proceed() }
        let code = rawCode.trimmingCharacters(in: .whitespaces)
        guard Outbox.accepts(code, code: signUp.code, expiresAt: signUp.codeExpiresAt, now: now) else { return showVerifyEmail(error: .invalidOneTimeCode()) }
        let created = service.directory.withLock { directory in
            directory.addCustomer(email: signUp.email, attributes: signUp.attributes, password: signUp.password, tenant: tenant)
        }
        pending.signUp = nil
        guard let user = created else {
            return showCreateAccount(email: signUp.email, values: signUp.attributes, error: Self.accountExists)
        }
        directory = service.currentDirectory
        pending.isNewUser = true
        signIn(user, methods: [signUp.password.isEmpty ? "otp" : "pwd"])
        return proceed()
    }

    // MARK: - Sign-in with a one-time passcode

    /// Whether `user` signs in with a mailed code here: an external tenant's customer its user flow codes.
    func signsInWithCode(_ user: DirectoryUser) -> Bool {
        guard let tenant = externalTenant, user.tenantID == tenant.id else { return false }
        return tenant.externalUserFlow.signsInWithCode(user)
    }

    /// Mails a code for `purpose` to the customer's address and shows where to enter it. The same form
    /// posted again (Reload) shows the page again with the code already mailed; `resend` mails a new one.
    mutating func mailEmailCode(to user: DirectoryUser, purpose: PendingEmailCode.Purpose, resend: Bool = false) -> HTTPResponse {
        if !resend, pending.step == Step.emailCode.rawValue, let current = pending.emailCode, current.userID == user.id,
           current.purpose == purpose, !current.verified, current.codeExpiresAt > now {
            return showEmailCode(error: nil)
        }
        let email = user.mail ?? user.userPrincipalName
        let (code, expiresAt) = service.outbox.mailCode(to: email, purpose: purpose == .signIn ? .signIn : .resetPassword, now: now)
        pending.emailCode = PendingEmailCode(purpose: purpose, userID: user.id, email: email, code: code, codeExpiresAt: expiresAt)
        return showEmailCode(error: nil)
    }

    mutating func showEmailCode(error: IdentityError?) -> HTTPResponse {
        guard let pendingCode = pending.emailCode else { return showSignIn(login: nil, error: nil) }
        return show(.emailCode, Pages.emailCode(form: form, email: pendingCode.email, forReset: pendingCode.purpose == .resetPassword, error: error), answering: error)
    }

    /// Asking again mails a new code; the earlier one stops working.
    mutating func resendEmailCode() -> HTTPResponse {
        guard pending.step == Step.emailCode.rawValue, let pendingCode = pending.emailCode, let user = directory.user(id: pendingCode.userID) else {
            return showSignIn(login: nil, error: nil)
        }
        return mailEmailCode(to: user, purpose: pendingCode.purpose, resend: true)
    }

    mutating func submitEmailCode(_ rawCode: String) -> HTTPResponse {
        // Reload on the page after the code posts it again: that page is shown again.
        if pending.step == Step.newPassword.rawValue, pending.emailCode?.verified == true { return showNewPassword(error: nil) }
        guard pending.step == Step.emailCode.rawValue, var pendingCode = pending.emailCode, let user = directory.user(id: pendingCode.userID) else {
            return pending.userID != nil ? proceed() : showSignIn(login: nil, error: nil)
        }
        let code = rawCode.trimmingCharacters(in: .whitespaces)
        guard Outbox.accepts(code, code: pendingCode.code, expiresAt: pendingCode.codeExpiresAt, now: now) else {
            return showEmailCode(error: .invalidOneTimeCode())
        }
        if let problem = accountProblem(user) { return showSignIn(login: pendingCode.email, error: problem) }
        switch pendingCode.purpose {
        case .signIn:
            pending.emailCode = nil
            signIn(user, methods: ["otp"])
            return proceed()
        case .resetPassword:
            // The new password is due within the native API's ten minutes after the code.
            pendingCode.verified = true
            pendingCode.code = ""
            pendingCode.codeExpiresAt = now.addingTimeInterval(NativeAuthFlows.tokenLifetime)
            pending.emailCode = pendingCode
            return showNewPassword(error: nil)
        }
    }

    // MARK: - Self-service password reset

    mutating func showResetPassword(email: String?, error: IdentityError?) -> HTTPResponse {
        guard externalTenant != nil else { return showSignIn(login: email, error: nil) }
        pending.emailCode = nil
        pending.signUp = nil
        return show(.resetPassword, Pages.resetPassword(form: form, email: email, error: error), answering: error)
    }

    /// The customer must exist, may sign in, and have a password to reset (a passcode customer has none).
    mutating func sendResetCode(email rawEmail: String) -> HTTPResponse {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        let onItsPage = pending.step == Step.resetPassword.rawValue || (pending.step == Step.emailCode.rawValue && pending.emailCode?.purpose == .resetPassword)
        guard let tenant = externalTenant, onItsPage else { return showSignIn(login: email, error: nil) }
        guard !email.isEmpty else { return showResetPassword(email: nil, error: .missingSignInName()) }
        guard let user = findUser(email) else { return showResetPassword(email: email, error: .userNotFound(email, tenant: tenant.primaryDomain)) }
        if let problem = accountProblem(user) { return showResetPassword(email: email, error: problem) }
        guard !signsInWithCode(user) else { return showResetPassword(email: email, error: .nativeCredentialRecoveryUnsupported()) }
        return mailEmailCode(to: user, purpose: .resetPassword)
    }

    mutating func showNewPassword(error: String?) -> HTTPResponse {
        show(.newPassword, Pages.newPassword(form: form, email: pending.emailCode?.email ?? "", error: error))
    }

    /// Only after the mailed code was right, within ten minutes; the change ends the customer's earlier
    /// refresh tokens.
    mutating func setNewPassword(_ password: String, confirmation: String) -> HTTPResponse {
        guard let tenant = externalTenant, pending.step == Step.newPassword.rawValue, let pendingCode = pending.emailCode,
              pendingCode.purpose == .resetPassword, pendingCode.verified, pendingCode.codeExpiresAt > now,
              let user = directory.user(id: pendingCode.userID) else { return showSignIn(login: pending.emailCode?.email, error: nil) }
        guard password == confirmation else { return showNewPassword(error: "The passwords don't match.") }
        do throws(NativeAuthError) {
            try PasswordPolicy.reset(userID: user.id, to: password, in: service, tenant: tenant, now: now)
        } catch {
            return showNewPassword(error: error.error.message)
        }
        directory = service.currentDirectory
        pending.emailCode = nil
        signIn(user, methods: ["pwd"])
        return proceed()
    }

    /// Back from a code or reset page: the sign-in page again, the address kept.
    mutating func backToSignIn() -> HTTPResponse {
        showSignIn(login: pending.emailCode?.email ?? pending.signUp?.email, error: nil)
    }
}
