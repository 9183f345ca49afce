import EntraHTTP
@testable import EntraServer
import Foundation
import Testing
import TestSupport

/// The CONNECT relay and the client's tunnel through it: a name the relay routes reaches the server with
/// TLS verified for that name; anything else is refused and recorded, never connected.
@Suite struct ConnectRelayTests {
    /// A self-signed certificate for one `*.ciamlogin.com` name, made once per test process.
    static let relayed: TLSConfiguration = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entraserver-relay-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
        if !FileManager.default.fileExists(atPath: key) {
            _ = try? run(OpenSSLTool.path, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=woodgrove.ciamlogin.com",
                                            "-addext", "subjectAltName=DNS:*.ciamlogin.com", "-keyout", key, "-out", certificate])
        }
        return TLSConfiguration(certificateChainPath: certificate, privateKeyPath: key)
    }()

    func client(through relay: ConnectRelay) throws -> BlockingHTTPClient {
        BlockingHTTPClient(trust: try TLSClientTrust(caFile: Self.relayed.certificateChainPath), timeoutSeconds: 5,
                           httpsProxy: HTTPSProxy(host: "127.0.0.1", port: relay.port))
    }

    @Test func aRoutedNameReachesTheServerWithItsTLSName() async throws {
        try await withServer(tls: Self.relayed, plain: false) { server in
            let port = server.tlsPort
            let relay = try ConnectRelay { host, targetPort in host.hasSuffix(".ciamlogin.com") && targetPort == 443 ? ("127.0.0.1", port) : nil }
            defer { relay.stop() }
            let response = try client(through: relay).exchange(secure: true, host: "woodgrove.ciamlogin.com", port: 443, method: "GET", target: "/hello")
            #expect(response.status.code == 200 && response.bodyText == "hello")
            #expect(relay.refusedTargets.isEmpty)
        }
    }

    @Test func anythingElseIsRefusedAndRecorded() async throws {
        let relay = try ConnectRelay { _, _ in nil }
        defer { relay.stop() }
        #expect(throws: HTTPClientError.self) {
            _ = try client(through: relay).exchange(secure: true, host: "login.microsoftonline.com", port: 443, method: "GET", target: "/")
        }
        let raw = try RawClient(port: relay.port)
        try raw.send("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(raw.readResponse()?.status == 405)
        #expect(relay.refusedTargets == ["login.microsoftonline.com:443", "GET http://example.com/ HTTP/1.1"])
    }

    @Test func aHeadPastTheLimitIsRefused() throws {
        var limits = ConnectRelay.Limits()
        limits.headBytes = 64
        let relay = try ConnectRelay(limits: limits) { _, _ in ("127.0.0.1", 9) }
        defer { relay.stop() }
        let raw = try RawClient(port: relay.port)
        try raw.send("CONNECT woodgrove.ciamlogin.com:443 HTTP/1.1\r\nX-Padding: \(String(repeating: "a", count: 100))\r\n\r\n")
        #expect(raw.readResponse()?.status == 431)
    }

    @Test func tunnelsPastTheCapAreRefused() async throws {
        try await withServer(tls: Self.relayed, plain: false) { server in
            var limits = ConnectRelay.Limits()
            limits.connections = 1
            let port = server.tlsPort
            let relay = try ConnectRelay(limits: limits) { _, _ in ("127.0.0.1", port) }
            defer { relay.stop() }
            let first = try RawClient(port: relay.port)
            try first.send("CONNECT a.ciamlogin.com:443 HTTP/1.1\r\n\r\n")
            #expect(first.readResponse()?.status == 200)
            let second = try RawClient(port: relay.port)
            #expect(second.readResponse()?.status == 503)
        }
    }

    @Test func theProxyIsReadFromTheEnvironmentAsCurlReadsIt() {
        let proxy = HTTPSProxy(environment: ["https_proxy": "http://127.0.0.1:3128/", "NO_PROXY": "graph.example, .internal.example"])
        #expect(proxy == HTTPSProxy(host: "127.0.0.1", port: 3128, bypass: ["graph.example", ".internal.example"]))
        #expect(proxy?.applies(to: "woodgrove.ciamlogin.com") == true)
        #expect(proxy?.applies(to: "GRAPH.example") == false)
        #expect(proxy?.applies(to: "a.internal.example") == false)
        #expect(proxy?.applies(to: "localhost") == false && proxy?.applies(to: "127.0.0.1") == false)
        #expect(HTTPSProxy(environment: ["HTTPS_PROXY": "not a url"]) == nil)
        #expect(HTTPSProxy(environment: [:]) == nil)
        #expect(HTTPSProxy(environment: ["HTTPS_PROXY": "http://[::1]:8080", "no_proxy": "*"])?.applies(to: "x.ciamlogin.com") == false)
    }
}
