package import EntraHTTP

/// `https://host[:port]` as the client reached FakeEntra: the Host header decides, so that a hosts-file
/// override of login.microsoftonline.com yields issuers on that host.
package struct PublicOrigin: Sendable, Equatable {
    package var scheme: String
    /// Host and port as in the Host header (`127.0.0.1:8443`, `login.microsoftonline.com`).
    package var authority: String

    package init(scheme: String, authority: String) {
        self.scheme = scheme
        self.authority = authority
    }

    package init(request: HTTPRequest, context: ConnectionFacts) {
        scheme = context.isSecure ? "https" : "http"
        authority = request.headers["Host"]?.fastLowercased ?? "localhost:\(context.localPort)"
    }

    package var url: String { "\(scheme)://\(authority)" }
}
