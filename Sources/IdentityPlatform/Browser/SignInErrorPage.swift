import ExchangeKernel
package import EntraHTTP

/// An error shown on the service's error page, for what cannot go back to the app (an unknown client or
/// redirect URI, a lost or expired flow, a wrong method): how the error protocol renders it for Entra's
/// and B2C's browser endpoints alike.
package struct SignInErrorPage: HTTPResponseError, Sendable {
    package var error: IdentityError
    package var status: HTTPStatus
    /// Named in the troubleshooting details when the app is known.
    package var appName: String?
    package var headers: HTTPHeaders

    package init(_ error: IdentityError, status: HTTPStatus = .badRequest, appName: String? = nil, headers: HTTPHeaders = [:]) {
        self.error = error
        self.status = status
        self.appName = appName
        self.headers = headers
    }

    package func response(in trace: TraceContext) -> HTTPResponse {
        PageLayout.response(Pages.error(error, trace: trace, appName: appName), status: status, headers: headers).stating(error.stated)
    }
}
