import EntraCrypto
import EntraHTTP
import FoundationGaps
import IdentityPlatform

/// What the user did on a page: each action is accepted only at the step whose page offers it.
extension B2CFlow {
    /// What the pages' links do (`Forgot your password?`, `Sign up now`): the only actions a GET may take.
    static let linkActions: Set<String> = ["forgotPassword", "showSignUp"]

    /// The steps at which each action is accepted: the step of the page offering it, and the steps it
    /// leads to. Reload repeats the GET or post that showed a page, so it arrives one step later (a reloaded
    /// sign-up page is `showSignUp` at `.signUp`); Back brings an earlier page of the flow whose post then
    /// arrives later too. Neither lets an action skip a step it needs: a new password still needs its code.
    static let acceptedSteps: [String: Set<Step>] = [
        "forgotPassword": [.signIn, .signUp], "showSignUp": [.signIn, .signUp],
        "signin": [.signIn, .signUp, .editProfile], "signup": [.signUp], "saveProfile": [.editProfile],
        "sendCode": [.resetEmail, .resetCode, .resetPassword], "verifyCode": [.resetCode, .resetPassword],
        "resetPassword": [.resetPassword],
    ]

    mutating func perform(_ action: String, input: FormParameters) -> HTTPResponse {
        if action == "cancel" { return fail(.b2cCancelled()) }
        guard let step, Self.acceptedSteps[action]?.contains(step) == true else { return lostState() }
        // Only the sign-up-or-sign-in policy has both a sign-in and a sign-up page.
        let bothPages = policy.kind == .susi
        switch action {
        case "forgotPassword":
            // User flows hand a forgotten password back to the app, which then starts the reset policy.
            return fail(.b2cForgotPassword())
        case "showSignUp" where bothPages:
            return showSignUp(B2CPages.Profile(email: input["signInName"]), error: nil)
        case "signin" where step != .signUp || bothPages:
            return signInWithPassword(input)
        case "signup":
            return createAccount(input)
        case "saveProfile":
            return saveProfile(input)
        case "sendCode":
            return sendCode(input)
        case "verifyCode":
            return verifyCode(input)
        case "resetPassword":
            return resetPassword(input)
        default:
            return lostState()
        }
    }

    func lostState() -> HTTPResponse {
        SignInErrorPage(.b2cLostState(), headers: core.headers).response(in: exchange.trace)
    }

    // MARK: - Sign in

