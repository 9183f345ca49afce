package import EntraHTTP
import IdentityPlatform
import Foundation

/// The names this server answers as: its certificate's names (localhost, 127.0.0.1, ::1, each
/// `--hostname`, `*.b2clogin.com`-style wildcards of one label) and the addresses it is bound to.
///
/// Issuers, discovery documents and links are built from the Host header (so a hosts-file override of
/// login.microsoftonline.com yields issuers on that host). A Host that is none of these names must not
/// become a token's `iss`: such a request is answered as if it had named the primary name.
package struct ServedHosts: Sendable, Equatable {
    /// Lowercased names without brackets or ports; `*.x.y` matches exactly one label before `.x.y`.
    package let names: [String]
    /// What an unserved Host is replaced by, without a port (`127.0.0.1`, `::1`, `localhost`).
    package let primary: String

    package init(names: [String], primary: String) {
        self.names = names.map(Self.bare)
        self.primary = Self.bare(primary)
    }

    /// Whether a Host header value (`name`, `name:port`, `[v6]:port`) names one of the served names.
    package func serves(host header: String) -> Bool {
        let host = Self.bare(Self.hostPart(of: header))
        guard !host.isEmpty else { return false }
        return names.contains { name in
            guard name.hasPrefix("*.") else { return name == host }
            let suffix = name.dropFirst(1)  // ".b2clogin.com"
            guard host.hasSuffix(suffix) else { return false }
            let label = host.dropLast(suffix.count)
            return !label.isEmpty && !label.contains(".")
        }
    }

    /// The Host header the application sees: the client's when served, else the primary name on the
    /// port the connection arrived at (omitted when it is the scheme's default).
    package func effectiveHost(_ header: String?, context: RequestContext) -> String? {
        guard let header, !serves(host: header) else { return header }
        let name = primary.contains(":") ? "[\(primary)]" : primary
        let defaultPort = context.isSecure ? 443 : 80
        return context.localPort == defaultPort ? name : "\(name):\(context.localPort)"
    }

    /// `name:port` → `name`, `[::1]:8443` → `[::1]`; a bare IPv6 literal is kept whole.
    static func hostPart(of header: String) -> String {
        let text = header.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return text }
            return String(text[...close])
        }
        let colons = text.filter { $0 == ":" }.count
        guard colons == 1, let colon = text.firstIndex(of: ":") else { return text }
        return String(text[..<colon])
    }

    /// Lowercased, brackets and a trailing dot removed.
    static func bare(_ name: String) -> String {
        var text = name.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// Puts `ServedHosts` in front of the application: the journal (outside) records the Host the client
/// sent; everything inside sees a served one.
struct ServedHostResponder: ExchangeResponder {
    let hosts: ServedHosts
    let wrapped: any ExchangeResponder

    var routes: RouteResolver { wrapped.routes }

    func respond(to request: HTTPRequest, context: ExchangeContext) -> HTTPResponse {
        let original = request.headers["Host"]
        let effective = hosts.effectiveHost(original, context: context.connection)
        guard effective != original, let effective else { return wrapped.respond(to: request, context: context) }
        var served = request
        served.headers.set("Host", effective)
        // The host decides Graph's routes: the request inside is routed as served.
        return wrapped.respond(to: served, context: context.rerouted(served, routes: routes))
    }
}
