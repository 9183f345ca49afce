import EntraCrypto
import EntraHTTP
package import FoundationGaps
package import ExchangeKernel
package import IdentityPlatform
import Synchronization

/// Whom a binding applies to.
package enum BindingTarget: Sendable, Hashable, CustomStringConvertible {
    /// Every request no other binding claims (`--scenario NAME`).
    case server
    case client(id: String)
    /// A UPN, sign-in name or object id.
    case user(String)
    /// A made-up tenant segment (`scenario-expired-rt`) the app's authority names, standing for a real tenant.
    case tenantAlias(alias: String, tenant: String)

    package var description: String {
        switch self {
        case .server: "server"
        case .client(let id): "client \(id)"
        case .user(let name): "user \(name)"
        case .tenantAlias(let alias, let tenant): "tenant alias \(alias) → \(tenant)"
        }
    }
}

/// One isolated copy of the platform: its own directory, state, clock, keys, rule counters.
/// The default world wraps the server's own service; every binding gets a fresh one.
package final class ScenarioWorld: Sendable {
    package let id: String
    package let scenario: Scenario?
    package let target: BindingTarget?
    package let service: IdentityService
    /// Virtual time at which the world started (windows count from here).
    package let startedAt: Date
    let book: Mutex<RuleBook>
    /// False for the default world and rule-less scenarios: their answers need no facts about state.
    let hasRules: Bool
    /// The world's services (Entra, Graph, B2C, …) over its identity service.
    let router: WorldRouter
    /// Directives that started an interactive flow, by flow id: its pages (sign-in, MFA, consent) get them too.
    let flowDirectives = Mutex<[String: ScenarioDirectives]>([:])

    init(id: String, scenario: Scenario?, target: BindingTarget?, service: IdentityService, router: WorldRouter) {
        self.id = id
        self.scenario = scenario
        self.target = target
        self.service = service
        startedAt = service.clock.now()
        book = Mutex(RuleBook(rules: scenario?.rules ?? []))
        hasRules = !(scenario?.rules ?? []).isEmpty
        self.router = router
    }

    package var virtualClock: VirtualClock? { service.clock as? VirtualClock }

    /// Match and firing counts per rule, for the control API and tests.
    package var counters: [(matched: Int, fired: Int)] {
        book.withLock { book in Array(zip(book.matchCounts, book.firings)).map { (matched: $0.0, fired: $0.1) } }
    }

    /// Seconds of virtual time since the world started.
    package var elapsed: TimeInterval { service.clock.now().timeIntervalSince(startedAt) }
}

/// What a world starts from, kept so `reset` can restore it exactly.
struct WorldBlueprint: Sendable {
    var directory: Directory
    var clockOffset: TimeInterval
    var frozen: Bool
    var signingKey: SigningCredential
    var options: IdentityOptions

    /// `now` is the server's clock: the world starts there plus the scenario's offset.
    func makeService(now: Date) -> IdentityService {
        let clockStart = now.addingTimeInterval(clockOffset)
        let clock = frozen ? VirtualClock(frozenAt: clockStart) : VirtualClock()
        if !frozen { clock.set(to: clockStart) }
        return IdentityService(directory: directory, keys: SigningKeyRing(current: signingKey), clock: clock, options: options)
    }

    /// A binding's directory: the server's plus the scenario's additions, plus the alias as a domain of its tenant.
    static func directory(base: Directory, scenario: Scenario, target: BindingTarget) -> Directory {
        var directory = scenario.directory.applied(to: base)
        if case .tenantAlias(let alias, let tenantName) = target, let index = directory.tenants.firstIndex(where: {
            $0.id == tenantName.lowercased() || $0.domains.contains(tenantName.lowercased())
        }) {
            directory.tenants[index].domains.append(alias.lowercased())
        }
        return directory
    }
}
