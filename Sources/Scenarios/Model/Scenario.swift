import LinearRegex
package import FoundationGaps
package import IdentityPlatform
package import ExchangeKernel

/// A scripted behaviour of the identity platform: what the real service would do in one situation
/// (an expired refresh token, a throttled endpoint, a claims challenge), written as ordered rules.
package struct Scenario: Sendable, Equatable {
    /// Kebab-case, unique across the loaded library.
    package var name: String
    /// What the real service does, which client behaviour it exercises, what a correct MSAL client ends with.
    package var description: String
    /// Users, apps, consents and tenants added to the directory of every world this scenario is bound to.
    package var directory: DirectoryAdditions
    /// Where the world's virtual clock starts, relative to the server's clock.
    package var clockOffset: TimeInterval
    package var rules: [Rule]
    /// The file it came from (display only).
    package var source: String

    package init(name: String, description: String, directory: DirectoryAdditions = .init(), clockOffset: TimeInterval = 0, rules: [Rule], source: String = "") {
        self.name = name
        self.description = description
        self.directory = directory
        self.clockOffset = clockOffset
        self.rules = rules
        self.source = source
    }

    /// The description's first sentence, for one-line listings.
    package var summary: String {
        let firstLine = description.split(separator: "\n").first.map(String.init) ?? description
        guard let end = firstLine.range(of: ". ") else { return firstLine }
        return String(firstLine[..<end.lowerBound]) + "."
    }
}

/// Directory entries a scenario needs besides the server's own directory.
package struct DirectoryAdditions: Sendable, Equatable {
    package var tenants: [Tenant] = []
    package var users: [DirectoryUser] = []
    package var applications: [Application] = []
    package var consents: [ConsentGrant] = []

    package init(tenants: [Tenant] = [], users: [DirectoryUser] = [], applications: [Application] = [], consents: [ConsentGrant] = []) {
        self.tenants = tenants
        self.users = users
        self.applications = applications
        self.consents = consents
    }

    package var isEmpty: Bool { tenants.isEmpty && users.isEmpty && applications.isEmpty && consents.isEmpty }

    /// The directory with these entries added; an entry with the id of an existing one replaces it.
    package func applied(to base: Directory) -> Directory {
        var directory = base
        for tenant in tenants {
            directory.tenants.removeAll { $0.id == tenant.id }
            directory.tenants.append(tenant)
        }
        for user in users {
            directory.users.removeAll { $0.id == user.id }
            directory.users.append(user)
        }
        for app in applications {
            directory.applications.removeAll { $0.clientID.caseInsensitiveCompare(app.clientID) == .orderedSame }
            directory.applications.append(app)
        }
        for grant in consents { directory.grantConsent(grant) }
        return directory
    }
}

/// One step of a scenario: when `match` holds and firings remain, `actions` apply.
package struct Rule: Sendable, Equatable {
    package var note: String?
    package var match: RuleMatch
    /// Applied in order; at most one of them answers the request by itself (see `RuleAction.isTerminal`).
    package var actions: [RuleAction]
    package var times: FiringLimit

    package init(note: String? = nil, match: RuleMatch = .init(), actions: [RuleAction], times: FiringLimit = .once) {
        self.note = note
        self.match = match
        self.actions = actions
        self.times = times
    }

    package var terminalAction: RuleAction? { actions.first { $0.isTerminal } }
}

/// How many times a rule may fire. The default is once: scripted faults are events, and a client
/// that recovers correctly must then see the service behave normally again.
package enum FiringLimit: Sendable, Equatable, CustomStringConvertible {
    case times(Int)
    case always

    package static let once = FiringLimit.times(1)

    package var description: String {
        switch self {
        case .times(1): "once"
        case .times(let n): "\(n) times"
        case .always: "always"
        }
    }
}

