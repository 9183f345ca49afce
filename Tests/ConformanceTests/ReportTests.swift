import ExchangeKernel
import Conformance
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import LocatedJSON
import Testing

/// The reports: the JSON one against its published schema, JUnit XML read by a real XML parser,
/// HTML escaped, the exit rule, and baselines that cannot rot.
@Suite struct ReportTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// One result of every kind: a required failure, a warning, a not-testable case, a skipped one, a pass.
    static func results() -> [CaseResult] {
        var failing = Synthetic()
        failing.authorize(at: 0)
        failing.redeem(at: 0.5)
        failing.refresh(at: 1, status: 429, error: "temporarily_unavailable", retryAfter: "3")
        failing.refresh(at: 1.2)
        failing.reply(1, .signIn, from: 0, to: 0.6)
        failing.reply(5, .getToken, from: 4, to: 4.2)
        var warning = Synthetic()
        warning.authorize(at: 0)
        warning.redeem(at: 1)
        warning.reply(1, .signIn, from: 0, to: 1.1)
        warning.reply(2, .callGraph, from: 1.2, to: 1.5, status: 200)
        var skipped = Synthetic()
        skipped.reply(1, .signIn, from: 0, to: 1, ok: false, error: .unsupported)
        var passing = Synthetic()
        passing.authorize(at: 0)
        passing.redeem(at: 1)
        passing.reply(1, .signIn, from: 0, to: 1.1)
        var hostile = passing.judge("protocol.pkce-s256")
        hostile.stderrTail = "Traceback <script>alert('x')</script> & \u{7} done"
        var paged = Synthetic()
        paged.signedIn()
        paged.page(at: 1.3, skip: nil, items: 5, next: 5)
        paged.page(at: 1.4, skip: 5, items: 2, next: nil)
        paged = paged.reply(StepOutcome(id: 2, step: .listGraph, observed: .answered, ok: true, status: 200, count: 7,
                                        account: "adele.vance@contoso.onmicrosoft.com", startedAt: Synthetic.t0.addingTimeInterval(1.2), endedAt: Synthetic.t0.addingTimeInterval(1.5)))
        return [
            failing.judge("resilience.retry-after-seconds"),
            warning.judge("protocol.id-token-audience"),
            Synthetic().judge("graph.throttled-429"),
            skipped.judge("b2c.cancel"),
            hostile,
            paged.judge("graph.paging"),
            Synthetic().judge("confidential.certificate-rollover"),
            Synthetic().judge("externalid.sign-in-refresh"),
        ]
    }

    static func report(strict: Bool = false, results: [CaseResult] = results()) -> ConformanceReport {
        ConformanceReport(tool: "fakeentra conform", client: "python adapter.py", server: "https://127.0.0.1:1 (in-process)",
                          startedAt: Synthetic.t0, finishedAt: Synthetic.t0.addingTimeInterval(10), strict: strict, cases: results)
    }

    @Test func jsonReportMatchesThePublishedSchema() throws {
        let schema = try JSONSchema(file: Self.repository.appendingPathComponent("docs/conformance-report.schema.json").path)
        let text = Self.report().json()
        let problems = schema.validate(try LocatedJSON.parse(Array(text.utf8), file: "report.json"), file: "report.json")
        #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
        #expect(try ConformanceReport.decode(Data(text.utf8)).json() == text, "the report reads back as written")
    }

    /// The schema's closed lists are the code's: a new step or area cannot reach a report the schema refuses.
    @Test func theSchemaNamesEveryStepAndArea() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("docs/conformance-report.schema.json"), encoding: .utf8)
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: [String: Any]])
        func values(_ definition: String, _ property: String) -> Set<String> {
            Set(((definitions[definition]?["properties"] as? [String: Any])?[property] as? [String: Any])?["enum"] as? [String] ?? [])
        }
        #expect(values("outcome", "step") == Set(JourneyStep.Kind.allCases.map(\.rawValue)))
        #expect(values("case", "area") == Set(CaseArea.allCases.map(\.rawValue)))
        #expect(values("outcome", "error") == Set(AdapterError.allCases.map(\.rawValue)))
        let caseID = try #require((definitions["caseID"]?["pattern"]) as? String)
        #expect(caseID == "^(" + CaseArea.allCases.map(\.rawValue).joined(separator: "|") + ")\\.[a-z0-9-]+$")
    }

    @Test func theSchemaRefusesAReportWithAnUnknownVerdict() throws {
        let schema = try JSONSchema(file: Self.repository.appendingPathComponent("docs/conformance-report.schema.json").path)
        let text = Self.report().json().replacingOccurrences(of: "\"NOT_TESTABLE\"", with: "\"MAYBE\"")
        #expect(!schema.validate(try LocatedJSON.parse(Array(text.utf8), file: "report.json"), file: "report.json").isEmpty)
    }

    @Test func exitRule() {
        #expect(Self.report().exitCode == 1, "a required case failed")
        let withoutFailure = Self.results().filter { $0.verdict != .failed }
        #expect(Self.report(results: withoutFailure).exitCode == 0, "warnings, not-testable and skipped cases do not fail a run")
        #expect(Self.report(strict: true, results: withoutFailure).exitCode == 1, "--strict: warnings do")
    }

    @Test func baselineExpectsFailuresAndReportsStaleEntries() throws {
        let text = #"{"version": 1, "expectedFailures": [{"case": "resilience.retry-after-seconds", "reason": "our retry policy is being rewritten"}, {"case": "protocol.pkce-s256", "reason": "fixed since"}]}"#
        let baseline = try Baseline.parse(Array(text.utf8), file: "baseline.json").get()
        let marked = baseline.apply(to: Self.results())
        #expect(marked[0].baseline?.status == .expectedFailure)
        #expect(marked[4].baseline?.status == .noLongerFails)
        let report = Self.report(results: marked)
        #expect(report.summary.staleBaselineEntries == ["protocol.pkce-s256"])
        #expect(report.exitCode == 1, "a stale entry fails the run")
        let fresh = try Baseline.parse(Array(#"{"version": 1, "expectedFailures": [{"case": "resilience.retry-after-seconds", "reason": "known"}]}"#.utf8), file: "b.json").get()
        #expect(Self.report(results: fresh.apply(to: Self.results())).exitCode == 0, "the expected failure no longer counts")
        #expect(report.table().contains("no longer failing"))
    }

    @Test func baselineProblemsAreLocated() {
        let text = "{\"version\": 1,\n \"expectedFailures\": [{\"case\": \"no.such-case\", \"reason\": \"x\"}, {\"case\": \"graph.forbidden-403\"}]}"
        guard case .failure(let problems) = Baseline.parse(Array(text.utf8), file: "baseline.json") else {
            Issue.record("accepted a broken baseline")
            return
        }
        let lines = problems.problems.map(\.description)
        #expect(lines.contains { $0.hasPrefix("baseline.json:2:") && $0.contains("no conformance case \"no.such-case\"") })
        #expect(lines.contains { $0.contains("needs a \"reason\"") })
        guard case .failure = Baseline.parse(Array("[1".utf8), file: "b.json") else {
            Issue.record("accepted bad JSON")
            return
        }
    }

    @Test func junitIsWellFormedAndCountsAsTheRunDoes() throws {
        let xml = Self.report().junit()
        let reader = JUnitReader()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = reader
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(reader.root == "testsuites")
        #expect(reader.testcases == Self.results().count)
        #expect(reader.failures == ["resilience.retry-after-seconds"])
        #expect(Set(reader.skipped) == ["graph.throttled-429", "b2c.cancel", "confidential.certificate-rollover", "externalid.sign-in-refresh"])
        #expect(reader.suites.contains("conformance.resilience"))
        #expect(reader.properties.contains("client"))
        let strict = JUnitReader()
        let strictParser = XMLParser(data: Data(Self.report(strict: true).junit().utf8))
        strictParser.delegate = strict
        #expect(strictParser.parse())
        #expect(strict.failures.contains("protocol.id-token-audience"), "--strict: a warning is a failure in CI too")
    }

    @Test func htmlIsSelfContainedAndEscaped() {
        let html = Self.report().html()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.lowercased().contains("<script"), "no script at all, and adapter output escaped")
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(!html.contains("src=\"http"), "no external resources")
        #expect(html.contains("id=\"resilience.retry-after-seconds\""))
        #expect(html.contains("RFC 6585"), "citations are shown")
        #expect(html.contains("Retry-After: 3"), "evidence requests are shown")
    }

    @Test func tableShowsOneLinePerCase() {
        let table = Self.report().table(width: 100)
        let lines = table.split(separator: "\n")
        #expect(lines.first?.hasPrefix("CASE") == true)
        #expect(lines.contains { $0.hasPrefix("resilience.retry-after-seconds") && $0.contains("FAILED") })
        #expect(lines.allSatisfy { $0.count <= 100 || $0.hasPrefix("*") || $0.hasPrefix("!") })
        #expect(table.contains("RESULT: not conformant"))
    }
}

final class JUnitReader: NSObject, XMLParserDelegate {
    var root: String?
    var testcases = 0
    var failures: [String] = []
    var skipped: [String] = []
    var suites: [String] = []
    var properties: [String] = []
    private var current: String?

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil { root = name }
        switch name {
        case "testsuite": suites.append(attributes["name"] ?? "")
        case "testcase":
            testcases += 1
            current = attributes["name"]
        case "failure": failures.append(current ?? "")
        case "skipped": skipped.append(current ?? "")
        case "property": properties.append(attributes["name"] ?? "")
        default: break
        }
    }
}
