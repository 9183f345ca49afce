package import EntraHTTP

/// An absolute http(s) URL as a browser needs it: where to connect and what to ask for. Only what the
/// sign-in pages use (no userinfo, no IPv6 literals, no fragments kept).
package struct BrowserURL: Sendable, Equatable, CustomStringConvertible {
    package var scheme: String
    package var host: String
    package var port: Int
    /// Path and query, as sent in the request line (`/a/b?c=d`).
    package var target: String

    package init?(_ text: String) {
        let withoutFragment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        guard let schemeEnd = withoutFragment.firstRange(of: "://") else { return nil }
        let scheme = withoutFragment[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = withoutFragment[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains("@"), !authority.hasPrefix("[") else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        var host = String(authority), port = defaultPort
        if let colon = authority.lastIndex(of: ":") {
            guard let parsed = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(parsed) else { return nil }
            host = String(authority[..<colon])
            port = parsed
        }
        guard !host.isEmpty else { return nil }
        var target = String(rest[authorityEnd...])
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        self.target = target
    }

    /// `host` or `host:port` when the port is not the scheme's default: the `Host` header's value.
    package var authority: String { port == (scheme == "https" ? 443 : 80) ? host : "\(host):\(port)" }

    package var path: String { String(target.prefix { $0 != "?" }) }

    package var query: FormParameters {
        guard let mark = target.firstIndex(of: "?") else { return FormParameters() }
        return FormParameters(decoding: String(target[target.index(after: mark)...]))
    }

    package var description: String { "\(scheme)://\(authority)\(target)" }

    /// Whether `self` is `other` or below it: same origin, and a path that starts with the other's
    /// (how a browser run stops at an app's redirect URI).
    package func isWithin(_ other: BrowserURL) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port && path.hasPrefix(other.path)
    }

    /// A reference that starts with a scheme (RFC 3986 §4.3), not one whose query or path holds a URL
    /// (`/authorize?redirect_uri=http://localhost/cb`).
    package static func isAbsolute(_ reference: String) -> Bool {
        RequestTarget.schemeEnd(reference.utf8) != nil
    }

    /// A reference from a page (a `Location`, a form's `action`) resolved against this URL (RFC 3986 §5.2,
    /// without dot-segment removal: the pages never use them).
    package func resolving(_ reference: String) -> BrowserURL? {
        if Self.isAbsolute(reference) { return BrowserURL(reference) }
        var resolved = self
        if reference.isEmpty { return resolved }
        if reference.hasPrefix("//") { return BrowserURL(scheme + ":" + reference) }
        if reference.hasPrefix("/") {
            resolved.target = reference
        } else if reference.hasPrefix("?") {
            resolved.target = path + reference
        } else if reference.hasPrefix("#") {
            return resolved
        } else {
            let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "/"
            resolved.target = directory + reference
        }
        if let hash = resolved.target.firstIndex(of: "#") { resolved.target = String(resolved.target[..<hash]) }
        return resolved
    }
}
