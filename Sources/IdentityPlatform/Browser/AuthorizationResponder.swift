import LocatedJSON
import ExchangeKernel
import EntraCrypto
package import EntraHTTP

/// Delivers the result of /authorize to the client's redirect URI in the response mode it asked for.
package enum AuthorizationResponder {
    /// `code`, `client_info`, `state`, `session_state`, in the order the service sends them.
    /// `stateOverride`: a scenario's forged `state` (`redirectState`), sent instead of the client's.
    static func successParameters(code: String, request: AuthorizationRequest, user: DirectoryUser, sessionState: String?, stateOverride: String? = nil) -> [(String, String)] {
        var parameters = [("code", code)]
        if request.wantsClientInfo { parameters.append(("client_info", clientInfo(user: user))) }
        if case .redirect(_, _, let state?) = request.reply { parameters.append(("state", stateOverride ?? state)) }
        if let sessionState { parameters.append(("session_state", sessionState)) }
        return parameters
    }

    /// base64url of `{"uid":"<oid>","utid":"<tid>"}`: what MSAL keys its account cache by.
    static func clientInfo(user: DirectoryUser) -> String {
        let json = JSONValue.object([("uid", .string(user.id)), ("utid", .string(user.tenantID))]).compactText
        return Base64URL.encode(Array(json.utf8))
    }

    /// After sign-out (Entra's and B2C's logout): back to `post_logout_redirect_uri`, with the client's
    /// `state` when it sent one.
    package static func signedOutRedirect(to target: String, state: String?, headers: HTTPHeaders) -> HTTPResponse {
        var headers = headers
        headers.set("Location", state.map { redirectURL(target, parameters: [("state", $0)], mode: .query) } ?? target)
        headers.set("Cache-Control", "no-store, no-cache")
        return HTTPResponse(status: .found, headers: headers)
    }

    static func deliver(_ parameters: [(String, String)], uri: String, mode: ResponseMode, headers: HTTPHeaders = [:]) -> HTTPResponse {
        switch mode {
        case .query, .fragment:
            var headers = headers
            headers.set("Location", redirectURL(uri, parameters: parameters, mode: mode))
            headers.set("Cache-Control", "no-store, no-cache")
            return HTTPResponse(status: .found, headers: headers)
        case .formPost:
            // The form's action runs in this page's origin: a script scheme must never reach it, whatever let it through.
            if let problem = ClientResolver.redirectURIProblem(uri) {
                return HTTPResponse(status: .badRequest, text: problem + "\n", contentType: "text/plain; charset=utf-8")
            }
            return PageLayout.response(Pages.formPost(action: uri, parameters: parameters), headers: headers)
        }
    }

    package static func redirectURL(_ uri: String, parameters: [(String, String)], mode: ResponseMode) -> String {
        let encoded = FormParameters(parameters).encoded
        switch mode {
        case .fragment:
            let base = uri.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? uri
            return base + "#" + encoded
        case .query, .formPost:
            var base = uri
            var fragment = ""
            if let hash = uri.firstIndex(of: "#") {
                base = String(uri[..<hash])
                fragment = String(uri[hash...])
            }
            let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
            return base + separator + encoded + fragment
        }
    }
}

/// An /authorize error sent back to the client's redirect URI (query, fragment or form_post): how the
/// error protocol renders a refusal once the client and its redirect URI are trusted, for Entra's and B2C's
/// endpoints and pages and for a scenario's scripted /authorize errors alike.
package struct AuthorizeErrorRedirect: HTTPResponseError, Sendable {
    package var error: IdentityError
    package var redirectURI: String
    package var mode: ResponseMode
    package var state: String?
    /// `error_subcode`: `cancel` when the user backed out of the pages (every MSAL reads it as "cancelled").
    package var subcode: String?
    /// What the answer carries besides (a session cookie set on the way).
    package var headers: HTTPHeaders

    package init(_ error: IdentityError, redirectURI: String, mode: ResponseMode, state: String?, subcode: String? = nil,
                 headers: HTTPHeaders = [:]) {
        self.error = error
        self.redirectURI = redirectURI
        self.mode = mode
        self.state = state
        self.subcode = subcode
        self.headers = headers
    }

    /// `error`, `error_description` (with the trace), `error_uri`…, then `error_subcode` and `state`.
    package func response(in trace: TraceContext) -> HTTPResponse {
        // An error of code 0 (a scenario's, without a service code): `error` and its text only, no AADSTS prefix.
        var parameters = error.code == 0
            ? [("error", error.error), ("error_description", error.message)] + (error.suberror.map { [("suberror", $0)] } ?? [])
            : error.redirectParameters(in: trace, state: nil)
        if let subcode { parameters.append(("error_subcode", subcode)) }
        if let state { parameters.append(("state", state)) }
        return AuthorizationResponder.deliver(parameters, uri: redirectURI, mode: mode, headers: headers)
            .stating(error.stated)
    }
}
