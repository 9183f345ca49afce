package import FoundationGaps

/// A finished run: every case's result and what decides the exit status.
package struct ConformanceReport: Sendable, Codable, Equatable {
    package struct Summary: Sendable, Codable, Equatable {
        package var total: Int
        package var passed: Int
        package var failed: Int
        package var warnings: Int
        package var skipped: Int
        package var notTestable: Int
        /// Baseline entries whose case passed: the run fails until they are removed.
        package var staleBaselineEntries: [String]
        package var expectedFailures: [String]
        package var succeeded: Bool
    }

    package var schemaVersion: Int = 1
    package var tool: String
    package var client: String
    /// The kind of app judged; optional so that a report without it (an older one) still decodes.
    package var clientKind: ClientKind?

    /// The kind of app judged, a public client when the report does not say.
    package var judgedKind: ClientKind { clientKind ?? .publicClient }
    package var server: String
    package var startedAt: Date
    package var finishedAt: Date
    package var strict: Bool
    package var summary: Summary
    package var cases: [CaseResult]

    package init(tool: String, client: String, clientKind: ClientKind = .publicClient, server: String, startedAt: Date, finishedAt: Date, strict: Bool, cases: [CaseResult]) {
        self.tool = tool
        self.client = client
        self.clientKind = clientKind
        self.server = server
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.strict = strict
        self.cases = cases
        let stale = cases.filter { $0.baseline?.status == .noLongerFails }.map(\.caseID)
        let failing = cases.contains { $0.failsRun } || (strict && cases.contains { $0.verdict == .warning && $0.baseline?.status != .expectedFailure })
        summary = Summary(
            total: cases.count,
            passed: cases.count { $0.verdict == .passed },
            failed: cases.count { $0.verdict == .failed },
            warnings: cases.count { $0.verdict == .warning },
            skipped: cases.count { $0.verdict == .skipped },
            notTestable: cases.count { $0.verdict == .notTestable },
            staleBaselineEntries: stale,
            expectedFailures: cases.filter { $0.baseline?.status == .expectedFailure }.map(\.caseID),
            succeeded: !failing && stale.isEmpty
        )
    }

    /// 0 when nothing required failed (with `--strict`, no warning either) and no baseline entry is stale.
    package var exitCode: Int32 { summary.succeeded ? 0 : 1 }

    package func json() -> String {
        let encoder = ConformanceJSON.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self) + "\n"
    }

    package static func decode(_ data: Data) throws -> ConformanceReport {
        try ConformanceJSON.decoder().decode(ConformanceReport.self, from: data)
    }

    /// The terminal table: case, level, verdict, one-line reason.
    package func table(width: Int = 160) -> String {
        let idWidth = max(4, cases.map(\.caseID.count).max() ?? 4)
        var lines = [Self.pad("CASE", idWidth) + "  LEVEL        VERDICT       REASON"]
        for result in cases {
            var verdict = result.verdict.rawValue
            if result.baseline?.status == .expectedFailure { verdict += "*" }
            if result.baseline?.status == .noLongerFails { verdict += "!" }
            let prefix = Self.pad(result.caseID, idWidth) + "  " + Self.pad(result.level.rawValue, 11) + "  " + Self.pad(verdict, 12) + "  "
            let room = max(20, width - prefix.count)
            let reason = result.reason.count > room ? String(result.reason.prefix(room - 1)) + "…" : result.reason
            lines.append(prefix + reason)
        }
        let s = summary
        lines.append("")
        lines.append("\(s.total) cases for a \(judgedKind.title): \(s.passed) passed, \(s.failed) failed, \(s.warnings) warnings, \(s.notTestable) not testable, \(s.skipped) skipped")
        if !s.expectedFailures.isEmpty { lines.append("* expected by the baseline: \(s.expectedFailures.joined(separator: ", "))") }
        if !s.staleBaselineEntries.isEmpty {
            lines.append("! listed in the baseline but no longer failing (remove the entries): \(s.staleBaselineEntries.joined(separator: ", "))")
        }
        lines.append(s.succeeded ? "RESULT: conformant" + (strict ? " (strict)" : "") : "RESULT: not conformant")
        return lines.joined(separator: "\n") + "\n"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

package enum ReportDates {
    package static func iso(_ date: Date) -> String {
        InternetTimestamp.string(date)
    }

    package static func parse(_ text: String) -> Date? {
        InternetTimestamp.date(text)
    }

    /// `12:03:04.123`, for evidence lines.
    static func clock(_ date: Date) -> String {
        let text = iso(date)
        guard let t = text.firstIndex(of: "T") else { return text }
        return String(text[text.index(after: t)...].prefix(12))
    }
}
