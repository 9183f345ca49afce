import Foundation
import IdentityPlatform
import LocatedJSON
import Scenarios

/// How a failed case counts: `required` is what a correct MSAL client does (MSAL for Python 1.39 passes
/// every one), `recommended` is OIDC/RFC hardening MSAL deliberately skips — a failure is a WARNING.
public enum CaseLevel: String, Sendable, Codable, CaseIterable {
    case required, recommended
}

public enum CaseArea: String, Sendable, Codable, CaseIterable {
    case protocolSafety = "protocol"
    case errors
    case resilience
    case lifecycle
    case graph
    case b2c

    public var title: String {
        switch self {
        case .protocolSafety: "Protocol safety"
        case .errors: "Error handling"
        case .resilience: "Resilience"
        case .lifecycle: "Token lifecycle"
        case .graph: "Microsoft Graph"
        case .b2c: "Azure AD B2C"
        }
    }
}

/// The clause a check rests on: a Microsoft documentation page, an MSAL source file or an RFC/OIDC section.
public struct Citation: Sendable, Codable, Equatable, Hashable {
    public var label: String
    public var url: String

    public init(_ label: String, _ url: String) {
        self.label = label
        self.url = url
    }
}

/// One conformance case: a scripted service behaviour (a scenario bound to the case's fresh client id),
/// the journey the client is asked to walk, and the checks that judge what it did.
public struct ConformanceCase: Sendable {
    /// `area.name`, e.g. `resilience.retry-after-seconds`.
    public var id: String
    public var title: String
    public var area: CaseArea
    public var level: CaseLevel
    /// What the real service does in this situation.
    public var service: String
    /// What a correct client does.
    public var correctClient: String
    /// What decides the verdict.
    public var verdictRule: String
    public var citations: [Citation]
    /// The scenario's `rules` as written in a scenario file (docs/scenarios.md): the case's server
    /// behaviour goes through the same decoder and validation as any scenario.
    public var rules: String
    /// The world's clock offset from the server's (the clock-skew case): per binding, so parallel
    /// cases keep their own time.
    public var clockOffset: TimeInterval
    public var journey: [JourneyStep]
    public var checks: [Check]
    /// Scopes consented for the app before the case starts (the case's default scopes unless it says otherwise).
    public var consentedScopes: [String]
    public var scopes: [String]
    /// The adapter's HTTP timeout (`FAKEENTRA_STEP_TIMEOUT`).
    public var httpTimeout: Int
    public var b2c: Bool
    /// The case's authority is a path of its own (a tenant alias bound to its world) rather than the
    /// tenant's: requests without a client id, as discovery is, then reach the case's scenario and journal.
    package var ownAuthority: Bool

    public init(
        id: String, title: String, level: CaseLevel, service: String, correctClient: String, verdictRule: String,
        citations: [Citation], rules: String, clockOffset: TimeInterval = 0, journey: [JourneyStep], checks: [Check],
        scopes: [String] = ["User.Read"], consentedScopes: [String]? = nil, httpTimeout: Int = 10, b2c: Bool = false, ownAuthority: Bool = false
    ) {
        self.id = id
        self.title = title
        self.area = CaseArea(rawValue: String(id.prefix { $0 != "." })) ?? .errors
        self.level = level
        self.service = service
        self.correctClient = correctClient
        self.verdictRule = verdictRule
        self.citations = citations
        self.rules = rules
        self.clockOffset = clockOffset
        self.journey = journey
        self.checks = checks
        self.scopes = scopes
        self.consentedScopes = consentedScopes ?? scopes
        self.httpTimeout = httpTimeout
        self.b2c = b2c
        self.ownAuthority = ownAuthority
    }

    /// The scenario file the case binds to its client id; the name is unique per case.
    public var scenarioFile: String {
        var members = [
            "\"name\": " + JSONValue.quoted(scenarioName),
            "\"description\": " + JSONValue.quoted("\(title). \(service)"),
        ]
        if clockOffset != 0 { members.append("\"clock\": {\"offsetSeconds\": \(Int(clockOffset))}") }
        members.append("\"rules\": " + rules)
        return "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
    }

    /// The case's scenario, checked as any scenario file is; a problem is a bug in the catalogue
    /// (a test decodes every case).
    public func scenario(baseDirectory: Directory = .embeddedDefault) -> Result<Scenario, JSONProblems> {
        ScenarioLibrary.parse(Array(scenarioFile.utf8), file: "conformance/\(id).json", baseDirectory: baseDirectory)
    }

    public var scenarioName: String {
        "conformance-" + id.map { $0.isLetter || $0.isNumber ? String($0).lowercased() : "-" }.joined()
    }

    /// The real time a run of this case needs at most: step deadlines plus waits.
    public var budgetSeconds: Double {
        journey.reduce(0) { $0 + $1.deadlineSeconds + ($1.seconds ?? 0) }
    }
}
