import Conformance
import Foundation
import Testing

/// `--compare`: what changed between two runs, case by case.
@Suite struct RunComparisonTests {
    static func report(_ verdicts: [(String, Verdict)]) -> ConformanceReport {
        let cases = verdicts.map { id, verdict in
            CaseResult(caseID: id, title: id, area: .protocolSafety, level: .required, verdict: verdict, reason: "\(id) <reason>", checks: [], outcomes: [],
                       exchanges: [], description: "", citations: [], clientID: nil, durationSeconds: 0)
        }
        return ConformanceReport(tool: "t", client: "adapter", server: "s", startedAt: Date(timeIntervalSince1970: 1_800_000_000),
                                 finishedAt: Date(timeIntervalSince1970: 1_800_000_060), strict: false, cases: cases)
    }

    @Test func eachKindOfChangeIsNamed() throws {
        let before = Self.report([("a.fixed", .failed), ("b.worse", .passed), ("c.same", .passed), ("d.better", .failed), ("e.gone", .warning),
                                  ("f.untestable", .passed), ("g.worse-warning", .warning)])
        let after = Self.report([("a.fixed", .passed), ("b.worse", .failed), ("c.same", .passed), ("d.better", .warning), ("f.untestable", .notTestable),
                                 ("g.worse-warning", .failed), ("h.new", .warning)])
        let previous = try ConformanceJSON.decoder().decode(RunComparison.PreviousRun.self, from: Data(before.json().utf8))
        let comparison = RunComparison(previous: previous, current: after)
        let changes = Dictionary(uniqueKeysWithValues: comparison.entries.map { ($0.caseID, $0.change) })
        #expect(changes == ["a.fixed": .fixed, "b.worse": .newFailure, "d.better": .improved, "e.gone": .onlyBefore, "f.untestable": .changed,
                            "g.worse-warning": .newFailure, "h.new": .onlyNow])
        #expect(comparison.unchanged == 1)
        let table = comparison.table()
        #expect(table.contains("1 fixed, 2 new failures, 1 improved, 1 changed, 1 only in this run, 1 only in the earlier one, 1 unchanged"), "\(table)")
        #expect(table.contains("FIXED") && table.contains("FAILED → PASSED"))
        let html = after.html(comparison: comparison)
        #expect(html.contains("<section id=\"changes\">") && html.contains("b.worse &lt;reason&gt;"), "texts are escaped")
    }

    @Test func aFileThatIsNoReportSaysWhy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("junit.xml").path
        try "<testsuites/>".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: RunComparison.ReadError.self) { try RunComparison.read(file) }
        do { _ = try RunComparison.read(file) } catch { #expect(error.description.contains("not a conformance report") && error.description.contains("not JSON")) }
        let partial = directory.appendingPathComponent("partial.json").path
        try #"{"client": "x", "startedAt": "2026-11-27T07:00:00Z"}"#.write(toFile: partial, atomically: true, encoding: .utf8)
        do { _ = try RunComparison.read(partial) } catch { #expect(error.description.contains("no \"cases\""), "\(error)") }
    }
}
