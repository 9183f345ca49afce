package import ExchangeKernel
import FoundationGaps

extension Pages {
    struct PermissionLine {
        var scope: String
        var title: String
        var detail: String
        /// The permission to grant, when the user may untick it (`openid`, `profile`… come with any sign-in).
        var optionalPermission: String? = nil
    }

    /// The consent page's ticked permissions. Its Accept button says `acceptchosen` when the page offered
    /// boxes, so that only then do unticked (absent) permissions count as declined: a script posting
    /// `action=accept` accepts everything, as before.
    static let consentScopeField = "scope"
    static let acceptChosenAction = "acceptchosen"

    static func consent(form: PageForm, appName: String, publisher: String, signInName: String, permissions: [PermissionLine], forOrganization: Bool = false) -> HTML {
        let organization: HTML = forOrganization
            ? "<p id=\"consentForOrganization\"><strong>Consent on behalf of your organization.</strong> Accepting grants these permissions to every user of your organization; they will not be asked.</p>"
            : .empty
        // Each optional permission is a ticked box the user may untick before accepting.
        let items: [HTML] = permissions.enumerated().map { index, line in
            guard let permission = line.optionalPermission else {
                return "<li data-scope=\"\(line.scope)\"><strong>\(line.title)</strong><small>\(line.detail)</small></li>"
            }
            return """
                <li data-scope="\(line.scope)"><label class="choice"><input type="checkbox" name="\(consentScopeField)" value="\(permission)" id="scope-\(index)" checked> \
                <strong>\(line.title)</strong></label><small>\(line.detail)</small></li>
                """
        }
        let accept = permissions.contains { $0.optionalPermission != nil } ? acceptChosenAction : "accept"
        return PageLayout.document(title: "Permissions requested", heading: "Permissions requested", content: """
            <p class="muted" id="consentUser">\(signInName)</p>
            <p><strong id="appName">\(appName)</strong><br><span class="muted">\(publisher)</span></p>
            \(form.render(id: "consent", validates: true, """
                <p>This app would like to:</p>
                \(organization)
                <ul class="permissions" id="permissions">
                \(items)
                </ul>
                <p class="muted">Accepting these permissions means that you allow this app to use your data as specified in their terms of service and privacy statement.</p>
                """, buttons: [.primary(id: "idBtn_Accept", action: accept, label: "Accept"), .back(id: "idBtn_Back", label: "Cancel", skipsValidation: false)]))
            """, wide: true)
    }

    /// A permission only an administrator may grant: the user can only go back to the app with the error.
    static func adminConsentRequired(form: PageForm, appName: String, error: IdentityError, permissions: [String]) -> HTML {
        let items: [HTML] = permissions.map { "<li data-scope=\"\($0)\">\($0)</li>" }
        return PageLayout.document(title: "Need admin approval", heading: "Need admin approval", content: """
            <p><strong id="appName">\(appName)</strong> needs permission to access resources in your organization that only an admin can grant. Ask an admin to grant permission to this app before you can use it.</p>
            <ul class="permissions" id="permissions">\(items)</ul>
            \(HTML.alert(id: "errorCode", error))
            \(form.render(id: "adminconsent", validates: true, .empty, buttons: [.primary(id: "idBtn_Back", action: "return", label: "Return to the application without consenting")]))
            """, wide: true)
    }

    /// The form_post page's one script; pages allow it by its hash (`PageSecurityHeaders`).
    package static let formPostScript = #"document.getElementById("response").submit();"#

    /// `response_mode=form_post`: submits itself where scripts run, and shows a button where they do not.
    static func formPost(action: String, parameters: [(String, String)]) -> HTML {
        let fields: [HTML] = parameters.map { HTML.hidden($0.0, $0.1) }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Working...</title></head>
            <body>
            <form id="response" method="post" action="\(action)">
            \(fields)
            <noscript><p>Script is disabled. Click Continue to return to the application.</p></noscript>
            <button type="submit" id="idSubmit_Continue">Continue</button>
            </form>
            <script>\(HTML(raw: formPostScript))</script>
            </body></html>
            """
    }

    /// The page shown when an error cannot be sent back to the app (bad client or redirect URI, lost flow).
    static func error(_ error: IdentityError, trace: TraceContext, appName: String? = nil) -> HTML {
        PageLayout.document(title: "Sign in error", heading: "Sorry, but we’re having trouble signing you in.", content: """
            <div id="error" role="alert" data-aadsts="\(error.code)" data-error="\(error.error)">
            <p id="errorCode"><strong>\(error.prefixedCode):</strong> \(error.message)</p>
            </div>
            \(traceDetails(error, trace: trace, appName: appName))
            """, wide: true)
    }

    static func traceDetails(_ error: IdentityError, trace: TraceContext, appName: String?) -> HTML {
        let app: HTML = appName.map { "<dt>App name</dt><dd id=\"errorAppName\">\($0)</dd>" } ?? .empty
        return """
            <details open><summary>Troubleshooting details</summary>
            <dl class="trace">
            \(app)
            <dt>Request Id</dt><dd id="traceId">\(trace.traceID)</dd>
            <dt>Correlation Id</dt><dd id="correlationId">\(trace.correlationID)</dd>
            <dt>Timestamp</dt><dd id="timestamp">\(trace.formattedTimestamp)</dd>
            <dt>Message</dt><dd><a href="\("/error?code=\(error.code)")">\(error.prefixedCode)</a></dd>
            </dl>
            </details>
            """
    }

    package static func signedOut() -> HTML {
        PageLayout.document(title: "Signed out", heading: "You signed out of your account", content: """
            <p id="signedOut">It’s a good idea to close all browser windows.</p>
            """)
    }

    static func deviceCodeEntry(action: String, code: String?, message: String?) -> HTML {
        PageLayout.document(title: "Enter code", heading: "Enter code", content: """
            <p>Enter the code displayed on your app or device.</p>
            <form id="devicelogin" method="post" action="\(action)" novalidate>
            \(HTML.alert(id: "error", message: message))
            <label for="otc">Code</label>
            <input type="text" name="otc" id="otc" value="\(code)" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus>
            <div class="actions">
            <button type="submit" name="action" value="code" id="idSIButton9" class="primary">Next</button>
            </div>
            </form>
            """)
    }

    static func deviceConfirm(form: PageForm, appName: String) -> HTML {
        PageLayout.document(title: "Confirm sign-in", heading: "Are you trying to sign in to \(appName)?", content: """
            <p>Only continue if you downloaded the app from a store or website that you trust.</p>
            \(form.render(id: "deviceconfirm", validates: true, .empty,
                         buttons: [.primary(id: "idSIButton9", action: "continue", label: "Continue"), .back(id: "idBtn_Back", label: "Cancel", skipsValidation: false)]))
            """)
    }

    static func deviceSignedIn(appName: String) -> HTML {
        PageLayout.document(title: "Signed in", heading: appName, content: """
            <p id="deviceSuccess">You have signed in to the \(appName) application on your device. You may now close this window.</p>
            """)
    }

    static func deviceDeclined(appName: String) -> HTML {
        PageLayout.document(title: "Sign-in cancelled", heading: appName, content: """
            <p id="deviceDeclined">You have declined to sign in to the \(appName) application on your device. You may now close this window.</p>
            """)
    }
}
