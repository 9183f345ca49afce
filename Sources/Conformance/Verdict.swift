import Foundation

/// The results of the OpenID Foundation's suite, less REVIEW: a check either decides or says why it cannot.
public enum Verdict: String, Sendable, Codable, CaseIterable, Comparable {
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

    public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.severity < rhs.severity }
}

/// One check's judgement with the exchanges and replies that decided it.
public struct CheckResult: Sendable, Codable, Equatable {
    public var check: String
    public var level: CaseLevel
    public var verdict: Verdict
    public var reason: String
    public var evidence: [Exchange]
    /// Step replies the verdict rests on (two-sided checks).
    public var replies: [StepOutcome]
    public var citation: Citation?

    public init(check: String, level: CaseLevel, verdict: Verdict, reason: String, evidence: [Exchange] = [], replies: [StepOutcome] = [], citation: Citation? = nil) {
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
public struct CaseResult: Sendable, Codable, Equatable {
    public var caseID: String
    public var title: String
    public var area: CaseArea
    public var level: CaseLevel
    public var verdict: Verdict
    public var reason: String
    public var checks: [CheckResult]
    public var outcomes: [StepOutcome]
    /// Every exchange of the case's client id, in order.
    public var exchanges: [Exchange]
    public var description: String
    public var citations: [Citation]
    public var clientID: String?
    public var durationSeconds: Double
    /// The last 64 KiB of the adapter's stderr (CLI runs).
    public var stderrTail: String?
    /// Set when a baseline entry expected this case to fail.
    public var baseline: BaselineNote?

    public init(caseID: String, title: String, area: CaseArea, level: CaseLevel, verdict: Verdict, reason: String, checks: [CheckResult],
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
    public var failsRun: Bool { verdict == .failed && level == .required && baseline?.status != .expectedFailure }
}

public struct BaselineNote: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        /// Listed, and it did fail: not counted against the run.
        case expectedFailure = "expected_failure"
        /// Listed, but it passed: the baseline has rotted, and the run fails until the entry goes.
        case noLongerFails = "no_longer_fails"
    }
    public var status: Status
    public var reason: String
}
