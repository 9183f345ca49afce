package import FoundationGaps
package import ExchangeKernel
import IdentityPlatform
import EntraHTTP

/// What the rules decided for one request.
package struct RuleOutcome: Sendable, Equatable {
    /// What the platform is told for this request (declined scopes, consent, MFA, lifetimes, claims).
    package var directives = ScenarioDirectives()
    /// Real-time delay before the answer, in milliseconds.
    package var delayMilliseconds = 0
    /// The answer a rule gave instead of the service's: the service renders it (a dropped connection, the
    /// transport).
    package var answer: RuleAction?
    /// Clock moves and key rolls, applied before the request is answered.
    package var worldChanges: [RuleAction] = []
    /// Indexes of the rules that fired, in order.
    package var firedRules: [Int] = []

    package init() {}
}

/// A scenario's rules with their counters: the part of a binding's world that `reset` rewinds.
///
/// Semantics (docs/scenarios.md): each rule counts the requests that meet its conditions, whether
/// or not it fires, so `nth` and `after` count independently of other rules. Rules are tried in
/// order; a rule fires when its conditions hold, its `nth`/`after` count is reached and it has
/// firings left. Directives of every firing rule accumulate; the first firing rule with an answer
/// wins, and no later rule fires (they still count the request).
package struct RuleBook: Sendable {
    package let rules: [Rule]
    package private(set) var matchCounts: [Int]
    package private(set) var firings: [Int]

    package init(rules: [Rule]) {
        self.rules = rules
        matchCounts = Array(repeating: 0, count: rules.count)
        firings = Array(repeating: 0, count: rules.count)
    }

    package mutating func evaluate(_ facts: RequestFacts, now: Date, start: Date) -> RuleOutcome {
        var outcome = RuleOutcome()
        for (index, rule) in rules.enumerated() where rule.match.conditionsHold(for: facts, now: now, start: start) && rule.reaches(facts) {
            matchCounts[index] += 1
            guard outcome.answer == nil, rule.match.countReached(matchCounts[index]), hasFiringsLeft(index) else { continue }
            firings[index] += 1
            outcome.firedRules.append(index)
            for action in rule.actions { outcome.apply(action) }
        }
        return outcome
    }

    private func hasFiringsLeft(_ index: Int) -> Bool {
        switch rules[index].times {
        case .always: true
        case .times(let limit): firings[index] < limit
        }
    }
}

extension ScenarioDirectives {
    /// Both sets of directives: lists joined, flags or-ed, `other`'s lifetimes and claims winning.
    func merged(with other: ScenarioDirectives) -> ScenarioDirectives {
        var result = self
        result.declinedScopes += other.declinedScopes.filter { !declinedScopes.contains($0) }
        result.consentRequiredScopes += other.consentRequiredScopes.filter { !consentRequiredScopes.contains($0) }
        result.requireMFA = requireMFA || other.requireMFA
        result.accessTokenLifetime = other.accessTokenLifetime ?? accessTokenLifetime
        result.refreshTokenLifetime = other.refreshTokenLifetime ?? refreshTokenLifetime
        result.idTokenLifetime = other.idTokenLifetime ?? idTokenLifetime
        result.refreshIn = other.refreshIn ?? refreshIn
        result.redirectState = other.redirectState ?? redirectState
        result.deviceCodeInterval = other.deviceCodeInterval ?? deviceCodeInterval
        result.discoveryIssuer = other.discoveryIssuer ?? discoveryIssuer
        result.accessTokenForgery = other.accessTokenForgery ?? accessTokenForgery
        result.idTokenForgery = other.idTokenForgery ?? idTokenForgery
        result.accessTokenClaims.merge(other.accessTokenClaims) { _, new in new }
        result.idTokenClaims.merge(other.idTokenClaims) { _, new in new }
        return result
    }
}

