#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import EntraCrypto
import EntraHTTP
import EntraServer
import FoundationGaps

/// `fakeentra health`: a running server's `/_fakeentra/health`, over FakeEntra's own HTTP client, so an
/// image without curl or a shell can use it as its health check.
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Ask a running server whether it is healthy: exit 0 when it answers 200, 1 otherwise.",
        discussion: "The server is --url, else $FAKEENTRA_URL, else https://127.0.0.1 on $FAKEENTRA_PORT (default 8443); its certificate is checked against the ca.pem of --certs."
    )

    @Option(help: "Base URL of the server (default: $FAKEENTRA_URL, else https://127.0.0.1:$FAKEENTRA_PORT or :8443).") var url: String?
    @Option(help: "Directory of the local CA (ca.pem) the server's certificate is checked against.") var certs: String = CertificateDirectory.defaultPath()
    @Option(help: "Seconds to wait for the answer.") var timeout: Int = 5

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let base = url ?? environment["FAKEENTRA_URL"] ?? "https://127.0.0.1:\(environment["FAKEENTRA_PORT"].flatMap { Int($0) } ?? 8443)"
        guard let components = URLComponents(string: base), let scheme = components.scheme, ["http", "https"].contains(scheme), let host = components.host else {
            throw ValidationError("--url \(base): not an http(s) URL")
        }
        let secure = scheme == "https"
        let caPath = CertificateDirectory.absolute(certs).appendingPathComponent("ca.pem")
        do {
            let trust = secure ? try TLSClientTrust(caFile: caPath) : nil
            let client = BlockingHTTPClient(trust: trust, timeoutSeconds: max(1, timeout))
            let response = try client.exchange(secure: secure, host: host, port: components.port ?? (secure ? 443 : 80), method: "GET",
                                               target: "/_fakeentra/health", headers: [("Accept", "application/json")], body: [])
            print(String(decoding: response.body, as: UTF8.self))
            guard response.status.code == 200 else { throw ExitCode(1) }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            FileHandle.standardError.write(Data("fakeentra health: \(base): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
