#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import EntraCrypto
import FoundationGaps

/// How a subcommand reaches a running server (`journal`, `token`): its URL, the CA its certificate is
/// checked against, and the control secret.
struct RunningServerOptions: ParsableArguments {
    @Option(help: "Base URL of the running server.") var url: String?
    @Option(name: .customLong("ready-file"), help: "Read the base URL from the file `serve --ready-file` wrote.") var readyFile: String?
    @Option(help: "Directory of the local CA (ca.pem) the server's certificate is checked against.") var certs: String = CertificateDirectory.defaultPath()
    @Option(name: .customLong("control-secret"), help: "The server's --control-secret (default: $FAKEENTRA_CONTROL_SECRET).") var controlSecret: String?

    func validate() throws {
        if url != nil && readyFile != nil { throw ValidationError("give --url or --ready-file, not both") }
    }

    func client() throws -> ControlClient {
        try ControlClient(baseURL: baseURL(), caPath: CertificateDirectory.absolute(certs).appendingPathComponent("ca.pem"),
                          secret: controlSecret ?? ProcessInfo.processInfo.environment["FAKEENTRA_CONTROL_SECRET"])
    }

    func baseURL() throws -> String {
        if let readyFile {
            guard let text = try? String(contentsOfFile: readyFile, encoding: .utf8),
                  let line = text.split(whereSeparator: \.isNewline).first, !line.isEmpty else {
                throw failure("cannot read a base URL from --ready-file \(readyFile): is `fakeentra serve --ready-file \(readyFile)` running?")
            }
            return String(line)
        }
        return url ?? "https://127.0.0.1:8443"
    }
}

