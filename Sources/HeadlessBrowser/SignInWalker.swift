package import EntraHTTP
import LocatedJSON

/// Who signs in, and the answers the pages may ask for.
package struct SignInCredentials: Sendable {
    package var username: String
    package var password: String
    /// The code typed where a page asks for a one-time code. Nil: the newest code FakeEntra's outbox holds
    /// for `username` (the code a person would read in their inbox: External ID's e-mail codes, B2C's
    /// password reset), or any six digits where nothing was mailed (the MFA page accepts them).
    package var oneTimeCode: String?
    /// The device flow's user code, typed on the device login page (its verification URI).
    package var userCode: String?

    package init(username: String, password: String, oneTimeCode: String? = nil, userCode: String? = nil) {
        self.username = username
        self.password = password
        self.oneTimeCode = oneTimeCode
        self.userCode = userCode
    }
}

/// Walks the sign-in pages from an authorize URL to the app's redirect URI as a person at a browser
/// without JavaScript would: follows redirects, keeps cookies, fills each page's form from what its
/// inputs declare (type and autocomplete, never the page's wording), ticks every consent box, presses the
/// primary button (or the account tile of the user), and finally delivers the result to the app.
///
/// Given a device login page instead (the device flow's verification URI, no `redirect_uri`) and a user
/// code, it types the code and walks the same pages; the walk ends on the service's last page (a page
/// without a form, answered 2xx), since the device learns the outcome by polling, not by a redirect.
package struct SignInWalker {
    /// What reached the app: the redirect (GET) or the form_post (POST), and the app's answer. For a
    /// device login: method `PAGE`, the last page's URL and status.
    package struct Delivery: Sendable, Equatable {
        package var method: String
        package var url: BrowserURL
        package var form: FormParameters
        package var appStatus: Int
        package var pagesWalked: Int
    }

    package var transport: any BrowserTransport
    package var credentials: SignInCredentials
    package var maxSteps = 30
    package var maxRepeatsOfAForm = 3
    /// Kept across walks, as a browser keeps its session: the second sign-in may meet an account picker.
    package var cookies = CookieJar()
    /// One line per request, for `--log`.
    package var log: (String) -> Void = { _ in }

    package init(transport: any BrowserTransport, credentials: SignInCredentials) {
        self.transport = transport
        self.credentials = credentials
    }

    package mutating func walk(_ startText: String) throws(BrowseError) -> Delivery {
        guard let start = BrowserURL(startText) else { throw .badStartURL(startText) }
        // nil: a device login, which ends on the service's own page.
        let redirect = start.query["redirect_uri"].flatMap(BrowserURL.init)
        guard redirect != nil || credentials.userCode != nil else { throw .badStartURL(startText) }
        var request = BrowserRequest(method: "GET", url: start)
        var submissions: [String: Int] = [:]
        for step in 1...maxSteps {
            let response = try send(request)
            if (300..<400).contains(response.status.code), let location = response.headers["Location"] {
                guard let next = request.url.resolving(location) else { throw .deadEnd(url: request.url.description, status: response.status.code, excerpt: "Location: \(location)") }
                if let redirect, next.isWithin(redirect) { return try deliver(BrowserRequest(method: "GET", url: next), pages: step) }
                request = BrowserRequest(method: "GET", url: next)
                continue
            }
            let page = response.bodyText
            guard let form = HTMLForm.parse(page).first(where: { !$0.buttons.isEmpty || $0.method == "POST" }),
                  let action = request.url.resolving(form.action) else {
                if redirect == nil, step > 1, (200..<300).contains(response.status.code) {
                    return Delivery(method: "PAGE", url: request.url, form: FormParameters(), appStatus: response.status.code, pagesWalked: step)
                }
                throw .deadEnd(url: request.url.description, status: response.status.code, excerpt: Self.excerpt(page))
            }
            if let redirect, action.isWithin(redirect) {
                // response_mode=form_post: the page's form carries the result to the app.
                let fields = form.submission(with: nil) { _ in nil }
                return try deliver(Self.formRequest(method: form.method, url: action, fields: fields), pages: step)
            }
            let formKey = form.id ?? action.path
            submissions[formKey, default: 0] += 1
            if submissions[formKey]! > maxRepeatsOfAForm { throw .loop(formID: formKey, times: submissions[formKey]!, shown: Self.shownRefusal(page) ?? "") }
            let asksForCode = form.inputs.contains { $0.purpose == "one-time-code" }
            let code = credentials.oneTimeCode ?? (asksForCode ? mailedCode(at: action, clientID: start.query["client_id"]) : nil) ?? Self.anyCode
            let fields = form.submission(with: chooseButton(in: form)) { fill($0, oneTimeCode: code) }
            request = Self.formRequest(method: form.method, url: action, fields: fields)
        }
        throw .tooManySteps(maxSteps)
    }

    /// The value a person types into `input`; nil keeps what the page put there. A checkbox answered
    /// non-nil is ticked (consent: grant everything the app asked for).
    func fill(_ input: HTMLForm.Input, oneTimeCode: String) -> String? {
        switch (input.type, input.purpose) {
        case ("hidden", _): nil
        case ("checkbox", _): input.value
        case ("password", _): credentials.password
        case (_, "username"), ("email", _): credentials.username
        case (_, "one-time-code"): oneTimeCode
        // The device login page's one mandatory free-text field is the code the device shows.
        case ("text", _) where input.attributes["required"] != nil: credentials.userCode
        default: nil
        }
    }

    /// The user's own account tile when the page offers accounts, else the primary (forward) button,
    /// else "use another account" on a picker without the user, else the first submit button.
    func chooseButton(in form: HTMLForm) -> HTMLForm.Button? {
        let submits = form.buttons.filter(\.isSubmit)
        let tiles = submits.filter { $0.attributes["data-upn"] != nil }
        if let mine = tiles.first(where: { $0.attributes["data-upn"]?.lowercased() == credentials.username.lowercased() }) { return mine }
        if !tiles.isEmpty, let other = submits.first(where: { $0.id == "otherTile" }) { return other }
        return submits.first { $0.classes.contains("primary") } ?? submits.first
    }

    static let anyCode = "123456"

    /// The newest code the service at `url`'s origin mailed to the user, read from its outbox (the control
    /// API, which answers loopback clients) in the world the app's sign-in went to; nil when it has none or
    /// does not answer.
    package func mailedCode(at url: BrowserURL, clientID: String? = nil) -> String? {
        let query = [("to", credentials.username)] + (clientID.map { [("clientId", $0)] } ?? [])
        guard let outbox = BrowserURL("\(url.scheme)://\(url.authority)/_fakeentra/outbox?" + FormParameters(query).encoded),
              let response = try? transport.send(BrowserRequest(method: "GET", url: outbox)), response.status.code == 200 else { return nil }
        return LocatedJSON.object(body: response.body)?["messages"]?.array?.last?["code"]?.string
    }

    private mutating func send(_ request: BrowserRequest) throws(BrowseError) -> HTTPResponse {
        var request = request
        if let cookie = cookies.header(for: request.url) { request.headers.set("Cookie", cookie) }
        let response: HTTPResponse
        do { response = try transport.send(request) } catch { throw .transport(url: request.url.description, reason: "\(error)") }
        log("\(request.method) \(request.url) -> \(response.status.code)")
        cookies.store(response.headers.values(for: "Set-Cookie"), from: request.url)
        return response
    }

    private func deliver(_ request: BrowserRequest, pages: Int) throws(BrowseError) -> Delivery {
        let response: HTTPResponse
        do { response = try transport.send(request) } catch { throw .delivery(url: request.url.description, reason: "\(error)") }
        log("deliver \(request.method) \(request.url) -> \(response.status.code)")
        let form = request.method == "POST" ? FormParameters(decoding: String(decoding: request.body, as: UTF8.self)) : request.url.query
        return Delivery(method: request.method, url: request.url, form: form, appStatus: response.status.code, pagesWalked: pages)
    }

    /// Tells the app that the sign-in did not finish, as the service tells it a refused one: an error
    /// response at its redirect URI (`access_denied`, the reason in `error_description`, its `state`), so
    /// the app stops waiting now instead of at its own timeout. nil when there is no redirect URI to
    /// tell (a device login, a URL that is not an authorize URL) or the app cannot be reached.
    package func tellTheApp(_ reason: String, startedAt startText: String) -> Delivery? {
        guard let start = BrowserURL(startText), let redirect = start.query["redirect_uri"].flatMap(BrowserURL.init) else { return nil }
        var fields = FormParameters()
        fields.append("error", "access_denied")
        fields.append("error_description", "fakeentra browse could not finish the sign-in: \(reason)")
        if let state = start.query["state"] { fields.append("state", state) }
        let method = start.query["response_mode"] == "form_post" ? "POST" : "GET"
        return try? deliver(Self.formRequest(method: method, url: redirect, fields: fields), pages: 0)
    }

    static func formRequest(method: String, url: BrowserURL, fields: FormParameters) -> BrowserRequest {
        guard method == "POST" else {
            var target = url
            target.target = url.path + (fields.pairs.isEmpty ? "" : "?" + fields.encoded)
            return BrowserRequest(method: "GET", url: target)
        }
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        return BrowserRequest(method: "POST", url: url, headers: headers, body: Array(fields.encoded.utf8))
    }

    /// What the app is told about a page the walk could not pass: the refusal in the page's alert, whole,
    /// when it shows one (AADSTS50126's sentence), else the page's text, shortened; as a person reads it,
    /// character references decoded (an app shows `'`, never `&#39;`).
    static func excerpt(_ page: String) -> String {
        shownRefusal(page) ?? String(visibleText(page).prefix(300))
    }

    /// The text of the page's alert (`role="alert"`), nil when it shows none.
    static func shownRefusal(_ page: String) -> String? {
        guard let alert = page.firstRange(of: "role=\"alert\""), let open = page[alert.upperBound...].firstIndex(of: ">") else { return nil }
        let body = page[page.index(after: open)...]
        let shown = visibleText(String(body[..<(body.firstRange(of: "</")?.lowerBound ?? body.endIndex)]))
        return shown.isEmpty ? nil : shown
    }

    /// `html` without its tags, styles and scripts, white space collapsed, character references decoded.
    static func visibleText(_ html: String) -> String {
        var text = "", inTag = false, visible = html
        for block in ["style", "script"] {
            while let open = visible.firstRange(of: "<\(block)"), let close = visible[open.upperBound...].firstRange(of: "</\(block)>") {
                visible.removeSubrange(open.lowerBound..<close.upperBound)
            }
        }
        for character in visible {
            if character == "<" { inTag = true; text.append(" ") } else if character == ">" { inTag = false } else if !inTag { text.append(character) }
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
        return HTMLCharacterReferences.decode(words.joined(separator: " "))
    }
}