extension Rule {
    /// A rule answers only the requests of a service that gives such an answer: Graph's errors and
    /// challenges Graph calls, OAuth errors the identity platform's endpoints, a hand-off to the browser
    /// the native-authentication steps that can make one. And Graph sends continuous
    /// access evaluation challenges only to clients that declared `cp1` (the `xms_cc` claim): a rule that
    /// answers with one ignores every other request, as Graph does.
    func reaches(_ facts: RequestFacts) -> Bool {
        switch terminalAction {
        case .claimsChallenge?:
            facts.kind == .graph && facts.clientCapabilities.contains { $0.caseInsensitiveCompare("cp1") == .orderedSame }
        case .graphError?: facts.kind == .graph
        case .oauthError?: ![.graph, .arm, .managedidentity].contains(facts.kind)
        case .browserRequired?: facts.handsJourneyToBrowser
        default: true
        }
    }
}

extension RuleOutcome {
    mutating func apply(_ action: RuleAction) {
        switch action {
        case .oauthError, .serviceError, .dropConnection, .graphError, .claimsChallenge, .response, .browserRequired:
            if answer == nil { answer = action }
        case .declineScopes(let scopes): directives.declinedScopes += scopes
        case .requireConsent(let scopes): directives.consentRequiredScopes += scopes
        case .requireMFA: directives.requireMFA = true
        case .tokenLifetimes(let lifetimes):
            if let value = lifetimes.accessToken { directives.accessTokenLifetime = value }
            if let value = lifetimes.refreshToken { directives.refreshTokenLifetime = value }
            if let value = lifetimes.idToken { directives.idTokenLifetime = value }
            if let value = lifetimes.refreshIn { directives.refreshIn = value }
        case .tokenClaims(let claims):
            directives.accessTokenClaims.merge(claims.accessToken) { _, new in new }
            directives.idTokenClaims.merge(claims.idToken) { _, new in new }
        case .delay(let milliseconds): delayMilliseconds += milliseconds
        case .redirectState(let state): directives.redirectState = state
        case .deviceCodeInterval(let seconds): directives.deviceCodeInterval = seconds
        case .discoveryIssuer(let issuer): directives.discoveryIssuer = issuer
        case .forgeTokens(let accessToken, let idToken):
            if let accessToken { directives.accessTokenForgery = accessToken }
            if let idToken { directives.idTokenForgery = idToken }
        case .passThrough: break
        case .rollSigningKey, .advanceClock: worldChanges.append(action)
        }
    }
}

extension RuleMatch {
    /// Every condition except the `nth` / `after` count.
    package func conditionsHold(for facts: RequestFacts, now: Date, start: Date) -> Bool {
        if !endpoints.isEmpty, !endpoints.contains(where: { $0 == facts.kind || ($0 == .b2c && facts.isB2C) }) { return false }
        if let method, method != facts.method { return false }
        if let path, !path.matches(facts.path) { return false }
        if !graphResources.isEmpty, !graphResources.contains(where: { $0 == facts.graphResource }) { return false }
        if !grantTypes.isEmpty {
            guard let grant = facts.grantType?.lowercased(), grantTypes.contains(where: { Self.sameGrant($0, grant) }) else { return false }
        }
        if !clientIDs.isEmpty {
            guard let client = facts.clientID, clientIDs.contains(where: { $0.caseInsensitiveCompare(client) == .orderedSame }) else { return false }
        }
        if let user, !facts.userNames.contains(user.lowercased()) { return false }
        if let tenant, !facts.tenantNames.contains(tenant.lowercased()) { return false }
        if let policy, facts.policy?.caseInsensitiveCompare(policy) != .orderedSame { return false }
        let requested = Set(facts.scopes)
        if !scopes.isEmpty, !scopes.allSatisfy({ requested.contains(RequestFacts.normalizedScope($0)) }) { return false }
        if !lacksScopes.isEmpty, lacksScopes.allSatisfy({ requested.contains(RequestFacts.normalizedScope($0)) }) { return false }
        for condition in parameters where !condition.holds(for: facts.parameters[condition.name]) { return false }
        for condition in headers where !condition.holds(for: facts.headers[condition.name]) { return false }
        if let window, !window.contains(now, start: start) { return false }
        return true
    }

    package func countReached(_ count: Int) -> Bool {
        if let nth { return count == nth }
        if let after { return count > after }
        return true
    }

    /// `device_code` also names `urn:ietf:params:oauth:grant-type:device_code`.
    static func sameGrant(_ written: String, _ sent: String) -> Bool {
        let w = written.lowercased()
        return w == sent || sent.hasSuffix(":" + w)
    }
}
