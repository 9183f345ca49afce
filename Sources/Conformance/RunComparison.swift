package import FoundationGaps
import ExchangeKernel

/// What changed since an earlier run (`fakeentra conform --compare previous.json`): cases fixed, new
/// failures, other verdict changes, cases new to the catalogue or gone from it.
package struct RunComparison: Sendable, Equatable {
    /// The earlier run as its JSON report says it: only what a comparison needs, so a report of an
    /// older catalogue or schema still compares.
    package struct PreviousRun: Sendable, Codable, Equatable {
        package struct Case: Sendable, Codable, Equatable {
            package var caseID: String
            package var verdict: Verdict
        }

        package var client: String
        package var startedAt: Date
        package var cases: [Case]
    }

    package enum Change: String, Sendable, Equatable {
        /// `onlyNow` and `onlyBefore`: in one run's report and not the other's (the catalogue gained or lost
        /// the case, or the runs chose different cases).
        case fixed = "FIXED", improved = "IMPROVED", newFailure = "NEW FAILURE", changed = "CHANGED", onlyNow = "ONLY NOW", onlyBefore = "ONLY BEFORE"
    }

    package struct Entry: Sendable, Equatable {
        package var caseID: String
        package var change: Change
        package var before: Verdict?
        package var after: Verdict?
        package var reason: String
    }

    package var previous: PreviousRun
    /// Only the cases that changed: this run's order, then the cases gone from it.
    package var entries: [Entry]
    package var unchanged: Int

    package init(previous: PreviousRun, current: ConformanceReport) {
        self.previous = previous
        let before = Dictionary(previous.cases.map { ($0.caseID, $0.verdict) }, uniquingKeysWith: { _, last in last })
        var entries: [Entry] = []
        var unchanged = 0
        for result in current.cases {
            guard let change = Self.change(from: before[result.caseID], to: result.verdict) else {
                unchanged += 1
                continue
            }
            entries.append(Entry(caseID: result.caseID, change: change, before: before[result.caseID], after: result.verdict, reason: result.reason))
        }
        let now = Set(current.cases.map(\.caseID))
        for gone in previous.cases where !now.contains(gone.caseID) {
            entries.append(Entry(caseID: gone.caseID, change: .onlyBefore, before: gone.verdict, after: nil, reason: ""))
        }
        self.entries = entries
        self.unchanged = unchanged
    }

    static func change(from before: Verdict?, to after: Verdict) -> Change? {
        guard let before else { return .onlyNow }
        guard before != after else { return nil }
        let bad: Set<Verdict> = [.failed, .warning]
        if bad.contains(before), after == .passed { return .fixed }
        if before == .failed, after == .warning { return .improved }
        if bad.contains(after), !bad.contains(before) || after == .failed { return .newFailure }
        return .changed
    }

    package enum ReadError: Error, CustomStringConvertible {
        case unreadable(String)
        case notAReport(String, String)

        package var description: String {
            switch self {
            case .unreadable(let path): "--compare \(path): no such readable file"
            case .notAReport(let path, let why): "--compare \(path) is not a conformance report (the --json of an earlier run): \(why)"
            }
        }
    }

    package static func read(_ path: String) throws(ReadError) -> PreviousRun {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path) }
        do { return try ConformanceJSON.decoder().decode(PreviousRun.self, from: data) } catch {
            throw .notAReport(path, Self.describe(error))
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .keyNotFound(let key, let context): return "no \"\(Self.path(context.codingPath + [key]))\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\"\(Self.path(context.codingPath))\": \(context.debugDescription)"
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "not JSON" : "\"\(Self.path(context.codingPath))\": \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }

    private func count(_ change: Change) -> Int { entries.count { $0.change == change } }

    package var headline: String {
        "Compared with the run of \(ReportDates.iso(previous.startedAt)) (\(previous.client)): \(count(.fixed)) fixed, \(count(.newFailure)) new failures, "
            + "\(count(.improved)) improved, \(count(.changed)) changed, \(count(.onlyNow)) only in this run, \(count(.onlyBefore)) only in the earlier one, \(unchanged) unchanged"
    }

    /// The lines printed after the run's table.
    package func table() -> String {
        var lines = ["", headline]
        let idWidth = max(4, entries.map(\.caseID.count).max() ?? 4)
        for entry in entries {
            let verdicts = "\(entry.before?.rawValue ?? "—") → \(entry.after?.rawValue ?? "—")"
            lines.append("  " + ConformanceReport.pad(entry.change.rawValue, 11) + "  " + ConformanceReport.pad(entry.caseID, idWidth) + "  "
                         + ConformanceReport.pad(verdicts, 26) + (entry.reason.isEmpty ? "" : "  " + entry.reason))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The HTML report's section, after its summary.
    package func html() -> String {
        let e = HTML.escape
        var html = "<section id=\"changes\"><h2>Changes</h2><p class=\"meta\">\(e(headline)).</p>\n"
        guard !entries.isEmpty else { return html + "</section>\n" }
        html += "<table class=\"overview\"><thead><tr><th>Change</th><th>Case</th><th>Before</th><th>Now</th><th>Reason</th></tr></thead><tbody>\n"
        for entry in entries {
            let caseCell = entry.after == nil ? e(entry.caseID) : "<a href=\"#\(e(entry.caseID))\">\(e(entry.caseID))</a>"
            html += "<tr><td>\(e(entry.change.rawValue))</td><td>\(caseCell)</td>"
                + "<td class=\"v \(entry.before?.rawValue ?? "")\">\(e(entry.before?.rawValue ?? "—"))</td>"
                + "<td class=\"v \(entry.after?.rawValue ?? "")\">\(e(entry.after?.rawValue ?? "—"))</td><td>\(e(entry.reason))</td></tr>\n"
        }
        return html + "</tbody></table></section>\n"
    }
}
