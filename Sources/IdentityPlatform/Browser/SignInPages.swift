package import ExchangeKernel
/// Where a page's form posts back to, and the id of the server-side flow it continues. Every flow's
/// pages (Entra's and B2C's) are built on it: the pages differ only in their texts, fields and element ids.
package struct PageForm: Sendable {
    package var action: String
    package var flowID: String

    package init(action: String, flowID: String) {
        self.action = action
        self.flowID = flowID
    }

    package var hiddenFields: HTML { HTML.hidden(IdentityService.flowFieldName, flowID) }

    /// A link that performs `action` on this flow with a GET (B2C's `Forgot your password?`, `Sign up now`).
    package func link(_ action: String) -> String {
        AuthorizationResponder.redirectURL(self.action, parameters: [(IdentityService.flowFieldName, flowID), ("action", action)], mode: .query)
    }

    /// The page's `<form>`: the flow's `ctx`, the page's own fields, its buttons (the primary one first, so
    /// that Enter submits it) and what follows them. `validates`: leave the browser's own checks on.
    package func render(id: String, name: String? = nil, validates: Bool = false, _ fields: HTML, buttons: [PageButton], after: HTML = .empty) -> HTML {
        let nameAttribute = HTML(raw: name.map { " name=\"\(HTML.escape($0))\"" } ?? "")
        return """
            <form id="\(id)"\(nameAttribute) method="post" action="\(action)"\(HTML(raw: validates ? "" : " novalidate"))>
            \(hiddenFields)
            \(fields)
            <div class="actions">
            \(buttons.map(\.markup))
            </div>
            \(after)
            </form>
            """
    }
}

/// A submit button of a page: `name="action"` says what it does.
package struct PageButton: Sendable {
    package var id: String
    package var action: String
    package var label: String
    package var isPrimary = false
    /// Backing out needs no valid input (`formnovalidate`).
    package var skipsValidation = false

    package static func primary(id: String, action: String, label: String) -> PageButton {
        PageButton(id: id, action: action, label: label, isPrimary: true)
    }

    package static func back(id: String, label: String, action: String = "cancel", skipsValidation: Bool = true) -> PageButton {
        PageButton(id: id, action: action, label: label, skipsValidation: skipsValidation)
    }

    var markup: HTML {
        "<button type=\"submit\" name=\"action\" value=\"\(action)\" id=\"\(id)\"\(HTML(raw: isPrimary ? " class=\"primary\"" : ""))\(HTML(raw: skipsValidation ? " formnovalidate" : ""))>\(label)</button>"
    }
}

