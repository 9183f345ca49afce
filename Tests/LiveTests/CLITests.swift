import Foundation
import Testing

/// A failed start: a normal non-zero exit (not a signal, not a hang) with `expected` in its message.
private func expectCleanFailure(_ arguments: [String], mentions expected: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let result = try await run(try fakeentraBinary(), arguments, timeout: .seconds(30))
    #expect(!result.err.contains("NSCocoaErrorDomain") && !result.err.contains("Fatal error"), "\(result.err)", sourceLocation: sourceLocation)
    #expect(result.hasExited, "still running: \(arguments)", sourceLocation: sourceLocation)
    #expect(!result.diedOfSignal, "crashed: \(result.err)", sourceLocation: sourceLocation)
    #expect(result.status != 0 && result.status != nil, sourceLocation: sourceLocation)
    for text in expected {
        #expect(result.err.contains(text), "stderr lacks \(text): \(result.err)", sourceLocation: sourceLocation)
    }
    #expect(!result.out.hasPrefix("https://"), "it claimed to be ready", sourceLocation: sourceLocation)
}

@Suite("Bad command-line input")
struct CLITests {
    @Test func portOutOfRangeIsRefused() async throws {
        let certs = try temporaryDirectory()
        try await expectCleanFailure(["serve", "--port", "70000", "--certs", certs], mentions: ["--port must be between 0 and 65535"])
        try await expectCleanFailure(["--port", "-1", "--certs", certs], mentions: ["--port"])
        try await expectCleanFailure(["--http-port", "65536", "--port", "0", "--certs", certs], mentions: ["--http-port must be between 0 and 65535"])
    }

    @Test func nonNumericValuesAreRefused() async throws {
        let certs = try temporaryDirectory()
        try await expectCleanFailure(["--port", "https", "--certs", certs], mentions: ["--port"])
        try await expectCleanFailure(["--port", "0", "--max-body", "0", "--certs", certs], mentions: ["--max-body must be positive"])
        try await expectCleanFailure(["--port", "0", "--header-timeout", "0", "--certs", certs], mentions: ["timeouts must be positive"])
    }

    /// Each of these used to kill the server (Duration overflow on the first idle timer, or an
    /// `Int(x * 1000)` trap at start): now a usage error, exit status 64, before anything listens.
    @Test(arguments: [
        ("--idle-timeout", "2e10"), ("--header-timeout", "1e19"), ("--body-timeout", "1e19"), ("--idle-timeout", "inf"),
        ("--idle-timeout", "nan"), ("--header-timeout", "-3"), ("--body-timeout", "1000001"), ("--idle-timeout", "0.0000001"),
    ])
    func aTimeoutOutOfRangeIsAUsageError(option: String, value: String) async throws {
        let certs = try temporaryDirectory()
        let arguments = ["--port", "0", "--certs", certs, option + "=" + value]
        try await expectCleanFailure(arguments, mentions: [option])
        let result = try await run(try fakeentraBinary(), arguments, timeout: .seconds(30))
        #expect(result.status == 64, "status \(String(describing: result.status)): \(result.err)")
    }

    /// The longest accepted idle timeout arms its timer without overflow and keeps the connection.
    @Test func theLongestTimeoutsAreUsable() async throws {
        let server = try await LiveServer.start(plainHTTP: true, ["--idle-timeout", "1000000", "--header-timeout", "1000000", "--body-timeout", "1000000"])
        defer { server.stop() }
        let answers = try await blocking { () throws -> String in
            let connection = try TCPConnection(port: server.plainPort ?? 0)
            connection.send(rawRequest("GET", "/_fakeentra/health"))
            _ = connection.receive(until: "\"uptimeSeconds\"")
            // The idle timer has been armed between the two requests.
            connection.send(rawRequest("GET", "/_fakeentra/health"))
            return connection.receive(until: "\"uptimeSeconds\"").received
        }
        #expect(statusCodes(in: answers) == [200], "\(answers)")
        #expect(!server.process.snapshot.hasExited)
    }