/// Conditions on a request; every one given must hold.
package struct RuleMatch: Sendable, Equatable {
    package var endpoints: [EndpointKind] = []
    package var method: String?
    package var path: TextPattern?
    /// Graph resources by the Graph module's names (`me`, `events`, `calendarView`…).
    package var graphResources: [String] = []
    package var grantTypes: [String] = []
    package var clientIDs: [String] = []
    /// A UPN, sign-in name or object id.
    package var user: String?
    /// A tenant segment, id or domain.
    package var tenant: String?
    /// A B2C user flow or custom policy, case-insensitive.
    package var policy: String?
    /// The requested scopes must contain all of these (case-insensitive; a bare name means Graph).
    package var scopes: [String] = []
    /// Holds when the requested scopes miss at least one of these (a Graph call: the bearer token's `scp`).
    package var lacksScopes: [String] = []
    package var parameters: [ValueCondition] = []
    package var headers: [ValueCondition] = []
    /// Only the n-th request that meets the other conditions (1-based).
    package var nth: Int?
    /// Every request after the n-th that meets the other conditions.
    package var after: Int?
    package var window: TimeWindow?

    package init() {}
}

/// A text condition: equality, a regular expression, or presence.
package struct ValueCondition: Sendable, Equatable {
    package enum Test: Sendable, Equatable {
        case equals(String)
        case matches(TextPattern)
        case present(Bool)
    }

    package var name: String
    package var test: Test

    package init(name: String, test: Test) {
        self.name = name
        self.test = test
    }

    package func holds(for value: String?) -> Bool {
        switch test {
        case .equals(let expected): value == expected
        case .matches(let pattern): value.map(pattern.matches) ?? false
        case .present(let wanted): (value != nil) == wanted
        }
    }
}

/// A glob (`*` within a path segment, `**` across segments) or a regular expression.
package struct TextPattern: Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable { case glob, regex }
    package var source: String
    package var kind: Kind
    private let compiled: LinearRegex

    package init(glob: String) throws(PatternError) {
        source = glob
        kind = .glob
        compiled = try Self.compile("^" + TextPattern.regexSource(forGlob: glob) + "$", shown: glob)
    }

    package init(regex: String) throws(PatternError) {
        source = regex
        kind = .regex
        compiled = try Self.compile(regex, shown: regex)
    }

    /// Linear in `text` whatever the pattern (see `LinearRegex`).
    package func matches(_ text: String) -> Bool { compiled.matches(text) }

    /// The refusal names the character at fault.
    private static func compile(_ source: String, shown: String) throws(PatternError) -> LinearRegex {
        do {
            return try LinearRegex(source)
        } catch {
            throw PatternError(message: error.message(pattern: shown))
        }
    }

    package var description: String { kind == .glob ? source : "/\(source)/" }

    package static func == (lhs: TextPattern, rhs: TextPattern) -> Bool { lhs.source == rhs.source && lhs.kind == rhs.kind }

    static func regexSource(forGlob glob: String) -> String {
        var out = ""
        var chars = Array(glob)[...]
        while let c = chars.popFirst() {
            switch c {
            case "*":
                if chars.first == "*" {
                    chars = chars.dropFirst()
                    out += ".*"
                } else {
                    out += "[^/]*"
                }
            case "?": out += "[^/]"
            case _ where c.isASCII && !c.isLetter && !c.isNumber: out += "\\" + String(c)
            default: out.append(c)
            }
        }
        return out
    }
}

package struct PatternError: Error, Sendable, Equatable {
    package var message: String
}

/// A span of virtual time: bounds are seconds since the binding started, or absolute instants.
package struct TimeWindow: Sendable, Equatable {
    package enum Bound: Sendable, Equatable {
        case sinceStart(TimeInterval)
        case instant(Date)

        func resolve(start: Date) -> Date {
            switch self {
            case .sinceStart(let seconds): start.addingTimeInterval(seconds)
            case .instant(let date): date
            }
        }
    }

    /// Inclusive.
    package var from: Bound?
    /// Exclusive.
    package var until: Bound?

    package init(from: Bound? = nil, until: Bound? = nil) {
        self.from = from
        self.until = until
    }

    package func contains(_ now: Date, start: Date) -> Bool {
        if let from, now < from.resolve(start: start) { return false }
        if let until, now >= until.resolve(start: start) { return false }
        return true
    }
}

extension Scenario {
    /// True when a rule rolls the signing key: binding it prepares the next key ahead (`SpareSigningKey`).
    package var rollsSigningKey: Bool {
        rules.contains { rule in rule.actions.contains { if case .rollSigningKey = $0 { true } else { false } } }
    }
}