    mutating func signInWithPassword(_ input: FormParameters) -> HTTPResponse {
        let login = (input["signInName"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = input["password"] ?? ""
        guard !login.isEmpty else { return showSignIn(login: nil, error: B2CMessages.missingEmail) }
        guard !password.isEmpty else { return showSignIn(login: login, error: B2CMessages.missingPassword) }
        guard let user = directory.user(signInName: login, tenantID: tenantID) else {
            return showSignIn(login: login, error: B2CMessages.accountNotFound)
        }
        switch user.refusal {
        case .locked: return showSignIn(login: login, error: B2CMessages.accountLocked)
        case .disabled: return showSignIn(login: login, error: B2CMessages.accountDisabled)
        case nil: break
        }
        guard user.accepts(password: password) else { return showSignIn(login: login, error: B2CMessages.incorrectPassword) }
        signIn(user)
        if policy.kind == .editProfile { return showEditProfile(user, error: nil) }
        return complete(user)
    }

    // MARK: - Sign up

    /// Creates a local account (sign-in name = email) and signs it in; its first token says `newUser`.
    mutating func createAccount(_ input: FormParameters) -> HTTPResponse {
        let email = (input["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = input["newPassword"] ?? ""
        var profile = Self.profileInput(input)
        profile.email = email
        guard !email.isEmpty else { return showSignUp(profile, error: B2CMessages.missingEmail) }
        guard EmailAddress.isValid(email) else { return showSignUp(profile, error: B2CMessages.invalidEmail) }
        guard password == input["reenterPassword"] ?? "" else { return showSignUp(profile, error: B2CMessages.passwordsDiffer) }
        if let problem = B2CMessages.passwordProblem(password) { return showSignUp(profile, error: problem) }
        // Without a display name, the names given (or the address) stand in, so that scripted sign-ups
        // that fill only the credentials still succeed.
        let named = [profile.givenName, profile.surname].compactMap { $0 }.joined(separator: " ")
        let displayName = profile.displayName ?? (named.isEmpty ? String(email.split(separator: "@")[0]) : named)

        let account = B2CConfiguration.LocalAccount(
            objectId: TokenIdentifiers.guid(from: SecureRandom.base64URLString(byteCount: 32)), email: email, password: password, displayName: displayName,
            givenName: profile.givenName, surname: profile.surname
        )
        let user = B2CConfiguration.directoryUser(account, tenant: exchange.configuration.tenant)
        let tenantID = self.tenantID
        let created = service.directory.withLock { directory -> Bool in
            guard directory.user(signInName: email, tenantID: tenantID) == nil else { return false }
            directory.users.append(user)
            return true
        }
        guard created else { return showSignUp(profile, error: B2CMessages.userExists) }
        directory = service.currentDirectory
        signIn(user)
        pending.isNewUser = true
        return complete(user)
    }

    /// Display, given and family name from a page; blank fields are absent.
    static func profileInput(_ input: FormParameters) -> B2CPages.Profile {
        func field(_ name: String) -> String? {
            let value = (input[name] ?? "").trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        return B2CPages.Profile(email: nil, displayName: field("displayName"), givenName: field("givenName"), surname: field("surname"))
    }

    // MARK: - Edit profile

    mutating func saveProfile(_ input: FormParameters) -> HTTPResponse {
        guard let userID = pending.userID, let user = directory.user(id: userID) else {
            pending.userID = nil
            return showSignIn(login: nil, error: B2CMessages.accountNotFound)
        }
        var profile = Self.profileInput(input)
        profile.email = user.mail
        guard let displayName = profile.displayName else {
            return show(.editProfile, B2CPages.editProfile(form: form, profile: profile, error: B2CMessages.required))
        }
        let updated = service.directory.withLock { directory -> DirectoryUser? in
            guard let index = directory.users.firstIndex(where: { $0.id == userID }) else { return nil }
            directory.users[index].displayName = displayName
            directory.users[index].givenName = profile.givenName
            directory.users[index].surname = profile.surname
            return directory.users[index]
        }
        guard let updated else { return showSignIn(login: nil, error: B2CMessages.accountNotFound) }
        directory = service.currentDirectory
        return complete(updated)
    }

    // MARK: - Password reset

    mutating func sendCode(_ input: FormParameters) -> HTTPResponse {
        let email = (input["email"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !email.isEmpty else { return showResetEmail(email: nil, error: B2CMessages.missingEmail) }
        guard directory.user(signInName: email, tenantID: tenantID) != nil else {
            return showResetEmail(email: email, error: B2CMessages.resetAccountNotFound)
        }
        pending.parameters[Self.resetEmailKey] = email
        mailResetCode(to: email)
        return show(.resetCode, B2CPages.resetCode(form: form, email: email, error: nil))
    }

    /// The code goes to the outbox, where a test reads it as a person reads their inbox; an earlier code
    /// stops working.
    mutating func mailResetCode(to email: String) {
        guard let user = directory.user(signInName: email, tenantID: tenantID) else { return }
        let (code, expiresAt) = service.outbox.mailCode(to: email, purpose: .resetPassword, now: now, digits: 6)
        pending.emailCode = PendingEmailCode(purpose: .resetPassword, userID: user.id, email: email, code: code, codeExpiresAt: expiresAt)
    }

    /// The mailed code, within its lifetime. B2C's one-time password step allows five wrong tries
    /// (`NumRetryAttempts`); then the code is spent and a new one must be sent.
    mutating func verifyCode(_ input: FormParameters) -> HTTPResponse {
        let code = (input["code"] ?? "").trimmingCharacters(in: .whitespaces)
        let email = pending.parameters[Self.resetEmailKey] ?? ""
        guard var mailed = pending.emailCode, mailed.purpose == .resetPassword, !mailed.isSpent else {
            return show(.resetCode, B2CPages.resetCode(form: form, email: email, error: B2CMessages.tooManyCodeAttempts))
        }
        guard Outbox.accepts(code, code: mailed.code, expiresAt: mailed.codeExpiresAt, now: now) else {
            mailed.wrongAttempts += 1
            pending.emailCode = mailed
            let error = mailed.isSpent ? B2CMessages.tooManyCodeAttempts : B2CMessages.wrongCode
            return show(.resetCode, B2CPages.resetCode(form: form, email: email, error: error))
        }
        mailed.verified = true
        pending.emailCode = mailed
        return show(.resetPassword, B2CPages.resetPassword(form: form, error: nil))
    }

    /// Sets the new password; refresh tokens issued before now are revoked (AADB2C90129), as after a
    /// reset in the real service. The user is then signed in and the app gets a code.
    mutating func resetPassword(_ input: FormParameters) -> HTTPResponse {
        guard pending.emailCode?.verified == true else { return lostState() }
        let password = input["newPassword"] ?? ""
        guard password == input["reenterPassword"] ?? "" else {
            return show(.resetPassword, B2CPages.resetPassword(form: form, error: B2CMessages.passwordsDiffer))
        }
        if let problem = B2CMessages.passwordProblem(password) {
            return show(.resetPassword, B2CPages.resetPassword(form: form, error: problem))
        }
        let email = pending.parameters[Self.resetEmailKey] ?? ""
        let tenantID = self.tenantID
        let now = self.now
        let updated = service.directory.withLock { directory -> DirectoryUser? in
            guard let user = directory.user(signInName: email, tenantID: tenantID) else { return nil }
            return directory.changePassword(userID: user.id, to: password, now: now)
        }
        guard let updated else { return showResetEmail(email: email, error: B2CMessages.resetAccountNotFound) }
        pending.emailCode = nil
        directory = service.currentDirectory
        signIn(updated)
        return complete(updated)
    }
}
