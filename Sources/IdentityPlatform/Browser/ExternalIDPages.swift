import ExchangeKernel

/// The pages of External ID's tenants: the codes they mail and the attributes their user flows collect.
extension Pages {
    /// The page a custom authentication extension's showBlockPage ends a sign-up on: its message, no way on.
    /// Where an extension's block ends a sign-up or a sign-in: its title, if it gave one, and its message.
    static func blocked(heading: String, title: String?, message: String) -> HTML {
        let titleMarkup: HTML = title.map { "<h2 id=\"blockTitle\">\($0)</h2>\n" } ?? ""
        return PageLayout.document(title: heading, heading: heading, content: """
            \(titleMarkup)<p id="blockMessage" role="alert">\(message)</p>
            """)
    }

    /// A sign-up field for one attribute of the user flow; the display name keeps the id Entra's page gives it.
    struct AttributeField {
        var attribute: SignUpAttribute
        var value: String?

        init(_ attribute: SignUpAttribute, value: String?) {
            self.attribute = attribute
            self.value = value
        }

        var id: String { attribute.name == "displayName" ? "DisplayName" : attribute.name }

        var markup: HTML {
            let required = HTML(raw: attribute.required ? " required" : "")
            switch attribute.type {
            case .boolean:
                let checked = HTML(raw: value?.lowercased() == "true" ? " checked" : "")
                return """
                    <label class="choice" for="\(id)"><input type="checkbox" name="\(attribute.name)" id="\(id)" value="true"\(checked)\(required)> \(attribute.displayLabel)</label>
                    """
            case .int, .string:
                let numeric = HTML(raw: attribute.type == .int ? " inputmode=\"numeric\"" : "")
                return """
                    <label for="\(id)">\(attribute.displayLabel)</label>
                    <input type="text" name="\(attribute.name)" id="\(id)" value="\(value)"\(numeric)\(required)\(HTML(raw: attribute.name == "displayName" ? " autocomplete=\"name\"" : ""))>
                    """
            }
        }
    }

    /// The address check of a sign-up: the code mailed to the new customer.
    static func verifyEmail(form: PageForm, email: String, error: IdentityError?) -> HTML {
        PageLayout.document(title: "Verify your email", heading: "Verify your email", content: """
            <p>Enter the code we sent to <strong id="verificationEmail">\(email)</strong>.</p>
            \(form.render(id: "verifyemail", """
                \(HTML.alert(id: "verificationError", error))
                \(codeInput(name: "verificationCode", id: "VerificationCode", label: "Verification code"))
                """, buttons: [.primary(id: "idSIButton9", action: "verifyemail", label: "Next"), .back(id: "idBtn_Back", label: "Back", action: "back")]))
            """)
    }

    /// The code of a sign-in with a one-time passcode, or of a password reset.
    static func emailCode(form: PageForm, email: String, forReset: Bool, error: IdentityError?) -> HTML {
        PageLayout.document(title: "Enter code", heading: forReset ? "Verify your email" : "Enter code", content: """
            <p>We just sent a code to <strong id="codeEmail">\(email)</strong>.</p>
            \(form.render(id: "emailcode", """
                \(HTML.alert(id: "codeError", error))
                \(codeInput(name: "oneTimeCode", id: "idTxtBx_OTC_Password", label: "Code"))
                """, buttons: [.primary(id: "idSIButton9", action: "emailcode", label: forReset ? "Next" : "Sign in"), .back(id: "idBtn_Back", label: "Back", action: "back")],
                after: "<p><button type=\"submit\" class=\"link\" name=\"action\" value=\"resendcode\" id=\"idA_ResendCode\" formnovalidate>Resend code</button></p>"))
            """)
    }

    /// A forgotten password: the address the code goes to.
    static func resetPassword(form: PageForm, email: String?, error: IdentityError?) -> HTML {
        PageLayout.document(title: "Reset your password", heading: "Reset your password", content: """
            <p>Enter the email address of your account and we'll send you a code.</p>
            \(form.render(id: "resetpassword", """
                \(HTML.alert(id: "resetError", error))
                <label for="ResetEmail">Email address</label>
                <input type="email" name="email" id="ResetEmail" value="\(email)" autocomplete="username" required autofocus>
                """, buttons: [.primary(id: "idSIButton9", action: "sendresetcode", label: "Send code"), .back(id: "idBtn_Back", label: "Cancel", action: "back")]))
            """)
    }

    /// The new password, once the mailed code proved the address.
    static func newPassword(form: PageForm, email: String, error: String?) -> HTML {
        PageLayout.document(title: "Reset your password", heading: "Create a new password", content: """
            <p class="muted" id="resetAccount">\(email)</p>
            \(form.render(id: "newpassword", """
                \(HTML.alert(id: "newPasswordError", message: error))
                <label for="newPassword">New password</label>
                <input type="password" name="newPassword" id="newPassword" autocomplete="new-password" required autofocus>
                <label for="confirmNewPassword">Confirm new password</label>
                <input type="password" name="confirmNewPassword" id="confirmNewPassword" autocomplete="new-password" required>
                """, buttons: [.primary(id: "idSIButton9", action: "setnewpassword", label: "Next"), .back(id: "idBtn_Back", label: "Cancel", action: "back")]))
            """)
    }

    private static func codeInput(name: String, id: String, label: String) -> HTML {
        """
        <label for="\(id)">\(label)</label>
        <input type="text" name="\(name)" id="\(id)" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{\(NativeAuthFlows.codeLength)}" maxlength="\(NativeAuthFlows.codeLength)" required autofocus>
        """
    }
}
