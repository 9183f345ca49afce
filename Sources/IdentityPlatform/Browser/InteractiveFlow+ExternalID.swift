import ExchangeKernel
import EntraHTTP
import Foundation

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

    /// The user flow's attributes checked as its native API checks them; then the code is mailed.
    mutating func createCustomer(email: String, password: String, form: FormParameters, tenant: Tenant) -> HTTPResponse {
        let userFlow = tenant.signUpFlow ?? .standard
        var values: [String: String] = [:]
        for attribute in userFlow.attributes {
            let value = (form[attribute.name] ?? "").trimmingCharacters(in: .whitespaces)
            // An unticked box sends nothing: a boolean attribute is then false.
            values[attribute.name] = attribute.type == .boolean ? (value.isEmpty ? "false" : value) : value
        }
        if let invalid = userFlow.invalidAttributes(in: values).first, let attribute = userFlow.attributes.first(where: { $0.name == invalid }) {
            return showCreateAccount(email: email, values: values, error: "Please enter a valid \(attribute.displayLabel).")
        }
        if let missing = userFlow.missingAttributes(in: values).first {
            return showCreateAccount(email: email, values: values, error: "\(missing.displayLabel) is required.")
        }
        let keepsPassword = userFlow.allowsPassword(appCanAsk: true)
        if keepsPassword {
            // The pages hold a new password to the same rules as the native API.
            do throws(NativeAuthError) { try PasswordPolicy.check(password) } catch {
                return showCreateAccount(email: email, values: values, error: error.error.message)
            }
        }
        guard directory.user(signInName: email, tenantID: tenant.id) == nil else {
            return showCreateAccount(email: email, values: values, error: Self.accountExists)
        }
        var signUp = PendingSignUp(email: email, attributes: userFlow.collected(from: values), password: keepsPassword ? password : "",
                                   code: "", codeExpiresAt: now)
        (signUp.code, signUp.codeExpiresAt) = service.outbox.mailCode(to: email, purpose: .signUp, now: now)
        pending.signUp = signUp
        return showVerifyEmail(error: nil)
    }

    mutating func showVerifyEmail(error: IdentityError?) -> HTTPResponse {
        show(.verifyEmail, Pages.verifyEmail(form: form, email: pending.signUp?.email ?? "", error: error))
    }

    mutating func verifyEmail(code rawCode: String) -> HTTPResponse {
        guard let signUp = pending.signUp, let tenant = externalTenant else { return proceed() }
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

    /// Whether `user` signs in with a mailed code: the user flow says so, or the customer has no password.
    func signsInWithCode(_ user: DirectoryUser) -> Bool {
        guard let tenant = externalTenant, user.tenantID == tenant.id else { return false }
        return tenant.signUpFlow?.emailMethod == .emailOneTimePasscode || user.password.isEmpty
    }

    /// Mails a code for `purpose` to the customer's address and shows where to enter it.
    mutating func mailEmailCode(to user: DirectoryUser, purpose: PendingEmailCode.Purpose) -> HTTPResponse {
        let email = user.mail ?? user.userPrincipalName
        let (code, expiresAt) = service.outbox.mailCode(to: email, purpose: purpose == .signIn ? .signIn : .resetPassword, now: now)
        pending.emailCode = PendingEmailCode(purpose: purpose, userID: user.id, email: email, code: code, codeExpiresAt: expiresAt)
        return showEmailCode(error: nil)
    }

    mutating func showEmailCode(error: IdentityError?) -> HTTPResponse {
        if let error { exchange.receipt.answered(error: error.prefixedCode) }
        guard let pendingCode = pending.emailCode else { return showSignIn(login: nil, error: nil) }
        return show(.emailCode, Pages.emailCode(form: form, email: pendingCode.email, forReset: pendingCode.purpose == .resetPassword, error: error))
    }

    /// Asking again mails a new code; the earlier one stops working.
    mutating func resendEmailCode() -> HTTPResponse {
        guard pending.step == Step.emailCode.rawValue, let pendingCode = pending.emailCode, let user = directory.user(id: pendingCode.userID) else {
            return showSignIn(login: nil, error: nil)
        }
        return mailEmailCode(to: user, purpose: pendingCode.purpose)
    }

    mutating func submitEmailCode(_ rawCode: String) -> HTTPResponse {
        // Reload on the new-password page posts the code again: the page it showed is shown again.
        if pending.step == Step.newPassword.rawValue, pending.emailCode?.verified == true { return showNewPassword(error: nil) }
        guard pending.step == Step.emailCode.rawValue, var pendingCode = pending.emailCode, let user = directory.user(id: pendingCode.userID) else {
            return showSignIn(login: nil, error: nil)
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
            pendingCode.verified = true
            pendingCode.code = ""
            pending.emailCode = pendingCode
            return showNewPassword(error: nil)
        }
    }

    // MARK: - Self-service password reset

    mutating func showResetPassword(email: String?, error: IdentityError?) -> HTTPResponse {
        guard externalTenant != nil else { return showSignIn(login: email, error: nil) }
        if let error { exchange.receipt.answered(error: error.prefixedCode) }
        pending.emailCode = nil
        return show(.resetPassword, Pages.resetPassword(form: form, email: email, error: error))
    }

    /// The customer must exist and have a password to reset (a one-time-passcode customer has none).
    mutating func sendResetCode(email rawEmail: String) -> HTTPResponse {
        let email = rawEmail.trimmingCharacters(in: .whitespaces)
        guard let tenant = externalTenant, pending.step == Step.resetPassword.rawValue else { return showSignIn(login: email, error: nil) }
        guard !email.isEmpty else { return showResetPassword(email: nil, error: .missingSignInName()) }
        guard let user = findUser(email) else { return showResetPassword(email: email, error: .userNotFound(email, tenant: tenant.primaryDomain)) }
        if let problem = accountProblem(user) { return showResetPassword(email: email, error: problem) }
        guard !signsInWithCode(user) else { return showResetPassword(email: email, error: .nativeCredentialRecoveryUnsupported()) }
        return mailEmailCode(to: user, purpose: .resetPassword)
    }

    mutating func showNewPassword(error: String?) -> HTTPResponse {
        show(.newPassword, Pages.newPassword(form: form, email: pending.emailCode?.email ?? "", error: error))
    }

    /// Only after the mailed code was right; the change ends the customer's earlier refresh tokens.
    mutating func setNewPassword(_ password: String, confirmation: String) -> HTTPResponse {
        guard pending.step == Step.newPassword.rawValue, let pendingCode = pending.emailCode, pendingCode.purpose == .resetPassword, pendingCode.verified,
              let user = directory.user(id: pendingCode.userID) else { return showSignIn(login: nil, error: nil) }
        guard password == confirmation else { return showNewPassword(error: "The passwords don't match.") }
        do throws(NativeAuthError) {
            guard try PasswordPolicy.reset(userID: user.id, to: password, in: service, now: now) else { return showSignIn(login: nil, error: nil) }
        } catch {
            return showNewPassword(error: error.error.message)
        }
        directory = service.currentDirectory
        pending.emailCode = nil
        signIn(user, methods: ["pwd"])
        return proceed()
    }
}