/// The pages of signing in. Element ids and field names follow Microsoft's own pages (`i0116`, `i0118`,
/// `idSIButton9`, `idBtn_Back`, `otc`…) so that UI tests written against the real service find them.
package enum Pages {
    /// Which element shows an error: the user-name field's or the password field's, as on Microsoft's page.
    private static func errorID(for error: IdentityError) -> String {
        [50126, 50053, 50055].contains(error.code) ? "passwordError" : "usernameError"
    }

    /// What differs between Entra's sign-in page and an external tenant's.
    struct SignInVariant {
        var nameLabel = "Email, phone, or Skype"
        var asksPassword = true
        var offersPasswordReset = false
        var offersSignUp = true

        /// External ID's page: customers sign in with their email; a one-time-passcode user flow asks no password.
        static func external(_ userFlow: ExternalUserFlow) -> SignInVariant {
            let codesOnly = userFlow.emailMethod == .emailOneTimePasscode
            return SignInVariant(nameLabel: "Email address", asksPassword: !codesOnly, offersPasswordReset: !codesOnly)
        }
    }

    static func signIn(form: PageForm, appName: String, login: String?, error: IdentityError?, variant: SignInVariant) -> HTML {
        // With the name known, the cursor waits in the password field (Microsoft's second step).
        let knowsName = !(login ?? "").isEmpty
        // Links after the buttons: the primary one stays the first, so that Enter signs in.
        let reset: HTML = variant.offersPasswordReset
            ? "<p><button type=\"submit\" class=\"link\" name=\"action\" value=\"forgotpassword\" id=\"idA_PWD_ForgotPassword\" formnovalidate>Forgot password?</button></p>"
            : .empty
        let signUp: HTML = variant.offersSignUp
            ? "<p class=\"muted\">No account? <button type=\"submit\" class=\"link\" name=\"action\" value=\"signup\" id=\"signup\" formnovalidate>Create one!</button></p>"
            : .empty
        let password: HTML = variant.asksPassword ? """
            <label for="i0118">Password</label>
            <input type="password" name="passwd" id="i0118" autocomplete="current-password" aria-required="true"\(HTML(raw: knowsName ? " autofocus" : ""))>
            """ : .empty
        return PageLayout.document(title: "Sign in to your account", heading: "Sign in", content: """
            <p id="appName" class="muted">to continue to \(appName)</p>
            \(form.render(id: "signin", name: "f1", """
                \(error.map { HTML.alert(id: errorID(for: $0), $0) } ?? .empty)
                <label for="i0116">\(variant.nameLabel)</label>
                <input type="email" name="login" id="i0116" value="\(login)" autocomplete="username" required aria-required="true"\(HTML(raw: knowsName && variant.asksPassword ? "" : " autofocus"))>
                \(password)
                """, buttons: [.primary(id: "idSIButton9", action: "signin", label: variant.asksPassword ? "Sign in" : "Next"), .back(id: "idBtn_Back", label: "Back")],
                after: "\(reset)\(signUp)"))
            """)
    }

    struct AccountTile {
        var userID: String
        var displayName: String
        var signInName: String
        var note: String?
    }

    static func accountPicker(form: PageForm, appName: String, accounts: [AccountTile]) -> HTML {
        let tiles: [HTML] = accounts.enumerated().map { index, account in
            """
            <li><button type="submit" class="tile" name="account" value="\(account.userID)" id="account-\(index)" data-upn="\(account.signInName)" data-test-id="\(account.signInName)">\
            \(account.displayName)<small>\(account.signInName)\(account.note.map { " · " + $0 } ?? "")</small></button></li>
            """
        }
        return PageLayout.document(title: "Pick an account", heading: "Pick an account", content: """
            <p id="appName" class="muted">to continue to \(appName)</p>
            <form id="picker" method="post" action="\(form.action)">
            \(form.hiddenFields)
            <input type="hidden" name="action" value="pick">
            <ul class="tiles" id="accounts">
            \(tiles)
            <li><button type="submit" class="tile" name="account" value="other" id="otherTile">Use another account</button></li>
            </ul>
            <div class="actions">
            <button type="submit" name="account" value="cancel" id="idBtn_Back">Back</button>
            </div>
            </form>
            """)
    }

    /// Any six digits pass: FakeEntra has no authenticator app, only the shape of the step.
    static func mfa(form: PageForm, displayName: String, error: IdentityError?) -> HTML {
        PageLayout.document(title: "Verify your identity", heading: "Enter code", content: """
            <p>\(displayName), enter the code displayed in the authenticator app on your mobile device.</p>
            <p class="muted">FakeEntra accepts any 6-digit code.</p>
            \(form.render(id: "mfa", """
                \(HTML.alert(id: "idSpan_SAOTCC_Error_OTC", error))
                <label for="idTxtBx_SAOTCC_OTC">Code</label>
                <input type="text" name="otc" id="idTxtBx_SAOTCC_OTC" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus>
                """, buttons: [.primary(id: "idSubmit_SAOTCC_Continue", action: "mfa", label: "Verify"), .back(id: "idBtn_Back", label: "Cancel")]))
            """)
    }

    static func passwordChange(form: PageForm, login: String, notice: IdentityError, error: String?) -> HTML {
        PageLayout.document(title: "Update your password", heading: "Update your password", content: """
            <p>You need to update your password because your password has expired.</p>
            <p class="muted" id="expiredNotice" data-aadsts="\(notice.code)">\(notice.prefixedCode): \(notice.message)</p>
            \(form.render(id: "passwordchange", """
                \(HTML.hidden("login", login))
                \(HTML.alert(id: "passwordChangeError", message: error))
                <label for="currentPassword">Current password</label>
                <input type="password" name="currentPassword" id="currentPassword" autocomplete="current-password" required>
                <label for="newPassword">New password</label>
                <input type="password" name="newPassword" id="newPassword" autocomplete="new-password" required>
                <label for="confirmNewPassword">Confirm password</label>
                <input type="password" name="confirmNewPassword" id="confirmNewPassword" autocomplete="new-password" required>
                """, buttons: [.primary(id: "idSIButton9", action: "changepassword", label: "Sign in"), .back(id: "idBtn_Back", label: "Cancel")]))
            """)
    }

    static func createAccount(form: PageForm, appName: String, tenantName: String, email: String?, fields: [AttributeField], asksPassword: Bool, error: String?) -> HTML {
        let password: HTML = asksPassword ? """
            <label for="PasswordInput">Create a password</label>
            <input type="password" name="passwd" id="PasswordInput" autocomplete="new-password" required>
            """ : .empty
        return PageLayout.document(title: "Create account", heading: "Create account", content: """
            <p id="appName" class="muted">to continue to \(appName) · new account in \(tenantName)</p>
            \(form.render(id: "signup", """
                \(HTML.alert(id: "signupError", message: error))
                <label for="MemberName">Email</label>
                <input type="email" name="email" id="MemberName" value="\(email)" autocomplete="username" required autofocus>
                \(fields.map(\.markup))
                \(password)
                """, buttons: [.primary(id: "idSIButton9", action: "create", label: "Next"), .back(id: "idBtn_Back", label: "Back")]))
            """)
    }
}
