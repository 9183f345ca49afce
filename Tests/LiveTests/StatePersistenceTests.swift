import Foundation
import Testing
#if os(Linux)
import Glibc
#endif

/// `serve --state DIR` under `kill -9`: the SQLite store is never corrupt, and every refresh token a client
/// received before the kill still redeems after the restart.
@Suite("Live: --state survives kill -9", .serialized)
struct StatePersistenceTests {
    static let client = "0d3b8b6c-7a4e-4f1d-9c2b-3e5f6a7b8c9d"
    static let tokenPath = "/organizations/oauth2/v2.0/token"
    static let scope = "openid offline_access https://graph.microsoft.com/User.Read"

    /// One curl process sending `forms` one after another on a keep-alive connection.
    func curlArguments(_ server: LiveServer, _ forms: [String]) -> [String] {
        var arguments = ["-sS", "--cacert", server.caPath]
        for (index, form) in forms.enumerated() {
            if index > 0 { arguments.append("--next") }
            arguments += ["--cacert", server.caPath, "-w", "\nstatus=%{http_code}\n", "--data", form, server.url + Self.tokenPath]
        }
        return arguments
    }

    static func passwordGrant() -> String {
        "grant_type=password&client_id=\(client)&username=adele.vance%40contoso.onmicrosoft.com&password=Passw0rd%21&scope=\(scope.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
    }

    static func refreshGrant(_ token: String) -> String {
        "grant_type=refresh_token&client_id=\(client)&refresh_token=\(token)&scope=\(scope.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
    }

    /// The refresh tokens of complete 200 answers in curl's output (a body cut by the kill has no closing quote).
    static func refreshTokens(in output: String) -> [String] {
        output.components(separatedBy: "\"refresh_token\":\"").dropFirst().compactMap { rest in
            guard let end = rest.firstIndex(of: "\"") else { return nil }
            return String(rest[..<end])
        }
    }