    @Test func unknownOptionIsRefused() async throws {
        try await expectCleanFailure(["--no-such-option"], mentions: ["--no-such-option"])
    }

    /// We run as root here, so permissions cannot make a directory unreadable: the unusable
    /// certificate directories are a path through a regular file and a file where the directory should be.
    @Test func unusableCertsDirectoryIsRefusedWithAClearMessage() async throws {
        let work = try temporaryDirectory()
        let file = work + "/plain-file"
        try "not a directory".write(toFile: file, atomically: false, encoding: .utf8)
        try await expectCleanFailure(["--port", "0", "--certs", file], mentions: [file])
        try await expectCleanFailure(["--port", "0", "--certs", file + "/Certs"], mentions: [file])
        try await expectCleanFailure(["certs", "--certs", file], mentions: [file])
    }

    @Test func damagedKeyFileIsRefusedOrReplacedButNeverCrashes() async throws {
        let certs = try temporaryDirectory()
        let created = try await run(try fakeentraBinary(), ["certs", "--certs", certs])
        try #require(created.status == 0)
        try "-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n".write(toFile: certs + "/server.key.pem", atomically: false, encoding: .utf8)
        let server = try await LiveServer.start(certs: certs)
        defer { server.stop() }
        // A damaged server key is replaced: a fresh certificate that still verifies.
        let health = try await curl(server, ["/_fakeentra/health"])
        #expect(health.status == 0, "\(health.err)")
    }

    @Test func invalidHostnameIsRefused() async throws {
        let certs = try temporaryDirectory()
        try await expectCleanFailure(["--port", "0", "--certs", certs, "--hostname", "bad name!"], mentions: ["bad name!"])
        try await expectCleanFailure(["certs", "--certs", certs, "--hostname", "*"], mentions: ["'*'"])
    }

    @Test func portInUseIsRefused() async throws {
        let first = try await LiveServer.start()
        defer { first.stop() }
        try await expectCleanFailure(["--port", String(first.port), "--certs", first.certs], mentions: ["Address already in use"])
    }

    @Test func unwritableReadyFileIsRefused() async throws {
        let certs = try temporaryDirectory()
        let file = certs + "/plain-file"
        try "x".write(toFile: file, atomically: false, encoding: .utf8)
        try await expectCleanFailure(["--port", "0", "--certs", certs, "--ready-file", file + "/ready"], mentions: ["--ready-file", file + "/ready"])
        try await expectCleanFailure(["--port", "0", "--certs", certs, "--ready-file", "/nonexistent/dir/ready"],
                                     mentions: ["cannot write --ready-file /nonexistent/dir/ready: No such file or directory"])
    }

    @Test func aNonLoopbackHostNeedsAControlSecret() async throws {
        let certs = try temporaryDirectory()
        try await expectCleanFailure(["--port", "0", "--certs", certs, "--host", "0.0.0.0"], mentions: ["--control-secret"])
        // A name is resolved first: one that does not resolve says so, before anything listens.
        try await expectCleanFailure(["--port", "0", "--certs", certs, "--host", "no.such.host.invalid"], mentions: ["--host no.such.host.invalid: cannot be resolved"])
    }

    @Test func hostThatCannotBeListenedOnIsRefused() async throws {
        let certs = try await CertificateTemplate.copy()
        try await expectCleanFailure(["--port", "0", "--certs", certs, "--host", "no.such.host.invalid", "--control-secret", "s"], mentions: ["no.such.host.invalid"])
        // A documentation address (RFC 5737) is on no interface here.
        try await expectCleanFailure(["--port", "0", "--certs", certs, "--host", "192.0.2.1", "--control-secret", "s"], mentions: ["192.0.2.1"])
    }

    @Test func helpListsTheServeOptions() async throws {
        let result = try await run(try fakeentraBinary(), ["serve", "--help"])
        #expect(result.status == 0)
        for option in ["--port", "--host", "--http-port", "--certs", "--hostname", "--ready-file", "--strict", "--auto-login",
                       "--header-timeout", "--idle-timeout", "--max-body", "--quiet"] {
            #expect(result.out.contains(option), "help lacks \(option)")
        }
    }
}
