import Foundation
import Testing

/// `fakeentra scenarios|journal|replay|schema`, run as the real binary.
@Suite("CLI subcommands")
struct CLISubcommandTests {
    func fakeentra(_ arguments: [String], timeout: Duration = .seconds(30)) async throws -> ChildProcess.Snapshot {
        let result = try await run(try fakeentraBinary(), arguments, timeout: timeout)
        #expect(result.hasExited && !result.diedOfSignal, "\(arguments): \(result.err)")
        #expect(!result.err.contains("Fatal error"), "\(result.err)")
        return result
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: scenarios

    @Test func theShippedLibraryValidates() async throws {
        let result = try await fakeentra(["scenarios", "validate"])
        #expect(result.status == 0, "\(result.out)\(result.err)")
        let line = result.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.range(of: #"^[0-9]+ scenarios valid$"#, options: .regularExpression) != nil, "\(line)")
        #expect((Int(line.split(separator: " ")[0]) ?? 0) >= 25)
    }

    @Test func aBrokenFileIsReportedWithLineAndColumn() async throws {
        let directory = try temporaryDirectory()
        let file = directory + "/broken.json"
        // Line 3, column 18 is the value of "description"; line 6 column 7 the unknown member.
        let text = """
        {
          "name": "broken-example",
          "description": 42,
          "rules": [
            { "match": { "endpoint": "token" }, "action": { "serviceError": { "status": 503 } },
              "sometimes": true }
          ]
        }

        """
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await fakeentra(["scenarios", "validate", file])
        #expect(result.status == 1)
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("\(file):3:18: ") && $0.contains("description") }, "\(result.out)")
        #expect(lines.contains { $0.hasPrefix("\(file):6:7: ") && $0.contains("sometimes") }, "\(result.out)")
        #expect(result.err.contains("problem(s) in 1 file(s)"))

        // The same folder given as --scenarios breaks the whole set, as it would break `serve`.
        let withFolder = try await fakeentra(["scenarios", "validate", "--scenarios", directory])
        #expect(withFolder.status == 1 && withFolder.out.contains("\(file):3:18: "))
        let unreadable = try await fakeentra(["scenarios", "validate", directory + "/missing.json"])
        #expect(unreadable.status == 1 && unreadable.out.contains("missing.json"))
    }

