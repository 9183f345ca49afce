#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import EntraServer
import FoundationGaps
import Synchronization

/// The CONNECT relay of a conformance run. External ID cases name their tenant's real authority
/// (`https://{subdomain}.ciamlogin.com/`), so that tokens carry the service's issuer form; the adapter
/// reaches the run's server at that name through this relay, given to it as `HTTPS_PROXY`.
final class ConformanceRelay: Sendable {
    static let servedSuffix = ".ciamlogin.com"
    /// The certificate name the server needs for the relayed names.
    static let servedSuffixWildcard = "*" + servedSuffix

    private let relay: ConnectRelay
    private let trust: TLSClientTrust
    /// Per relayed host: nil when the server answered TLS for it, else why not (checked once).
    private let reachability = Mutex<[String: String?]>([:])

    init(server: (host: String, port: Int), certificateAuthority: String) throws {
        let upstream = server
        relay = try ConnectRelay { host, port in
            host.hasSuffix(Self.servedSuffix) && port == 443 ? upstream : nil
        }
        trust = try TLSClientTrust(caFile: certificateAuthority)
    }

    /// Whether `authority` is one of the names the relay carries.
    static func relays(authority: String) -> Bool {
        guard let host = URLComponents(string: authority)?.host?.lowercased() else { return false }
        return host.hasSuffix(servedSuffix)
    }

    /// `inherited` with the proxy variables curl, Python's requests, Go, .NET and `fakeentra browse` read;
    /// loopback (the app's redirect listener, Graph at the server's own address) stays direct.
    func environment(_ inherited: [String: String]) -> [String: String] {
        var environment = inherited
        let bypass = (["localhost", "127.0.0.1", "::1"] + (inherited["NO_PROXY"] ?? inherited["no_proxy"] ?? "").split(separator: ",").map(String.init))
            .joined(separator: ",")
        for name in ["HTTPS_PROXY", "https_proxy"] { environment[name] = relay.url }
        for name in ["NO_PROXY", "no_proxy"] { environment[name] = bypass }
        return environment
    }

    /// Why the server cannot be reached at `authority`'s name through the relay (its certificate does
    /// not name it, say), or nil when it answers there.
    func problem(reaching authority: String) -> String? {
        guard let host = URLComponents(string: authority)?.host?.lowercased() else { return "\(authority) is not a URL" }
        if let known = reachability.withLock({ $0[host] }) { return known }
        let client = BlockingHTTPClient(trust: trust, timeoutSeconds: 10, httpsProxy: HTTPSProxy(host: "127.0.0.1", port: relay.port))
        var problem: String?
        do {
            _ = try client.exchange(secure: true, host: host, port: 443, method: "GET", target: "/")
        } catch {
            problem = "the server cannot be reached as \(host) (\(error)); a server started by hand must serve that name: `fakeentra serve --hostname '\(Self.servedSuffixWildcard)'`"
        }
        reachability.withLock { $0[host] = problem }
        return problem
    }

    func stop() { relay.stop() }
}
