import FoundationGaps

/// The results of the OpenID Foundation's suite, less REVIEW: a check either decides or says why it cannot.
package enum Verdict: String, Sendable, Codable, CaseIterable, Comparable {
    case passed = "PASSED"
    case failed = "FAILED"
    case warning = "WARNING"
    case skipped = "SKIPPED"
    case notTestable = "NOT_TESTABLE"

    /// Worst first: a case takes the most severe verdict of its checks.
    var severity: Int {
        switch self {
        case .failed: 4
        case .notTestable: 3
        case .warning: 2
        case .passed: 1
        case .skipped: 0
        }
    }

    package static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.severity < rhs.severity }
}

/// One check's judgement with the exchanges and replies that decided it.
package struct CheckResult: Sendable, Codable, Equatable {
    package var check: String
    package var level: CaseLevel
    package var verdict: Verdict
    package var reason: String
    package var evidence: [Exchange]
    /// Step replies the verdict rests on (two-sided checks).
    package var replies: [StepOutcome]
    package var citation: Citation?

    package init(check: String, level: CaseLevel, verdict: Verdict, reason: String, evidence: [Exchange] = [], replies: [StepOutcome] = [], citation: Citation? = nil) {
        self.check = check
        self.level = level
        self.verdict = verdict
        self.reason = reason
        self.evidence = evidence
        self.replies = replies
        self.citation = citation
    }
}

/// A case's verdict, its checks, the adapter's replies and everything a report shows.
package struct CaseResult: Sendable, Codable, Equatable {
    package var caseID: String
    package var title: String
    package var area: CaseArea
    package var level: CaseLevel
    package var verdict: Verdict
    package var reason: String
    package var checks: [CheckResult]
    package var outcomes: [StepOutcome]
    /// Every exchange of the case's client id, in order.
    package var exchanges: [Exchange]
    package var description: String
    package var citations: [Citation]
    package var clientID: String?
    package var durationSeconds: Double
    /// The last 64 KiB of the adapter's stderr (CLI runs).
    package var stderrTail: String?
    /// Set when a baseline entry expected this case to fail.
    package var baseline: BaselineNote?

    package init(caseID: String, title: String, area: CaseArea, level: CaseLevel, verdict: Verdict, reason: String, checks: [CheckResult],
                outcomes: [StepOutcome], exchanges: [Exchange], description: String, citations: [Citation], clientID: String? = nil,
                durationSeconds: Double = 0, stderrTail: String? = nil, baseline: BaselineNote? = nil) {
        self.caseID = caseID
        self.title = title
        self.area = area
        self.level = level
        self.verdict = verdict
        self.reason = reason
        self.checks = checks
        self.outcomes = outcomes
        self.exchanges = exchanges
        self.description = description
        self.citations = citations
        self.clientID = clientID
        self.durationSeconds = durationSeconds
        self.stderrTail = stderrTail
        self.baseline = baseline
    }

    /// A required case that FAILED and is not an expected failure: what makes a run fail.
    package var failsRun: Bool { verdict == .failed && level == .required && baseline?.status != .expectedFailure }
}

package struct BaselineNote: Sendable, Codable, Equatable {
    package enum Status: String, Sendable, Codable {
        /// Listed, and it did fail: not counted against the run.
        case expectedFailure = "expected_failure"
        /// Listed, but it passed: the baseline has rotted, and the run fails until the entry goes.
        case noLongerFails = "no_longer_fails"
    }
    package var status: Status
    package var reason: String
}