    @Test func listShowsNameAndSummaryAligned() async throws {
        let directory = try temporaryDirectory()
        try """
        {"name": "my-own-scenario", "description": "A user's own scenario. Second sentence not listed.",
         "rules": [{"match": {"endpoint": "token"}, "action": {"serviceError": {"status": 503, "retryAfter": 1}}}]}
        """.write(toFile: directory + "/mine.json", atomically: true, encoding: .utf8)
        let result = try await fakeentra(["scenarios", "list", "--scenarios", directory])
        #expect(result.status == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n").map(String.init)
        #expect(lines.count >= 26)
        let mine = try #require(lines.first { $0.hasPrefix("my-own-scenario ") })
        #expect(mine.hasSuffix("  A user's own scenario."))
        #expect(lines.contains { $0.hasPrefix("b2c-cancel ") })
        // Summaries start in one column.
        let columns = Set(lines.map { line in line.distance(from: line.startIndex, to: line.range(of: #"  +[^ ]"#, options: .regularExpression)!.upperBound) })
        #expect(columns.count == 1, "\(columns)")
        #expect(lines.map { String($0.prefix { $0 != " " }) } == lines.map { String($0.prefix { $0 != " " }) }.sorted())
    }

    // MARK: replay

    /// A capture as browser dev tools save it: MSAL's silent refresh refused because the refresh token
    /// expired (AADSTS700082, the documented wording), then the interactive sign-in's code redemption
    /// throttled with 429 and Retry-After, plus the app's own API call, which replay ignores.
    static let capturedHAR = #"""
    {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [], "entries": [
      {"startedDateTime": "2026-03-02T08:15:04.120Z", "time": 212.4,
       "request": {"method": "POST", "url": "https://login.microsoftonline.com/organizations/oauth2/v2.0/token", "httpVersion": "HTTP/2",
         "headers": [{"name": "content-type", "value": "application/x-www-form-urlencoded"}, {"name": "x-client-sku", "value": "MSAL.JS"}],
         "queryString": [], "cookies": [],
         "postData": {"mimeType": "application/x-www-form-urlencoded", "text": "client_id=e1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607&scope=openid%20profile%20offline_access&grant_type=refresh_token&refresh_token=0.AXkAbc"},
         "headersSize": -1, "bodySize": 143},
       "response": {"status": 400, "statusText": "Bad Request", "httpVersion": "HTTP/2",
         "headers": [{"name": "content-type", "value": "application/json; charset=utf-8"}, {"name": "x-ms-request-id", "value": "5b7f3a52-8e1d-4c3e-9f0a-6d2b1c4e8f00"}],
         "cookies": [],
         "content": {"size": 520, "mimeType": "application/json", "text": "{\"error\":\"invalid_grant\",\"error_description\":\"AADSTS700082: The refresh token has expired due to inactivity. The token was issued on 2025-11-20T10:12:31.0000000Z and was inactive for 90.00:00:00. Trace ID: 5b7f3a52-8e1d-4c3e-9f0a-6d2b1c4e8f00 Correlation ID: 0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f Timestamp: 2026-03-02 08:15:04Z\",\"error_codes\":[700082],\"timestamp\":\"2026-03-02 08:15:04Z\",\"trace_id\":\"5b7f3a52-8e1d-4c3e-9f0a-6d2b1c4e8f00\",\"correlation_id\":\"0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f\",\"error_uri\":\"https://login.microsoftonline.com/error?code=700082\"}"},
         "redirectURL": "", "headersSize": -1, "bodySize": 520},
       "cache": {}, "timings": {"send": 0.2, "wait": 210.1, "receive": 2.1}},
      {"startedDateTime": "2026-03-02T08:15:09.501Z", "time": 95.0,
       "request": {"method": "POST", "url": "https://login.microsoftonline.com/organizations/oauth2/v2.0/token", "httpVersion": "HTTP/2",
         "headers": [{"name": "content-type", "value": "application/x-www-form-urlencoded"}],
         "queryString": [], "cookies": [],
         "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "client_id", "value": "e1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607"}, {"name": "grant_type", "value": "authorization_code"}, {"name": "code", "value": "0.AXkA-code"}, {"name": "redirect_uri", "value": "http://localhost:3000"}]},
         "headersSize": -1, "bodySize": 120},
       "response": {"status": 429, "statusText": "Too Many Requests", "httpVersion": "HTTP/2",
         "headers": [{"name": "retry-after", "value": "30"}, {"name": "content-type", "value": "application/json; charset=utf-8"}],
         "cookies": [], "content": {"size": 0, "mimeType": "application/json"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
       "cache": {}, "timings": {"send": 0.1, "wait": 94.0, "receive": 0.9}},
      {"startedDateTime": "2026-03-02T08:15:10.000Z", "time": 12.0,
       "request": {"method": "GET", "url": "https://api.contoso.example/orders", "httpVersion": "HTTP/2", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
       "response": {"status": 401, "statusText": "Unauthorized", "httpVersion": "HTTP/2", "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
       "cache": {}, "timings": {"send": 0, "wait": 12, "receive": 0}}
    ]}}
    """#

    @Test func aHandWrittenCaptureBecomesAScenarioThatValidatesAndPlays() async throws {
        let directory = try temporaryDirectory()
        let capture = directory + "/Expired Refresh (1).har"
        try Self.capturedHAR.write(toFile: capture, atomically: true, encoding: .utf8)

        let printed = try await fakeentra(["replay", capture])
        #expect(printed.status == 0, "\(printed.err)")
        let scenario = try json(printed.out)
        #expect(scenario["name"] as? String == "expired-refresh-1")
        let rules = try #require(scenario["rules"] as? [[String: Any]])
        #expect(rules.count == 2, "the app's own API call is not replayed")
        let first = try #require(rules.first)
        #expect((first["match"] as? [String: Any])?["grantType"] as? String == "refresh_token")
        let refusal = try #require((first["action"] as? [String: Any])?["oauthError"] as? [String: Any])
        #expect(refusal["error"] as? String == "invalid_grant" && refusal["code"] as? String == "AADSTS700082")
        let throttle = try #require((rules[1]["action"] as? [String: Any])?["serviceError"] as? [String: Any])
        #expect(throttle["status"] as? Int == 429 && throttle["retryAfter"] as? Int == 30)
        #expect(!printed.out.contains("0.AXkA"), "captured codes and tokens are not copied")

        let scenarios = directory + "/scenarios"
        try FileManager.default.createDirectory(atPath: scenarios, withIntermediateDirectories: true)
        let written = try await fakeentra(["replay", capture, "--name", "expired-then-throttled", "-o", scenarios + "/replayed.json"])
        #expect(written.status == 0 && written.out.isEmpty, "\(written.err)")
        let validated = try await fakeentra(["scenarios", "validate", scenarios + "/replayed.json"])
        #expect(validated.status == 0 && validated.out == "1 scenario valid\n", "\(validated.out)")

        // The server plays it: the first refresh is refused with the captured code.
        let server = try await LiveServer.start(["--scenarios", scenarios, "--scenario", "expired-then-throttled", "--quiet"])
        defer { server.stop() }
        let refresh = try await curl(server, ["/organizations/oauth2/v2.0/token"], ["-d", "client_id=e1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607&grant_type=refresh_token&refresh_token=anything&scope=openid"])
        #expect(refresh.out.contains("\"invalid_grant\"") && refresh.out.contains("AADSTS700082"), "\(refresh.out)")
    }

    @Test func replayRefusesWhatIsNotACapture() async throws {
        let directory = try temporaryDirectory()
        let missing = try await fakeentra(["replay", directory + "/none.har"])
        #expect(missing.status == 1 && missing.err == "fakeentra: cannot read \(directory)/none.har: no such file\n", "\(missing.err)")
        try "{\"log\": 3}".write(toFile: directory + "/bad.har", atomically: true, encoding: .utf8)
        let bad = try await fakeentra(["replay", directory + "/bad.har"])
        #expect(bad.status == 1 && bad.err.contains("bad.har: not a HAR file"), "\(bad.err)")
        try "{\"log\": {\"entries\": []}}".write(toFile: directory + "/empty.har", atomically: true, encoding: .utf8)
        let empty = try await fakeentra(["replay", directory + "/empty.har"])
        #expect(empty.status == 1 && empty.err.contains("no request to login.microsoftonline.com"), "\(empty.err)")
        let badName = try await fakeentra(["replay", directory + "/empty.har", "--name", "Not Kebab"])
        #expect(badName.status == 1)
    }

    // MARK: journal

    @Test func theJournalOfARunningServerIsPrintedExportedAndReplayed() async throws {
        let server = try await LiveServer.start(["--quiet"])
        defer { server.stop() }
        let common = ["--ready-file", server.readyFile, "--certs", server.certs]
        try await curl(server, ["/common/v2.0/.well-known/openid-configuration"], ["-o", "/dev/null"])
        let refused = try await curl(server, ["/common/oauth2/v2.0/token"], ["-d", "grant_type=refresh_token&client_id=e1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607&refresh_token=secret-refresh-value&scope=openid"])
        #expect(refused.out.contains("invalid_grant"))

        let printed = try await fakeentra(["journal"] + common)
        #expect(printed.status == 0, "\(printed.err)")
        let lines = printed.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(printed.out)")
        let tokenLine = try #require(lines.last)
        #expect(tokenLine.range(of: #"^\d\d:\d\d:\d\d\.\d\d\d +token +POST +/common/oauth2/v2\.0/token +400 +[0-9.]+ ms$"#, options: .regularExpression) != nil, "\(tokenLine)")

        let filtered = try await fakeentra(["journal", "--url", server.url, "--certs", server.certs, "--kind", "token", "--status", "4xx"])
        #expect(filtered.out.split(separator: "\n").count == 1)

        let harFile = try temporaryDirectory() + "/journal.har"
        let exported = try await fakeentra(["journal", "--har", harFile] + common)
        #expect(exported.status == 0 && exported.out == "2 entries written to \(harFile)\n", "\(exported.out)\(exported.err)")
        let harText = try String(contentsOfFile: harFile, encoding: .utf8)
        #expect(!harText.contains("secret-refresh-value"))
        let log = try #require(try json(harText)["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2" && (log["creator"] as? [String: Any])?["name"] as? String == "FakeEntra")
        let url = (((log["entries"] as? [[String: Any]])?.last)?["request"] as? [String: Any])?["url"] as? String
        #expect(url == server.url + "/common/oauth2/v2.0/token")

        let toStandardOutput = try await fakeentra(["journal", "--har", "-"] + common)
        #expect(toStandardOutput.status == 0)
        let streamedLog = try json(toStandardOutput.out)["log"] as? [String: Any]
        #expect(streamedLog?["version"] as? String == "1.2")

        let replayed = try await fakeentra(["replay", harFile, "--name", "from-journal"])
        #expect(replayed.status == 0, "\(replayed.err)")
        let rules = try #require(try json(replayed.out)["rules"] as? [[String: Any]])
        #expect(rules.count == 2)
        #expect((rules.last?["action"] as? [String: Any])?["oauthError"] != nil)
        let scenarioFile = try temporaryDirectory() + "/from-journal.json"
        try replayed.out.write(toFile: scenarioFile, atomically: true, encoding: .utf8)
        #expect(try await fakeentra(["scenarios", "validate", scenarioFile]).status == 0)

        let cleared = try await fakeentra(["journal", "--clear"] + common)
        #expect(cleared.status == 0 && cleared.out.split(separator: "\n").count == 2)
        let empty = try await fakeentra(["journal"] + common)
        #expect(empty.status == 0 && empty.out.isEmpty && empty.err.contains("no journal entries"))
    }

    @Test func journalErrorsAreOneClearLine() async throws {
        let nowhere = try await LiveServer.start(["--quiet"])
        let certs = nowhere.certs
        let url = nowhere.url
        nowhere.stop()
        _ = await nowhere.process.finish(timeout: .seconds(20))
        let down = try await fakeentra(["journal", "--url", url, "--certs", certs])
        #expect(down.status == 1 && down.err == "fakeentra: cannot connect to \(url): is `fakeentra serve` running there?\n", "\(down.err)")

        let server = try await LiveServer.start(["--quiet"])
        defer { server.stop() }
        let otherCA = try temporaryDirectory()
        #expect(try await fakeentra(["certs", "--certs", otherCA]).status == 0)
        let wrongCA = try await fakeentra(["journal", "--url", server.url, "--certs", otherCA])
        #expect(wrongCA.status == 1 && wrongCA.err.hasPrefix("fakeentra: TLS with \(server.url) failed") && wrongCA.err.split(separator: "\n").count == 1, "\(wrongCA.err)")
        let noCA = try await fakeentra(["journal", "--url", server.url, "--certs", try temporaryDirectory()])
        #expect(noCA.status == 1 && noCA.err.contains("no CA certificate at"))
        let noReadyFile = try await fakeentra(["journal", "--ready-file", otherCA + "/nothing"])
        #expect(noReadyFile.status == 1 && noReadyFile.err.contains("cannot read a base URL"))
    }

    @Test func aServerWithAControlSecretNeedsIt() async throws {
        let server = try await LiveServer.start(["--quiet", "--control-secret", "s3cret \"quoted\""])
        defer { server.stop() }
        try await curl(server, ["/common/v2.0/.well-known/openid-configuration"], ["-o", "/dev/null"])
        let common = ["journal", "--url", server.url, "--certs", server.certs]
        let refused = try await fakeentra(common)
        #expect(refused.status == 1 && refused.err.contains("answered 401") && refused.err.contains("--control-secret"), "\(refused.err)")
        let given = try await fakeentra(common + ["--control-secret", "s3cret \"quoted\""])
        #expect(given.status == 0 && given.out.contains("openid_configuration"), "\(given.err)")
        let fromEnvironment = try await run(try fakeentraBinary(), common, environment: ["FAKEENTRA_CONTROL_SECRET": "s3cret \"quoted\""])
        #expect(fromEnvironment.status == 0 && fromEnvironment.out.contains("openid_configuration"), "\(fromEnvironment.err)")
    }

    // MARK: schema

    @Test func schemasArePrintedAsTheServerEnforcesThem() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for kind in ["config", "scenario", "graph", "b2c"] {
            let published = "docs/schemas/\(kind).schema.json"
            let result = try await fakeentra(["schema", kind])
            #expect(result.status == 0)
            let printed = try json(result.out)
            #expect(printed["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema" || kind == "b2c", "the b2c member is a schema fragment without a schema URI")
            let file = try String(contentsOf: root.appendingPathComponent(published), encoding: .utf8)
            #expect(result.out == file, "\(kind) differs from \(published)")
        }
        let graph = try await fakeentra(["schema", "graph"])
        #expect(graph.status == 0)
        #expect(try json(graph.out)["title"] as? String == "Microsoft Graph content per user")
        let unknown = try await fakeentra(["schema", "tokens"])
        #expect(unknown.status != 0 && unknown.err.contains("tokens"))
    }
}
