#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import FoundationGaps
import LocatedJSON

/// Talks to a running server's control API over HTTPS, trusting only FakeEntra's local CA.
///
/// swift-corelibs-foundation's URLSession cannot be given a CA on Linux (it reads
/// `URLSessionCertificateAuthorityInfoFile` only on Android, and never asks a delegate about server
/// trust), so requests go through curl with `--cacert`: the certificate is verified, not ignored.
struct ControlClient {
    let baseURL: String
    let caPath: String?
    /// Sent as `Authorization: Bearer` when the server was started with `--control-secret`.
    let secret: String?

    init(baseURL: String, caPath: String, secret: String?) throws {
        self.secret = secret
        let trimmed = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", components.host != nil else {
            throw failure("\(baseURL) is not an http(s) URL")
        }
        self.baseURL = trimmed
        if scheme == "https" {
            guard FileManager.default.isReadableFile(atPath: caPath) else {
                throw failure("no CA certificate at \(caPath): give the --certs directory `fakeentra serve` uses")
            }
            self.caPath = caPath
        } else {
            self.caPath = nil
        }
    }

    /// The response body; any other status than `expecting`, or no answer, is a one-line failure.
    /// `body`: JSON sent with `Content-Type: application/json`.
    func send(_ method: String, _ path: String, query: [(String, String)], body: String? = nil, expecting: Int) throws -> String {
        var components = URLComponents(string: baseURL + path)!
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        let url = components.url!.absoluteString
        var arguments = ["curl", "--silent", "--show-error", "--max-time", "30", "--request", method, "--write-out", "\n%{http_code}"]
        if let caPath { arguments += ["--cacert", caPath] }
        // The secret goes through curl's config on stdin, never through its (world-readable) arguments.
        arguments += ["--config", "-", url]

        var config = secret.map { "header = \"Authorization: Bearer \(Self.configEscaped($0))\"\n" } ?? ""
        if let body { config += "header = \"Content-Type: application/json\"\ndata-binary = \"\(Self.configEscaped(body))\"\n" }
        let outcome: ChildProcess.Outcome
        do { outcome = try ChildProcess.run(arguments, input: Data(config.utf8)) } catch { throw failure("cannot run curl: \(error.localizedDescription)") }
        let output = String(decoding: outcome.output, as: UTF8.self)
        let errors = String(decoding: outcome.errors, as: UTF8.self)

        switch outcome.status {
        case 0: break
        case 127: throw failure("fakeentra needs curl to reach a running server (apt-get install curl)")
        case 7: throw failure("cannot connect to \(baseURL): is `fakeentra serve` running there?")
        case 28: throw failure("\(baseURL) did not answer within 30 seconds")
        case 35, 51, 58, 60, 77, 83, 90:
            throw failure("TLS with \(baseURL) failed against the CA \(caPath ?? "-"): \(Self.firstLine(errors)) (is it the --certs directory of that server?)")
        default: throw failure("request to \(url) failed: \(Self.firstLine(errors))")
        }
        guard let split = output.lastIndex(of: "\n"), let status = Int(output[output.index(after: split)...]) else {
            throw failure("no HTTP answer from \(url)")
        }
        let body = String(output[..<split])
        guard status == expecting else {
            let hint = status == 401 ? " (give the server's --control-secret)" : ""
            throw failure("\(method) \(url) answered \(status)\(Self.errorMessage(body).map { ": " + $0 } ?? "")\(hint)")
        }
        return body
    }

    /// The message of either error shape the control API uses: `{"message"}` or `{"error": {"message"}}`.
    /// Read leniently, as whatever a server answered: the message is wanted even from imperfect JSON.
    static func errorMessage(_ body: String) -> String? {
        guard let object = LocatedJSON.object(lenientBody: body.utf8) else { return nil }
        return object["message"]?.string ?? object["error"]?["message"]?.string
    }

    static func configEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    static func firstLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "unknown error"
    }
}
