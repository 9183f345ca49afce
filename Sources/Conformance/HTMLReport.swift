import FoundationGaps
import ExchangeKernel
import IdentityPlatform

/// A self-contained HTML report: no script, no external resource; every text goes through the
/// platform's one HTML escaper.
extension ConformanceReport {
    /// `comparison`: what changed since an earlier run, shown after the summary.
    package func html(comparison: RunComparison? = nil) -> String {
        let e = HTML.escape
        var body = """
            <h1>FakeEntra client conformance</h1>
            <p class="meta">Client <code>\(e(client))</code>, a \(e(judgedKind.title)), against \(e(server)), \(e(ReportDates.iso(startedAt))) – \(e(ReportDates.iso(finishedAt)))\(strict ? ", strict" : "")</p>
            <p class="result \(summary.succeeded ? "ok" : "bad")">\(summary.succeeded ? "Conformant" : "Not conformant"): \(summary.total) cases,
            \(summary.passed) passed, \(summary.failed) failed, \(summary.warnings) warnings, \(summary.notTestable) not testable, \(summary.skipped) skipped.</p>
            """
        if !summary.staleBaselineEntries.isEmpty {
            body += "<p class=\"result bad\">Listed in the baseline but no longer failing (remove the entries): \(e(summary.staleBaselineEntries.joined(separator: ", ")))</p>\n"
        }
        // With the changes above it, the overview gets a heading of its own, or it reads as their continuation.
        if let comparison { body += comparison.html() + "<h2>Cases</h2>\n" }
        body += "<table class=\"overview\"><thead><tr><th>Case</th><th>Level</th><th>Verdict</th><th>Reason</th></tr></thead><tbody>\n"
        for result in cases {
            body += "<tr><td><a href=\"#\(e(result.caseID))\">\(e(result.caseID))</a></td><td>\(e(result.level.rawValue))</td>"
                + "<td class=\"v \(result.verdict.rawValue)\">\(e(verdictText(result)))</td><td>\(e(result.reason))</td></tr>\n"
        }
        body += "</tbody></table>\n"
        for result in cases { body += section(result) }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>FakeEntra conformance: \(e(summary.succeeded ? "conformant" : "not conformant"))</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>\(Self.style)</style></head>
            <body>
            \(body)
            </body></html>

            """
    }

    private func verdictText(_ result: CaseResult) -> String {
        switch result.baseline?.status {
        case .expectedFailure?: "\(result.verdict.rawValue) (expected)"
        case .noLongerFails?: "\(result.verdict.rawValue) (stale baseline)"
        case nil: result.verdict.rawValue
        }
    }

    private func section(_ result: CaseResult) -> String {
        let e = HTML.escape
        var html = """
            <section id="\(e(result.caseID))">
            <h2><span class="v \(result.verdict.rawValue)">\(e(verdictText(result)))</span> \(e(result.caseID)) — \(e(result.title))</h2>
            <p class="meta">Level \(e(result.level.rawValue)) · \(e(result.area.title))\(result.clientID.map { " · client id <code>\(e($0))</code>" } ?? "") · \(String(format: "%.1f", result.durationSeconds)) s</p>
            <p>\(e(result.description))</p>
            """
        if let baseline = result.baseline { html += "<p class=\"meta\">Baseline: \(e(baseline.reason))</p>\n" }
        html += "<h3>Checks</h3><ul class=\"checks\">\n"
        for check in result.checks {
            html += "<li><span class=\"v \(check.verdict.rawValue)\">\(e(check.verdict.rawValue))</span> <b>\(e(check.check))</b> (\(e(check.level.rawValue))): \(e(check.reason))"
            if !check.evidence.isEmpty {
                html += "<ol class=\"evidence\">" + check.evidence.map { "<li><time>\(e(ReportDates.clock($0.time)))</time> <code>\(e($0.summary))</code></li>" }.joined() + "</ol>"
            }
            if let citation = check.citation { html += "<div class=\"cite\">See <a href=\"\(e(citation.url))\">\(e(citation.label))</a></div>" }
            html += "</li>\n"
        }
        html += "</ul>\n<h3>Steps</h3><ol class=\"steps\">\n"
        for outcome in result.outcomes {
            html += "<li>\(e(outcome.step.rawValue)): \(e(outcome.summary))\(outcome.detail.map { " — \(e($0))" } ?? "")</li>\n"
        }
        html += "</ol>\n<details><summary>All \(result.exchanges.count) requests of this client</summary><ol class=\"evidence\">"
        html += result.exchanges.map { "<li><time>\(e(ReportDates.clock($0.time)))</time> <code>\(e($0.summary))</code></li>" }.joined()
        html += "</ol></details>\n"
        if !result.citations.isEmpty {
            html += "<p class=\"cite\">Sources: " + result.citations.map { "<a href=\"\(e($0.url))\">\(e($0.label))</a>" }.joined(separator: "; ") + "</p>\n"
        }
        if let tail = result.stderrTail, !tail.isEmpty {
            html += "<details><summary>Adapter stderr (last \(tail.utf8.count) bytes)</summary><pre>\(e(tail))</pre></details>\n"
        }
        return html + "</section>\n"
    }

    static let style = """
        body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#1b1b1b}
        h1{font-size:1.6em}h2{font-size:1.15em;margin-top:2em;border-top:1px solid #ddd;padding-top:1em}h3{font-size:1em}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3em .6em;border-bottom:1px solid #eee;vertical-align:top}
        code,pre,time{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}pre{background:#f6f6f6;padding:.8em;overflow:auto;max-height:30em}
        .meta{color:#555}.cite{color:#555;font-size:.9em}.result{font-weight:600;padding:.5em .8em;border-radius:4px}
        .ok{background:#e6f4ea}.bad{background:#fce8e6}
        .v{font-weight:700;font-size:.85em;padding:.1em .4em;border-radius:3px}
        .PASSED{color:#137333}.FAILED{color:#c5221f}.WARNING{color:#b06000}.SKIPPED,.NOT_TESTABLE{color:#5f6368}
        ul.checks>li{margin-bottom:.6em}ol.evidence{margin:.3em 0}
        """
}
