import Foundation
import Testing

/// What an image needs of the binary: `serve` configured by FAKEENTRA_* variables (the command line
/// winning), and `health` as a health check with nothing but the binary.
@Suite("Live: FAKEENTRA_* configuration and the health command")
struct ContainerCLITests {
    func environment(_ values: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.hasPrefix("FAKEENTRA_") && name != "FAKEENTRA_BINARY" && name != "FAKEENTRA_EVENT_BACKEND" {
            environment[name] = nil
        }
        return environment.merging(values) { $1 }
    }

    /// The status the control API answers at `url` to `secret` (none: no Authorization header).
    func controlStatus(_ url: String, certs: String, secret: String?) async throws -> String {
        let authorization = secret.map { ["-H", "Authorization: Bearer \($0)"] } ?? []
        return try await run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", certs + "/ca.pem"] + authorization + [url + "/_fakeentra/bindings"]).out
    }

    @Test func variablesConfigureServeAndTheCommandLineWins() async throws {
        let certs = try await CertificateTemplate.copy()
        let process = try ChildProcess(try fakeentraBinary(), ["serve", "--certs", certs],
                                       environment: environment(["FAKEENTRA_PORT": "0", "FAKEENTRA_HOST": "127.0.0.1", "FAKEENTRA_CONTROL_SECRET": "from-the-environment",
                                                                 "FAKEENTRA_AUTO_LOGIN": "1", "FAKEENTRA_QUIET": "true"]))
        defer { process.kill() }
        let started = await process.wait(timeout: .seconds(30)) { $0.out.contains("\n") || $0.hasExited }
        let url = try #require(started.out.split(separator: "\n").first.map(String.init), "\(started.err)")
        #expect(url.hasPrefix("https://127.0.0.1:") && !url.hasSuffix(":8443"), "FAKEENTRA_PORT=0 picked a free port: \(url)")
        #expect(try await controlStatus(url, certs: certs, secret: nil) == "401", "the secret came from FAKEENTRA_CONTROL_SECRET")
        #expect(try await controlStatus(url, certs: certs, secret: "from-the-environment") == "200")

        let health = try await run(try fakeentraBinary(), ["health", "--url", url, "--certs", certs])
        #expect(health.status == 0 && health.out.contains("\"status\":\"ok\""), "\(health.out)\(health.err)")

        // The command line wins over the variable.
        let explicit = try ChildProcess(try fakeentraBinary(), ["serve", "--certs", certs, "--port", "0", "--control-secret", "from-the-command-line"],
                                        environment: environment(["FAKEENTRA_PORT": "8443", "FAKEENTRA_CONTROL_SECRET": "from-the-environment"]))
        defer { explicit.kill() }
        let second = await explicit.wait(timeout: .seconds(30)) { $0.out.contains("\n") || $0.hasExited }
        let secondURL = try #require(second.out.split(separator: "\n").first.map(String.init), "\(second.err)")
        #expect(try await controlStatus(secondURL, certs: certs, secret: "from-the-command-line") == "200")
    }

    @Test func aSecretThatStartsWithADashIsTheSecret() async throws {
        // token_urlsafe-style secrets start with "-" one time in 64; read as an option, serve refused them.
        let certs = try await CertificateTemplate.copy()
        let process = try ChildProcess(try fakeentraBinary(), ["serve", "--certs", certs],
                                       environment: environment(["FAKEENTRA_PORT": "0", "FAKEENTRA_CONTROL_SECRET": "-dash-first", "FAKEENTRA_QUIET": "1"]))
        defer { process.kill() }
        let started = await process.wait(timeout: .seconds(30)) { $0.out.contains("\n") || $0.hasExited }
        let url = try #require(started.out.split(separator: "\n").first.map(String.init), "\(started.err)")
        #expect(try await controlStatus(url, certs: certs, secret: "-dash-first") == "200")
    }

    @Test func badVariablesAreNamedAndAListeningHostStillNeedsTheSecret() async throws {
        let port = try await run(try fakeentraBinary(), ["serve"], environment: environment(["FAKEENTRA_PORT": "eighty"]))
        #expect(port.status == 64 && port.err.contains("FAKEENTRA_PORT=eighty: not a port number"), "\(port.err)")
        let help = try await run(try fakeentraBinary(), ["serve", "--help"], environment: environment(["FAKEENTRA_PORT": "eighty"]))
        #expect(help.status == 0 && help.out.contains("--port"), "help is shown whatever the variables say: \(help.err)")
        let flag = try await run(try fakeentraBinary(), ["serve"], environment: environment(["FAKEENTRA_AUTO_LOGIN": "maybe"]))
        #expect(flag.status == 64 && flag.err.contains("FAKEENTRA_AUTO_LOGIN=maybe"), "\(flag.err)")
        let open = try await run(try fakeentraBinary(), ["serve", "--port", "0"], environment: environment(["FAKEENTRA_HOST": "0.0.0.0"]))
        #expect(open.status != 0 && open.err.contains("--control-secret is required"), "\(open.err)")
    }

    @Test func healthFailsWhenNothingAnswers() async throws {
        let certs = try await CertificateTemplate.copy()
        let result = try await run(try fakeentraBinary(), ["health", "--url", "https://127.0.0.1:1", "--certs", certs, "--timeout", "2"])
        #expect(result.status == 1 && result.err.contains("fakeentra health: https://127.0.0.1:1"), "\(result.err)")
    }
}