    func integrityCheck(_ database: String) async throws -> String {
        try await run("/usr/bin/sqlite3", [database, "PRAGMA integrity_check;"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Redeems every token; returns those that did not answer 200, each with what the server answered
    /// (status and the start of the body), so that a failure says why.
    func unredeemable(_ tokens: [String], on server: LiveServer) async throws -> [(token: String, answer: String)] {
        guard !tokens.isEmpty else { return [] }
        let output = try await run("/usr/bin/curl", curlArguments(server, tokens.map(Self.refreshGrant)), timeout: .seconds(60)).out
        // curlArguments' -w puts "\nstatus=NNN\n" after each body: part i starts with answer i's status and
        // goes on with answer i+1's body.
        let parts = output.components(separatedBy: "status=")
        let answers = parts.indices.dropFirst().map { index in
            (status: parts[index].prefix(3), body: index == 1 ? parts[0][...] : parts[index - 1].dropFirst(4))
        }
        let refused = zip(tokens, answers).filter { $0.1.status != "200" }.map { ($0.0, "\($0.1.status) \($0.1.body.prefix(400))") }
        return refused + tokens.dropFirst(answers.count).map { ($0, "no answer") }
    }

    @Test func killNineDuringLoadNeverCorruptsTheStoreNorLosesAnAnsweredToken() async throws {
        let state = try temporaryDirectory()
        let certs = try await CertificateTemplate.copy()
        let database = state + "/fakeentra.sqlite3"
        var answered: [String] = []
        var previousRun: [String] = []
        var killedServerErrors = ""
        for iteration in 0..<20 {
            let server = try await LiveServer.start(certs: certs, ["--state", state, "--quiet"])
            defer { server.stop() }
            let lost = try await unredeemable(previousRun, on: server)
            #expect(lost.isEmpty, """
                iteration \(iteration): \(lost.count) of \(previousRun.count) tokens answered before the kill no longer redeem \
                (of \(previousRun.count), in order: \(previousRun.map { lost.map(\.token).contains($0) ? "lost" : "ok" })): \
                \(lost.map(\.answer)); the killed server's stderr: \(killedServerErrors)
                """)

            // Load, and kill -9 after a different number of answers each time, while requests are in flight.
            let load = try ChildProcess("/usr/bin/curl", curlArguments(server, Array(repeating: Self.passwordGrant(), count: 40)))
            let threshold = 1 + iteration % 9
            _ = await load.wait(timeout: .seconds(30)) { $0.out.components(separatedBy: "status=200").count > threshold || $0.hasExited }
            server.process.signal(SIGKILL)
            killedServerErrors = await server.process.finish().err
            let output = await load.finish(timeout: .seconds(30)).out
            previousRun = Self.refreshTokens(in: output)
            #expect(previousRun.count >= threshold, "iteration \(iteration): the load got \(previousRun.count) tokens")
            answered += previousRun
            #expect(try await integrityCheck(database) == "ok", "iteration \(iteration)")
        }
        let server = try await LiveServer.start(certs: certs, ["--state", state, "--quiet"])
        defer { server.stop() }
        let lost = try await unredeemable(answered, on: server)
        #expect(lost.isEmpty, "\(lost.count) of \(answered.count) tokens answered before a kill no longer redeem: \(lost.map(\.answer))")
        #expect(answered.count >= 20 * 2)
    }

    @Test func withoutStateNothingIsWrittenAndTokensDoNotSurviveARestart() async throws {
        let certs = try await CertificateTemplate.copy()
        let before = try FileManager.default.contentsOfDirectory(atPath: certs)
        var server = try await LiveServer.start(certs: certs, ["--quiet"])
        let output = try await run("/usr/bin/curl", curlArguments(server, [Self.passwordGrant()])).out
        let token = try #require(Self.refreshTokens(in: output).first)
        _ = await server.terminate()
        server.stop()
        #expect(try FileManager.default.contentsOfDirectory(atPath: certs) == before)
        server = try await LiveServer.start(certs: certs, ["--quiet"])
        defer { server.stop() }
        #expect(try await unredeemable([token], on: server).map(\.token) == [token])
    }

    /// A second server on the same folder stops at start-up naming the first one's pid; an unreadable saved
    /// directory stops start-up with the file and what is wrong, the file untouched; --state-reset starts over.
    @Test func oneServerPerFolderAndNoSilentFreshStart() async throws {
        let certs = try await CertificateTemplate.copy()
        let state = certs + "/state"
        let first = try await LiveServer.start(certs: certs, ["--state", state, "--quiet"])
        let second = try await run(try fakeentraBinary(), ["serve", "--port", "0", "--certs", certs, "--state", state, "--quiet"], timeout: .seconds(30))
        #expect(second.hasExited && second.status == 1, "\(second.err)")
        #expect(second.err.contains("another fakeentra (pid \(first.process.pid)) is serving \(state)"), "\(second.err)")
        _ = await first.terminate()
        first.stop()

        let database = state + "/fakeentra.sqlite3"
        _ = try await run("/usr/bin/sqlite3", [database, "UPDATE directory_rows SET value = substr(value, 1, length(value) - 10) WHERE kind = 'user' AND key = (SELECT key FROM directory_rows WHERE kind = 'user' ORDER BY sequence LIMIT 1)"])
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let refused = try await run(try fakeentraBinary(), ["serve", "--port", "0", "--certs", certs, "--state", state, "--quiet"], timeout: .seconds(30))
        #expect(refused.hasExited && refused.status == 1, "\(refused.err)")
        #expect(refused.err.contains("\(database): the saved directory of world \"default\"") && refused.err.contains("--state-reset"), "\(refused.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)

        let reset = try await LiveServer.start(certs: certs, ["--state", state, "--state-reset", "--quiet"])
        defer { reset.stop() }
        let output = try await run("/usr/bin/curl", curlArguments(reset, [Self.passwordGrant()])).out
        #expect(!Self.refreshTokens(in: output).isEmpty, "\(output)")
    }
    /// `--config` and `--state` together: a secret removed from the file stops working at the next start and
    /// its replacement works; a change the state loses to the file is said on stderr.
    @Test func theConfigurationFileIsTheTruthForWhatItNames() async throws {
        let certs = try await CertificateTemplate.copy()
        let state = certs + "/state"
        let config = certs + "/fakeentra.json"
        let daemon = "5b9d2c7e-1a3f-4e8b-9c6d-7f0a1b2c3d4e"
        func write(secret: String, lee: String) throws {
            let text = """
                {"users": [{"userPrincipalName": "lee.gu@contoso.onmicrosoft.com", "displayName": "\(lee)"}],
                 "apps": [{"clientId": "\(daemon)", "displayName": "Daemon", "secrets": ["\(secret)"]}]}
                """
            try text.write(toFile: config, atomically: true, encoding: .utf8)
        }
        func clientCredentials(_ server: LiveServer, secret: String) async throws -> String {
            let form = "grant_type=client_credentials&client_id=\(daemon)&client_secret=\(secret)&scope=https%3A%2F%2Fgraph.microsoft.com%2F.default"
            return try await run("/usr/bin/curl", ["-sS", "--cacert", server.caPath, "-o", "/dev/null", "-w", "%{http_code}", "--data", form, server.url + "/contoso.onmicrosoft.com/oauth2/v2.0/token"]).out
        }
        try write(secret: "first-secret-value", lee: "Lee Gu")
        let first = try await LiveServer.start(certs: certs, ["--config", config, "--state", state, "--quiet"])
        #expect(try await clientCredentials(first, secret: "first-secret-value") == "200")
        let patched = try await run("/usr/bin/curl", ["-sS", "--cacert", first.caPath, "-o", "/dev/null", "-w", "%{http_code}", "-X", "PATCH", "-H", "Content-Type: application/json",
                                                      "--data", #"{"displayName": "Changed While Serving"}"#, first.url + "/_fakeentra/users/lee.gu@contoso.onmicrosoft.com"]).out
        #expect(patched == "200")
        _ = await first.terminate()
        first.stop()

        try write(secret: "second-secret-value", lee: "Lee Gu (from the file)")
        let second = try await LiveServer.start(certs: certs, ["--config", config, "--state", state, "--quiet"])
        defer { second.stop() }
        #expect(try await clientCredentials(second, secret: "first-secret-value") == "401", "a secret removed from the file no longer works")
        #expect(try await clientCredentials(second, secret: "second-secret-value") == "200")
        await second.waitForLog("the file's version won")
        #expect(second.stderr.contains("--config \(config) and --state \(state): user lee.gu@contoso.onmicrosoft.com: the file's version won"), "\(second.stderr)")
        let lee = try await run("/usr/bin/curl", ["-sS", "--cacert", second.caPath, second.url + "/_fakeentra/users"]).out
        #expect(lee.contains("Lee Gu (from the file)"), "\(lee)")
    }
}
