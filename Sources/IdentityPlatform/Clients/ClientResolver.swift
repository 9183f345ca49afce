import FoundationGaps

/// A client as one request sees it: a configured app, or (lenient mode) an app FakeEntra stands in for.
package struct ResolvedClient: Sendable, Equatable {
    package var application: Application
    /// False when the client id is unknown and lenient mode accepted it.
    package var isRegistered: Bool

    package init(application: Application, isRegistered: Bool) {
        self.application = application
        self.isRegistered = isRegistered
    }

    package var clientID: String { application.clientID }
}

package enum ClientResolver {
    /// The app named by `clientID`. Unknown ids are public clients in lenient mode and AADSTS700016 in
    /// strict mode. `tenant` (the authority's tenant, nil for common/organizations/consumers) only words the error.
    package static func resolve(clientID: String, directory: Directory, options: IdentityOptions, tenant: Tenant? = nil) throws(ClientRefusal) -> ResolvedClient {
        if let app = directory.application(clientID: clientID) {
            if let home = app.tenantID, let tenant, tenant.id != home {
                throw .notRegistered(clientID: clientID, tenant: tenant.id)
            }
            return ResolvedClient(application: app, isRegistered: true)
        }
        guard !options.strict, isPlausibleClientID(clientID) else { throw .notRegistered(clientID: clientID, tenant: tenant?.id ?? "common") }
        return ResolvedClient(application: lenientApplication(clientID: clientID), isRegistered: false)
    }

    /// What lenient mode stands in for: an id an app registration could have (a GUID, or an
    /// identifier URI's worth of visible characters). A 200 KB id or one with a NUL is no app: 700016,
    /// as the real service answers for any id it does not know.
    static func isPlausibleClientID(_ clientID: String) -> Bool {
        (1...256).contains(clientID.utf8.count) && clientID.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    /// What an unknown client id stands for: a multi-tenant public client configured with Graph
    /// `User.Read`, like a fresh app registration.
    package static func lenientApplication(clientID: String) -> Application {
        Application(
            clientID: clientID, displayName: clientID, isPublicClient: true,
            requiredResourceAccess: [.init(resource: Resource.graphAppID, scopes: ["User.Read"])]
        )
    }

    /// Redirect URIs an unknown (lenient) client may use: the native-client forms MSAL and CLIs use.
    package static func isNativeRedirectURI(_ uri: String) -> Bool {
        let lower = uri.lowercased()
        if lower == "urn:ietf:wg:oauth:2.0:oob" { return true }
        if lower.hasPrefix("msauth://code/") { return true }
        if lower.hasPrefix("msauth."), let range = lower.range(of: "://auth"), lower[range.upperBound...].isEmpty || lower[range.upperBound...] == "/" {
            return lower[lower.index(lower.startIndex, offsetBy: 7)..<range.lowerBound].isEmpty == false
        }
        guard let url = URLComponents(string: uri), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return false }
        switch (scheme, host) {
        case ("http", "localhost"), ("http", "127.0.0.1"), ("http", "[::1]"), ("http", "::1"), ("https", "localhost"), ("https", "127.0.0.1"):
            return url.user == nil && url.fragment == nil
        default:
            return false
        }
    }

    /// Schemes no sign-in answer may be sent to: they run script in, or read from, whatever page follows
    /// them (Entra refuses them at registration). Compared without case.
    package static let refusedRedirectSchemes: Set<String> = ["javascript", "data", "vbscript", "file", "about", "blob", "view-source"]

    /// Why a redirect URI cannot be registered, or nil: a refused scheme, or no scheme at all.
    package static func redirectURIProblem(_ uri: String) -> String? {
        guard let colon = uri.firstIndex(of: ":"), colon != uri.startIndex else { return "a redirect URI needs a scheme (https://, http://localhost, msauth.…://)" }
        let scheme = uri[..<colon].lowercased().trimmingCharacters(in: .whitespaces)
        guard !refusedRedirectSchemes.contains(scheme) else { return "a \(scheme): redirect URI could run script or read local files where the sign-in's answer lands; use https://, http://localhost or an app's own scheme" }
        return nil
    }

    /// Checks a `redirect_uri` against the app (AADSTS50011). Registered URIs match exactly, except that a
    /// loopback URI matches on any port, as Entra allows for native apps. An app with no registered URIs
    /// (and every lenient client) accepts the native forms. A refused scheme never matches.
    package static func validateRedirectURI(_ uri: String, for client: ResolvedClient) throws(IdentityError) {
        guard redirectURIProblem(uri) == nil else { throw .redirectURIMismatch(uri, clientID: client.clientID) }
        let registered = client.application.allRedirectURIs
        if registered.isEmpty {
            guard isNativeRedirectURI(uri) else { throw .redirectURIMismatch(uri, clientID: client.clientID) }
            return
        }
        if registered.contains(uri) { return }
        if let candidate = loopbackWithoutPort(uri), registered.contains(where: { loopbackWithoutPort($0) == candidate }) { return }
        throw .redirectURIMismatch(uri, clientID: client.clientID)
    }

    /// `http://localhost:1234/cb` → `http://localhost/cb`; nil for anything but http loopback.
    static func loopbackWithoutPort(_ uri: String) -> String? {
        guard var url = URLComponents(string: uri), url.scheme?.lowercased() == "http",
              let host = url.host?.lowercased(), ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host) else { return nil }
        url.port = nil
        url.host = host
        return url.string
    }
}
