package import EntraHTTP
package import Foundation

// Public doors onto the browser and grant helpers for the Azure AD B2C module (issue 4), which reuses
// this module's pages, redirects, sessions and code redemption instead of keeping a second copy.
// Each member forwards to the internal helper it names; behaviour lives there.

/// Page frame, HTML responses and the shared error and signed-out pages.
package enum SharedPages {
    package static func document(title: String, heading: String, content: HTML, wide: Bool = false, head: HTML = .empty, fullWidth: Bool = false) -> HTML {
        PageLayout.document(title: title, heading: heading, content: content, wide: wide, head: head, fullWidth: fullWidth)
    }

    package static func response(_ page: HTML, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        PageLayout.response(page, status: status, headers: headers)
    }

    package static func error(_ error: IdentityError, trace: TraceContext, appName: String? = nil) -> HTML {
        Pages.error(error, trace: trace, appName: appName)
    }

    package static func signedOut() -> HTML { Pages.signedOut() }
}

/// Delivering an /authorize result to a redirect URI (query, fragment or form_post).
package enum SharedRedirect {
    /// `query`, `fragment` or `form_post`; nil for anything else.
    package static func isResponseMode(_ text: String) -> Bool { ResponseMode(rawValue: text) != nil }

    package static func deliver(_ parameters: [(String, String)], uri: String, responseMode: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        AuthorizationResponder.deliver(parameters, uri: uri, mode: ResponseMode(rawValue: responseMode) ?? .query, headers: headers)
    }

    package static func errorParameters(_ error: IdentityError, state: String?, trace: TraceContext, cancelled: Bool = false) -> [(String, String)] {
        AuthorizationResponder.errorParameters(error, state: state, trace: trace, cancelled: cancelled)
    }

    package static func url(_ uri: String, parameters: [(String, String)]) -> String {
        AuthorizationResponder.redirectURL(uri, parameters: parameters, mode: .query)
    }
}

/// Authorization-code bookkeeping shared by every token endpoint (single use, expiry, atomic redemption).
package enum SharedCodes {
    /// The stored code; throws the Entra errors (70000 unknown, 54005 redeemed, 70008 expired).
    package static func lookUp(_ code: String, now: Date, service: IdentityService) throws(IdentityError) -> AuthorizationCodeRecord {
        try AuthorizationCodeGrant.lookUp(code, now: now, service: service)
    }

    package static func markRedeemed(_ code: String, now: Date, service: IdentityService, receipt: ReceiptRecorder) throws(IdentityError) {
        try AuthorizationCodeGrant.markRedeemed(code, now: now, service: service, receipt: receipt)
    }
}

/// The token endpoint's CORS preflight (single-page apps call /token from the browser).
package enum SharedTokenEndpoint {
    package static func preflight(_ exchange: IdentityExchange) -> HTTPResponse { TokenEndpoint.preflight(exchange) }

    /// A token endpoint's answer: CORS preflight, errors as JSON in `trace`, and the caller's `Origin`
    /// allowed, because single-page apps (MSAL.js) redeem codes from the browser.
    package static func respond(_ exchange: IdentityExchange, trace: TraceContext, _ handle: () throws(IdentityError) -> HTTPResponse) -> HTTPResponse {
        if exchange.request.method == "OPTIONS" { return TokenEndpoint.preflight(exchange) }
        var response: HTTPResponse
        do {
            response = try handle()
        } catch {
            response = error.tokenEndpointResponse(in: trace)
        }
        if let origin = exchange.request.headers["Origin"] { response.headers.set("Access-Control-Allow-Origin", origin) }
        return response
    }
}

extension PlatformState {
    /// Records a sign-in in the named browser session or a new one (see `signIn(userID:methods:at:sessionID:)`).
    package mutating func recordSignIn(userID: String, methods: [String], at now: Date, sessionID: String?) -> (session: BrowserSession, isNew: Bool) {
        signIn(userID: userID, methods: methods, at: now, sessionID: sessionID)
    }
}

extension BrowserSession {
    /// The session's public id (`sid`, `session_state`).
    package var sharedPublicID: String { publicID }
}

extension TokenIssuer {
    /// The service's options with the lifetimes an active scenario imposes.
    package var effectiveOptions: IdentityOptions { options }

    /// A 200 JSON token response with the no-store headers every token response carries.
    package static func successResponse(_ body: ClaimSet) -> HTTPResponse { success(body) }
}
