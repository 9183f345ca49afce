import EntraHTTP
import ExchangeKernel
import IdentityPlatform

/// The pages of B2C user flows: the platform's page frame and forms (`PageForm`) with B2C's texts and
/// element ids, which follow the service's own pages (`localAccountForm`, `signInName`, `next`,
/// `forgotPassword`, `createAccount`, `attributeVerification`, `continue`, `cancel`…) so that UI tests
/// written against the real service find them. No script is needed: every action is a plain form post or link.
enum B2CPages {
    /// Every B2C page backs out through `cancel` (AADB2C90091 on the redirect URI).
    static let cancel = PageButton.back(id: "cancel", label: "Cancel")

    static func signIn(form: PageForm, tenantName: String, login: String?, error: String?, offerSignUp: Bool) -> HTML {
        let signUp: HTML = offerSignUp
            ? "<div class=\"create\"><p>Don't have an account? <a id=\"createAccount\" href=\"\(form.link("showSignUp"))\">Sign up now</a></p></div>"
            : .empty
        return PageLayout.document(title: "Sign up or sign in", heading: "Sign in", content: """
            <p class="muted" id="tenantName">\(tenantName)</p>
            \(form.render(id: "localAccountForm", """
                <div class="intro"><h2>Sign in with your email address</h2></div>
                \(HTML.alert(id: "errorMessage", message: error))
                <label for="email">Email Address</label>
                <input type="email" id="email" name="signInName" value="\(login)" placeholder="Email Address" autocomplete="username" required autofocus>
                <label for="password">Password</label>
                <input type="password" id="password" name="password" placeholder="Password" autocomplete="current-password" required>
                <p><a id="forgotPassword" href="\(form.link("forgotPassword"))">Forgot your password?</a></p>
                """, buttons: [.primary(id: "next", action: "signin", label: "Sign in"), cancel], after: signUp))
            """)
    }

    struct Profile {
        var email: String?
        var displayName: String?
        var givenName: String?
        var surname: String?
    }

    /// The self-asserted pages (sign-up, profile, password reset) all post `attributeVerification`.
    private static func selfAsserted(title: String, heading: String, form: PageForm, _ fields: HTML, next: PageButton, others: [PageButton] = []) -> HTML {
        PageLayout.document(title: title, heading: heading, content: form.render(id: "attributeVerification", fields, buttons: [next] + others + [cancel]))
    }

    static func signUp(form: PageForm, profile: Profile, error: String?) -> HTML {
        selfAsserted(title: "Sign up", heading: "Sign up", form: form, """
            \(HTML.alert(id: "errorMessage", message: error))
            <label for="email">Email Address</label>
            <input type="email" id="email" name="email" value="\(profile.email)" autocomplete="username" required autofocus>
            \(newPasswordFields(autofocus: false))
            \(nameFields(profile))
            """, next: .primary(id: "continue", action: "signup", label: "Create"))
    }

    static func editProfile(form: PageForm, profile: Profile, error: String?) -> HTML {
        selfAsserted(title: "Edit profile", heading: "Edit profile", form: form, """
            \(HTML.alert(id: "errorMessage", message: error))
            <p id="signInName" class="muted">\(profile.email)</p>
            \(nameFields(profile))
            """, next: .primary(id: "continue", action: "saveProfile", label: "Continue"))
    }

    private static func nameFields(_ profile: Profile) -> HTML {
        """
        <label for="displayName">Display Name</label>
        <input type="text" id="displayName" name="displayName" value="\(profile.displayName)" autocomplete="name" required>
        <label for="givenName">Given Name</label>
        <input type="text" id="givenName" name="givenName" value="\(profile.givenName)" autocomplete="given-name">
        <label for="surname">Surname</label>
        <input type="text" id="surname" name="surname" value="\(profile.surname)" autocomplete="family-name">
        """
    }

    private static func newPasswordFields(autofocus: Bool) -> HTML {
        """
        <label for="newPassword">New Password</label>
        <input type="password" id="newPassword" name="newPassword" autocomplete="new-password" required\(HTML(raw: autofocus ? " autofocus" : ""))>
        <label for="reenterPassword">Confirm New Password</label>
        <input type="password" id="reenterPassword" name="reenterPassword" autocomplete="new-password" required>
        """
    }

    /// Password reset, step 1: the account's email address.
    static func resetEmail(form: PageForm, email: String?, error: String?) -> HTML {
        selfAsserted(title: "Reset password", heading: "Reset your password", form: form, """
            <p>Verification is necessary. Please click Send button.</p>
            \(HTML.alert(id: "errorMessage", message: error))
            <label for="email">Email Address</label>
            <input type="email" id="email" name="email" value="\(email)" autocomplete="username" required autofocus>
            """, next: .primary(id: "email_ver_but_send", action: "sendCode", label: "Send verification code"))
    }

    /// Step 2: the code mailed to the address (FakeEntra's outbox), or a new one.
    static func resetCode(form: PageForm, email: String, error: String?) -> HTML {
        selfAsserted(title: "Reset password", heading: "Verify your email", form: form, """
            <p id="email_info">Verification code has been sent to your inbox. Please copy it to the input box below.</p>
            <p class="muted">FakeEntra mails the code to its outbox: the console's Outbox, or GET /_fakeentra/outbox?to=ADDRESS.</p>
            <p id="email" class="muted">\(email)</p>
            <input type="hidden" name="email" value="\(email)">
            \(HTML.alert(id: "errorMessage", message: error))
            <label for="email_ver_input">Verification code</label>
            <input type="text" id="email_ver_input" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus>
            """, next: .primary(id: "email_ver_but_verify", action: "verifyCode", label: "Verify code"),
            others: [.back(id: "email_ver_but_resend", label: "Send new code", action: "sendCode")])
    }

    /// Step 3: the new password.
    static func resetPassword(form: PageForm, error: String?) -> HTML {
        selfAsserted(title: "Reset password", heading: "Choose a new password", form: form, """
            \(HTML.alert(id: "errorMessage", message: error))
            \(newPasswordFields(autofocus: true))
            """, next: .primary(id: "continue", action: "resetPassword", label: "Continue"))
    }
}

/// What B2C's pages say when input is refused (the service's own wording).
enum B2CMessages {
    static let accountNotFound = "We can't seem to find your account."
    static let incorrectPassword = "Your password is incorrect."
    static let accountLocked = "Your account is temporarily locked to prevent unauthorized use. Try again later."
    static let accountDisabled = "Your account has been locked. Contact your support person to unlock it, then try again."
    static let missingEmail = "Please enter your Email Address"
    static let invalidEmail = "Please enter a valid email address."
    static let missingPassword = "Please enter your password"
    static let userExists = "A user with the specified ID already exists. Please choose a different one."
    static let passwordsDiffer = "The password entry fields do not match. Please enter the same password in both fields and try again."
    static let passwordLength = "The password must be between 8 and 64 characters."
    static let passwordComplexity = "The password must have at least 3 of the following: a lowercase letter, an uppercase letter, a digit, a symbol."
    static let required = "This information is required."
    static let resetAccountNotFound = "An account could not be found for the provided user ID."
    static let wrongCode = "The verification code you have entered does not match our records. Please try again, or request a new code."
    static let tooManyCodeAttempts = "You've made too many incorrect attempts. Please try again later."

    /// B2C's default password policy (strong): 8 to 64 characters, three of four character classes.
    static func passwordProblem(_ password: String) -> String? {
        guard (8...64).contains(password.utf16.count) else { return passwordLength }
        return PasswordPolicy.characterKinds(in: password) >= 3 ? nil : passwordComplexity
    }
}
