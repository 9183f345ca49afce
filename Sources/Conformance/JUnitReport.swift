import FoundationGaps
import ExchangeKernel
import IdentityPlatform

/// JUnit XML as CI systems read it (the common JUnit XSD: testsuites / testsuite / properties /
/// testcase / failure / skipped / system-out): one suite per area, one test case per conformance case.
extension ConformanceReport {
    package func junit() -> String {
        let seconds = finishedAt.timeIntervalSince(startedAt)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="fakeentra conform" tests="\#(cases.count)" failures="\#(cases.count(where: junitFails))" errors="0" time="\#(Self.time(seconds))">"# + "\n"
        for area in CaseArea.allCases {
            let results = cases.filter { $0.area == area }
            guard !results.isEmpty else { continue }
            let skipped = results.count { junitSkip($0) != nil }
            xml += #"  <testsuite name="conformance.\#(area.rawValue)" tests="\#(results.count)" failures="\#(results.count(where: junitFails))" errors="0" skipped="\#(skipped)" time="\#(Self.time(results.reduce(0) { $0 + $1.durationSeconds }))" timestamp="\#(Self.timestamp(startedAt))">"# + "\n"
            xml += "    <properties>\n"
            xml += #"      <property name="client" value="\#(Self.escape(client))"/>"# + "\n"
            xml += #"      <property name="client_kind" value="\#(judgedKind.rawValue)"/>"# + "\n"
            xml += #"      <property name="server" value="\#(Self.escape(server))"/>"# + "\n"
            xml += "    </properties>\n"
            for result in results { xml += testcase(result) }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    private func testcase(_ result: CaseResult) -> String {
        var xml = #"    <testcase classname="conformance.\#(result.area.rawValue)" name="\#(Self.escape(result.caseID))" time="\#(Self.time(result.durationSeconds))">"# + "\n"
        if junitFails(result) {
            let type = result.baseline?.status == .noLongerFails ? "STALE_BASELINE" : result.verdict.rawValue
            let message = result.baseline?.status == .noLongerFails ? "listed in the baseline (\(result.baseline!.reason)) but no longer fails" : result.reason
            xml += #"      <failure message="\#(Self.escape(message))" type="\#(type)">\#(Self.escape(details(result)))</failure>"# + "\n"
        } else if let skip = junitSkip(result) {
            xml += #"      <skipped message="\#(Self.escape(skip))"/>"# + "\n"
        }
        xml += "      <system-out>\(Self.escape("\(result.verdict.rawValue) (\(result.level.rawValue)): \(result.reason)\n\n" + details(result)))</system-out>\n"
        if let tail = result.stderrTail, !tail.isEmpty {
            xml += "      <system-err>\(Self.escape(String(tail.suffix(16_384))))</system-err>\n"
        }
        return xml + "    </testcase>\n"
    }

    /// What CI should count as a failure: the run's own rule.
    func junitFails(_ result: CaseResult) -> Bool {
        result.failsRun || result.baseline?.status == .noLongerFails
            || (strict && result.verdict == .warning && result.baseline?.status != .expectedFailure)
    }

    func junitSkip(_ result: CaseResult) -> String? {
        if junitFails(result) { return nil }
        if result.baseline?.status == .expectedFailure { return "expected failure (baseline): \(result.baseline!.reason)" }
        switch result.verdict {
        case .skipped, .notTestable: return "\(result.verdict.rawValue): \(result.reason)"
        default: return nil
        }
    }

    /// Checks, evidence and citations as plain text.
    func details(_ result: CaseResult) -> String {
        var lines: [String] = []
        for check in result.checks {
            lines.append("[\(check.verdict.rawValue)] \(check.check) (\(check.level.rawValue)): \(check.reason)")
            for exchange in check.evidence { lines.append("    \(ReportDates.clock(exchange.time))  \(exchange.summary)") }
            if let citation = check.citation { lines.append("    see \(citation.label) <\(citation.url)>") }
        }
        lines.append("steps:")
        for outcome in result.outcomes { lines.append("    \(outcome.id) \(outcome.step.rawValue): \(outcome.summary)" + (outcome.detail.map { " — \($0)" } ?? "")) }
        return lines.joined(separator: "\n")
    }

    /// XML text and attribute values: the platform's one escaper (its output is valid XML as well as HTML).
    static func escape(_ text: String) -> String {
        // XML 1.0 forbids most control characters even escaped.
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\n" || $0 == "\t" || $0 == "\r" }))
        return HTML.escape(cleaned)
    }

    static func time(_ seconds: Double) -> String { String(format: "%.3f", max(0, seconds)) }

    static func timestamp(_ date: Date) -> String {
        // JUnit's timestamp: local time without a zone; ours is UTC.
        String(InternetTimestamp.string(date, fractionalSeconds: false).dropLast())
    }
}
