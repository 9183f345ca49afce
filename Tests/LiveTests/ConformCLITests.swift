import Foundation
import Testing

/// `fakeentra conform`, run as the real binary with tiny shell adapters (the MSAL adapters and their
/// broken twins are tested with pytest in Tests/Conformance).
@Suite("fakeentra conform")
struct ConformCLITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Answers every step `unsupported`, echoing its id.
    static let unsupportedAdapter = #"while read -r line; do id=${line#*\"id\":}; id=${id%%[,\}]*}; printf '{"id":%s,"ok":false,"error":"unsupported"}\n' "$id"; done"#

    func conform(_ arguments: [String], timeout: Duration = .seconds(90)) async throws -> ChildProcess.Snapshot {
        let result = try await run(try fakeentraBinary(), ["conform"] + arguments, timeout: timeout)
        #expect(result.hasExited && !result.diedOfSignal, "\(arguments): \(result.err)")
        return result
    }

    func json(_ path: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(arguments: [
        ([String](), "--client CMD is required"),
        (["--client", "x", "--level", "most"], "--level must be required or all"),
        (["--client", "x", "--jobs", "0"], "--jobs must be between 1 and 64"),
        (["--client", "x", "--cases", "nothing.*"], "matches no case"),
        (["--markdown"], "--markdown goes with --list"),
        (["--client", "x", "--server", "ftp://host"], "--server must be an http(s) URL"),
        (["--client", "x", "--credential", "daemon"], "--credential must be secret or certificate"),
        (["--client", "x", "--credential", "secret", "--cases", "b2c.*"], "matches no case for a confidential client (client secret)"),
        (["--client", "x", "--baseline", "/nonexistent/baseline.json"], "no such readable file"),
    ])
    func badArgumentsAreRefused(arguments: [String], message: String) async throws {
        let result = try await conform(arguments)
        #expect(result.status == 64, "\(result.out)\(result.err)")
        #expect(result.err.contains(message), "\(result.err)")
    }

    @Test func theDocsCatalogueIsTheGeneratedOne() async throws {
        let result = try await conform(["--list", "--markdown"])
        #expect(result.status == 0)
        let docs = try String(contentsOf: Self.repository.appendingPathComponent("docs/conformance.md"), encoding: .utf8)
        let begin = try #require(docs.range(of: "<!-- catalogue:begin -->\n"))
        let end = try #require(docs.range(of: "<!-- catalogue:end -->"))
        #expect(String(docs[begin.upperBound..<end.lowerBound]) == result.out,
                "docs/conformance.md is stale: regenerate its catalogue with `fakeentra conform --list --markdown`")
    }

    @Test func anAdapterThatCannotTakeAnyStepSkipsEveryCase() async throws {
        let directory = try temporaryDirectory()
        let result = try await conform(["--client", Self.unsupportedAdapter, "--jobs", "4", "--json", directory + "/r.json",
                                        "--junit", directory + "/r.xml", "--html", directory + "/r.html"])
        #expect(result.status == 0, "\(result.out)\(result.err)")
        let report = try json(directory + "/r.json")
        let cases = try #require(report["cases"] as? [[String: Any]])
        #expect(cases.count >= 30)
        #expect(cases.allSatisfy { $0["verdict"] as? String == "SKIPPED" }, "\(cases.map { "\($0["caseID"]!) \($0["verdict"]!)" })")
        #expect(result.out.contains("RESULT: conformant"))
        #expect(FileManager.default.contents(atPath: directory + "/r.xml")?.isEmpty == false)
        #expect(String(decoding: FileManager.default.contents(atPath: directory + "/r.html") ?? Data(), as: UTF8.self).hasPrefix("<!DOCTYPE html>"))
    }

    /// A second run against the first one's report: the terminal and the HTML say what changed.
    @Test func aRunIsComparedWithAnEarlierReport() async throws {
        let directory = try temporaryDirectory()
        let first = try await conform(["--client", Self.unsupportedAdapter, "--cases", "protocol.pkce-s256,protocol.state-mismatch", "--json", directory + "/first.json"])
        #expect(first.status == 0, "\(first.out)\(first.err)")
        // As if the first run had failed one case and run one the catalogue no longer has.
        var earlier = try json(directory + "/first.json")
        var cases = try #require(earlier["cases"] as? [[String: Any]])
        cases[0]["verdict"] = "FAILED"
        cases.append(["caseID": "protocol.retired-case", "verdict": "PASSED"])
        earlier["cases"] = cases
        try JSONSerialization.data(withJSONObject: earlier).write(to: URL(fileURLWithPath: directory + "/earlier.json"))
        let second = try await conform(["--client", Self.unsupportedAdapter, "--cases", "protocol.pkce-s256,protocol.state-mismatch",
                                        "--compare", directory + "/earlier.json", "--html", directory + "/second.html"])
        #expect(second.status == 0, "\(second.out)\(second.err)")
        #expect(second.out.contains("Compared with the run of") && second.out.contains("FAILED → SKIPPED") && second.out.contains("ONLY BEFORE"), "\(second.out)")
        let html = String(decoding: FileManager.default.contents(atPath: directory + "/second.html") ?? Data(), as: UTF8.self)
        #expect(html.contains("<section id=\"changes\">") && html.contains("protocol.retired-case"))
        let notAReport = try await conform(["--client", Self.unsupportedAdapter, "--cases", "protocol.pkce-s256", "--compare", directory + "/second.html"])
        #expect(notAReport.status == 1 && notAReport.err.contains("is not a conformance report"), "\(notAReport.err)")
    }

    @Test func aCrashingAdapterFailsWithItsStderr() async throws {
        let directory = try temporaryDirectory()
        let result = try await conform(["--client", "echo the adapter broke >&2; exit 3", "--cases", "protocol.pkce-s256", "--json", directory + "/r.json"])
        #expect(result.status == 1, "\(result.out)\(result.err)")
        let cases = try #require(try json(directory + "/r.json")["cases"] as? [[String: Any]])
        #expect(cases.first?["verdict"] as? String == "FAILED")
        #expect((cases.first?["stderrTail"] as? String)?.contains("the adapter broke") == true)
        #expect(result.out.contains("protocol.pkce-s256"))
    }

    @Test func aRunningServerIsDrivenThroughItsControlAPI() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        let failing = try await conform(["--server", server.url, "--certs", server.certs, "--client", "exit 3", "--cases", "protocol.pkce-s256",
                                         "--json", directory + "/r.json"])
        #expect(failing.status == 1, "\(failing.out)\(failing.err)")
        let cases = try #require(try json(directory + "/r.json")["cases"] as? [[String: Any]])
        #expect(cases.first?["verdict"] as? String == "FAILED")
        #expect((try json(directory + "/r.json")["server"] as? String) == server.url)

        let baseline = directory + "/baseline.json"
        try #"{"version": 1, "expectedFailures": [{"case": "protocol.pkce-s256", "reason": "the adapter is being written"}]}"#.write(toFile: baseline, atomically: true, encoding: .utf8)
        let expected = try await conform(["--server", server.url, "--certs", server.certs, "--client", "exit 3", "--cases", "protocol.pkce-s256", "--baseline", baseline])
        #expect(expected.status == 0, "an expected failure does not fail the run: \(expected.out)\(expected.err)")
        #expect(expected.out.contains("expected by the baseline"))
    }
}
