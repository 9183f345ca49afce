import EntraHTTP
import EntraServer
import FoundationGaps
package import IdentityPlatform

/// Custom authentication extensions reached over HTTP(S): one connection per attempt, the extension's
/// timeout over the whole exchange, the answer's size bounded. https endpoints are verified against the
/// CA bundle named by `SSL_CERT_FILE`, else the system's, as OpenSSL-based clients do.
package struct ExtensionHTTPTransport: ExtensionTransport {
    /// Read once: a missing or unreadable bundle makes every https callout a connection error that says so.
    private static let systemTrust: Result<TLSClientTrust, TLSError> = {
        let environment = ProcessInfo.processInfo.environment["SSL_CERT_FILE"]
        let candidates = [environment, "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"].compactMap { $0 }
        let path = candidates.first { FileManager.default.isReadableFile(atPath: $0) } ?? candidates[0]
        do throws(TLSError) { return .success(try TLSClientTrust(caFile: path)) } catch { return .failure(error) }
    }()

    package init() {}

    package func post(to endpoint: ExtensionEndpoint, headers: [(String, String)], body: [UInt8], timeout: Duration) -> ExtensionTransportResult {
        var client = BlockingHTTPClient(trust: nil)
        if endpoint.secure {
            switch Self.systemTrust {
            case .success(let trust): client.trust = trust
            case .failure(let error): return .unreachable("no CA bundle to verify \(endpoint.host) with: \(error)")
            }
        }
        client.deadline = timeout
        client.largestResponse = ExtensionCallout.largestResponse
        let started = ContinuousClock.now
        do {
            let response = try client.exchange(secure: endpoint.secure, host: endpoint.host, port: endpoint.port, method: "POST",
                                               target: endpoint.target, headers: headers, body: body)
            return .answered(status: response.status.code, contentType: response.headers["Content-Type"], body: response.body)
        } catch {
            if error.isTooLarge { return .tooLarge }
            // A connect that the send timeout cut short reports EINPROGRESS, not a timeout.
            if error.isTimeout || started.duration(to: .now) >= timeout { return .timedOut }
            return .unreachable(error.description)
        }
    }
}
