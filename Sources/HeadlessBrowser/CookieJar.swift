import EntraHTTP

/// The cookies a browser keeps between pages: per host (ports share cookies, as in browsers), set by
/// `Set-Cookie`, removed by `Max-Age=0`. Paths and expiry dates are not modelled: a sign-in lasts seconds.
package struct CookieJar: Sendable {
    private var byHost: [String: [(name: String, value: String)]] = [:]

    package init() {}

    package mutating func store(_ response: [String], from url: BrowserURL) {
        for header in response {
            let parts = header.split(separator: ";").map { String($0.trimmingASCIISpaces()) }
            guard let pair = parts.first, let eq = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<eq]), value = String(pair[pair.index(after: eq)...])
            guard !name.isEmpty else { continue }
            let deletes = parts.dropFirst().contains { $0.lowercased() == "max-age=0" || $0.lowercased().hasPrefix("max-age=-") }
            var cookies = byHost[url.host, default: []].filter { $0.name != name }
            if !deletes { cookies.append((name: name, value: value)) }
            byHost[url.host] = cookies
        }
    }

    /// The `Cookie` header for a request to `url`, nil when there is none.
    package func header(for url: BrowserURL) -> String? {
        guard let cookies = byHost[url.host], !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    package func names(for host: String) -> [String] { byHost[host, default: []].map(\.name) }
}
