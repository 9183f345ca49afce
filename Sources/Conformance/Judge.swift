import ExchangeKernel
import FoundationGaps

/// Judges a case from its client's exchanges (the journal entries of its world) and the adapter's replies.
package struct Judge: Sendable {
    /// Journal times are taken when an answer is ready and the client's next request when it is
    /// answered: a client that waited exactly Retry-After may still show a few milliseconds less.
    package static let timingTolerance: Double = 0.2

    package let exchanges: [Exchange]
    package let outcomes: [StepOutcome]
    /// The MCP server the case's app was to call (its URL is RFC 8707's resource), when the case names one.
    package let mcpServer: MCPServerSettings?
    /// Dynamic registrations posted while this case and another MCP case both ran: either app's.
    package let unattributableRegistrations: [Exchange]

    package init(exchanges: [Exchange], outcomes: [StepOutcome], mcpServer: MCPServerSettings? = nil, unattributableRegistrations: [Exchange] = []) {
        self.exchanges = exchanges.sorted { $0.id < $1.id }
        self.outcomes = outcomes
        self.mcpServer = mcpServer
        self.unattributableRegistrations = unattributableRegistrations
    }

    package func judge(_ conformanceCase: ConformanceCase, clientID: String? = nil, durationSeconds: Double = 0, stderrTail: String? = nil) -> CaseResult {
        var checks = conformanceCase.checks.map { evaluate($0, caseLevel: conformanceCase.level) }
        // An adapter that cannot take a step makes the case untested, not failed.
        if let unsupported = outcomes.first(where: { $0.observed == .answered && $0.error == .unsupported }) {
            checks = checks.map { result in
                var skipped = result
                skipped.verdict = .skipped
                skipped.reason = "the adapter cannot take step \(unsupported.id) (\(unsupported.step.rawValue)): \(unsupported.detail ?? "unsupported")"
                return skipped
            }
        }
        let worst = checks.max { $0.verdict < $1.verdict }
        let verdict = worst?.verdict ?? .notTestable
        let reason: String
        if let worst, verdict != .passed {
            reason = "\(worst.check): \(worst.reason)"
        } else {
            reason = checks.count == 1 ? checks[0].reason : "all \(checks.count) checks passed"
        }
        return CaseResult(
            caseID: conformanceCase.id, title: conformanceCase.title, area: conformanceCase.area, level: conformanceCase.level,
            verdict: verdict, reason: reason, checks: checks, outcomes: outcomes, exchanges: exchanges,
            description: "\(conformanceCase.service) \(conformanceCase.correctClient) \(conformanceCase.verdictRule)",
            citations: conformanceCase.citations, clientID: clientID, durationSeconds: durationSeconds, stderrTail: stderrTail
        )
    }

    package func evaluate(_ check: Check, caseLevel: CaseLevel) -> CheckResult {
        let level = check.level ?? caseLevel
        let (verdict, reason, evidence, replies) = decide(check.rule)
        // A failed recommended check warns: MSAL skips that hardening on purpose.
        let shown = verdict == .failed && level == .recommended ? .warning : verdict
        return CheckResult(check: check.name, level: level, verdict: shown, reason: reason, evidence: evidence, replies: replies, citation: check.citation)
    }

    typealias Decision = (Verdict, String, [Exchange], [StepOutcome])

    private func decide(_ rule: Check.Rule) -> Decision {
        switch rule {
        case .reply(let step, let expectation): replyDecision(step: step, expectation)
        case .pkceS256: pkceDecision()
        case .noneAfter(let trigger, let forbidden, let reachedBy): noneAfterDecision(trigger, forbidden, reachedBy)
        case .follows(let trigger, let then): followsDecision(trigger, then)
        case .waits(let trigger, let next, let seconds, let reachedBy): waitsDecision(trigger, next, seconds, reachedBy)
        case .atMost(let count, let match, let after): atMostDecision(count, match, after)
        case .noneDuring(let step, let match): duringDecision(step, match, wanted: false)
        case .someDuring(let step, let match): duringDecision(step, match, wanted: true)
        case .someFrom(let step, let match): someFromDecision(step, match)
        case .presentsNewestRefreshToken: rotationDecision()
        case .neverRepresentsRefusedRefreshToken(let reachedBy): deadGrantDecision(reachedBy)
        case .backsOffAfterSlowDown(let reachedBy): slowDownDecision(reachedBy)
        case .waitsAfterEach(let trigger, let next, let seconds, let reachedBy): waitsAfterEachDecision(trigger, next, seconds, reachedBy)
        case .seen(let match, let once):
            if let hit = first(match) {
                (.passed, "\(match) was seen", [hit], [])
            } else if let place = first(once) {
                (.failed, "\(match) was never seen (\(once) came without it)", [place], [])
            } else {
                notSeen(once)
            }
        case .pages(let step, let judgement): pagesDecision(step, judgement)
        case .account(let step, let sameAs, let notAs): accountDecision(step, sameAs: sameAs, notAs: notAs)
        case .noRefreshTokenFromBefore(let step, let reachedBy): refreshTokenFromBeforeDecision(step, reachedBy: reachedBy)
        case .freshPerSignIn: freshPerSignInDecision()
        case .noSecretInBrowserRequests: browserSecretDecision()
        case .namesResource(let request): resourceDecision(request)
        case .noDynamicRegistration(let step): dynamicRegistrationDecision(step: step)
        }
    }

    func outcome(_ step: Int) -> StepOutcome? { outcomes.first { $0.id == step } }

    private func first(_ match: ExchangeMatch, after start: Exchange? = nil) -> Exchange? {
        exchanges.first { (start == nil || $0.id > start!.id) && match.matches($0) }
    }

    func all(_ match: ExchangeMatch, after start: Exchange? = nil) -> [Exchange] {
        exchanges.filter { (start == nil || $0.id > start!.id) && match.matches($0) }
    }

    func notSeen(_ match: ExchangeMatch) -> Decision {
        (.notTestable, "\(match) was never seen, so the client never reached the situation this check judges", [], [])
    }

    private func replyDecision(step: Int, _ expectation: ReplyExpectation) -> Decision {
        guard let outcome = outcome(step), outcome.observed != .notSent else {
            return (.notTestable, "step \(step) was never taken", [], [])
        }
        if outcome.observed == .deadlineExceeded, expectation.waitingIsFine {
            return (.passed, "step \(step) (\(outcome.step.rawValue)): the app was still waiting for a valid answer at the deadline", [], [outcome])
        }
        guard outcome.observed == .answered else {
            return (.failed, "step \(step) (\(outcome.step.rawValue)): \(outcome.summary)" + (outcome.detail.map { ": \($0)" } ?? ""), [], [outcome])
        }
        if let problem = expectation.problem(with: outcome) {
            return (.failed, "step \(step) (\(outcome.step.rawValue)): \(problem)", [], [outcome])
        }
        return (.passed, "step \(step) (\(outcome.step.rawValue)) \(expectation.label): \(outcome.summary)", [], [outcome])
    }

    private func pkceDecision() -> Decision {
        let authorizations = all(.authorize).filter { $0.method == "GET" || $0.parameters["client_id"] != nil }
        guard !authorizations.isEmpty else { return notSeen(.authorize) }
        if let bad = authorizations.first(where: { $0.parameters["code_challenge_method"] != "S256" || ($0.parameters["code_challenge"] ?? "").isEmpty }) {
            let method = bad.parameters["code_challenge_method"].map { "code_challenge_method=\($0)" } ?? "no code_challenge_method"
            return (.failed, "/authorize without an S256 code challenge (\(method))", [bad], [])
        }
        let redemptions = all(.codeRedemption)
        guard !redemptions.isEmpty else { return notSeen(.codeRedemption) }
        if let bad = redemptions.first(where: { ($0.parameters["code_verifier"] ?? "").isEmpty }) {
            return (.failed, "the code was redeemed without a code_verifier", [bad], [])
        }
        return (.passed, "\(authorizations.count) /authorize with S256 challenges, \(redemptions.count) redemption(s) with a verifier", authorizations + redemptions, [])
    }

    private func noneAfterDecision(_ trigger: ExchangeMatch, _ forbidden: ExchangeMatch, _ reachedBy: Int?) -> Decision {
        guard let triggered = first(trigger) else { return notSeen(trigger) }
        if let offending = first(forbidden, after: triggered) {
            return (.failed, "\(forbidden) followed \(trigger)", [triggered, offending], [])
        }
        if let reachedBy {
            guard let reply = outcome(reachedBy), reply.observed == .answered, reply.ended(after: triggered) else {
                return (.notTestable, "\(trigger) was seen, but step \(reachedBy) never finished after it: silence proves nothing", [triggered], [])
            }
            return (.passed, "\(forbidden.absence) after \(trigger), though the app went on to step \(reachedBy)", [triggered], [reply])
        }
        return (.passed, "\(forbidden.absence) after \(trigger)", [triggered], [])
    }

    private func followsDecision(_ trigger: ExchangeMatch, _ then: ExchangeMatch) -> Decision {
        guard let triggered = first(trigger) else { return notSeen(trigger) }
        guard let recovery = first(then, after: triggered) else {
            return (.failed, "\(trigger) was never followed by \(then)", [triggered], [])
        }
        return (.passed, "\(then) followed \(trigger)", [triggered, recovery], [])
    }

    private func waitsDecision(_ trigger: ExchangeMatch, _ next: ExchangeMatch, _ seconds: Double, _ reachedBy: Int?) -> Decision {
        guard let triggered = first(trigger) else { return notSeen(trigger) }
        if let following = first(next, after: triggered) {
            let gap = following.time.timeIntervalSince(triggered.time)
            let shown = String(format: "%.2f s", gap)
            if gap + Self.timingTolerance < seconds {
                return (.failed, "\(next) came \(shown) after \(trigger), before the \(Self.seconds(seconds)) the service asked for", [triggered, following], [])
            }
            return (.passed, "\(next) came \(shown) after \(trigger) (at least \(Self.seconds(seconds)))", [triggered, following], [])
        }
        if let reachedBy, let reply = outcome(reachedBy), reply.observed == .answered, reply.ended(after: triggered) {
            return (.passed, "\(next.absence) after \(trigger), though the app went on to step \(reachedBy)", [triggered], [reply])
        }
        return (.notTestable, "\(next.absence) after \(trigger) and no later step answered: the wait cannot be measured", [triggered], [])
    }

    private func atMostDecision(_ count: Int, _ match: ExchangeMatch, _ after: ExchangeMatch) -> Decision {
        guard let triggered = first(after) else { return notSeen(after) }
        let later = all(match, after: triggered)
        if later.count > count {
            return (.failed, "\(later.count) × \(match) after \(after) (at most \(count))", [triggered] + later, [])
        }
        return (.passed, "\(later.count) × \(match) after \(after) (at most \(count))", [triggered] + later, [])
    }

    private func duringDecision(_ step: Int, _ match: ExchangeMatch, wanted: Bool) -> Decision {
        during(step) { reply, window in
            let seen = exchanges.filter { window.contains($0.time) && match.matches($0) }
            switch (wanted, seen.isEmpty) {
            case (false, true): return (.passed, "\(match.absence) during step \(step) (\(reply.step.rawValue))", [], [reply])
            case (false, false): return (.failed, "\(seen.count) × \(match) during step \(step) (\(reply.step.rawValue))", seen, [reply])
            case (true, true): return (.failed, "\(match.absence) during step \(step) (\(reply.step.rawValue))", [], [reply])
            case (true, false): return (.passed, "\(match) during step \(step) (\(reply.step.rawValue))", seen, [reply])
            }
        }
    }

    private func someFromDecision(_ step: Int, _ match: ExchangeMatch) -> Decision {
        guard let reply = outcome(step), reply.observed != .notSent, let startedAt = reply.startedAt else {
            return (.notTestable, "step \(step) was never taken", [], [])
        }
        let seen = exchanges.filter { $0.time >= startedAt && match.matches($0) }
        guard seen.isEmpty else { return (.passed, "\(match) from step \(step) (\(reply.step.rawValue)) on", seen, [reply]) }
        return (.failed, "\(match.absence) from step \(step) (\(reply.step.rawValue)) on", [], [reply])
    }

    /// `judge` given step `step`'s reply and the time it ran; or, when what the step sent cannot be told
    /// from the rest (never taken, no reply, no times), the NOT_TESTABLE that says why.
    func during(_ step: Int, _ judge: (StepOutcome, ClosedRange<Date>) -> Decision) -> Decision {
        guard let reply = outcome(step), reply.observed != .notSent else { return (.notTestable, "step \(step) was never taken", [], []) }
        guard reply.observed == .answered else {
            return (.notTestable, "step \(step) got no reply (\(reply.summary)): what it sent cannot be attributed", [], [reply])
        }
        guard let startedAt = reply.startedAt, let endedAt = reply.endedAt else {
            return (.notTestable, "step \(step) was reported without its times: its requests cannot be attributed", [], [reply])
        }
        return judge(reply, startedAt...max(startedAt, endedAt))
    }

    private func rotationDecision() -> Decision {
        // The refresh token issued last, by its receipt handle.
        var newest: (handle: String, exchange: Exchange)?
        var presented: [Exchange] = []
        for exchange in exchanges where ExchangeMatch.tokenRequest.matches(exchange) {
            if ExchangeMatch.refresh.matches(exchange) {
                presented.append(exchange)
                if let newest, !exchange.presentsRefreshToken(newest.handle) {
                    return (.failed, "a refresh request presented an older refresh token than the one issued last", [newest.exchange, exchange], [])
                }
            }
            if exchange.status == 200, let issued = exchange.answer.refreshToken { newest = (issued, exchange) }
        }
        guard presented.count >= 2 else {
            return (.notTestable, "fewer than two refresh requests were seen, so rotation was never exercised", presented, [])
        }
        return (.passed, "each of \(presented.count) refresh requests presented the newest refresh token", presented, [])
    }

    private func deadGrantDecision(_ reachedBy: Int) -> Decision {
        let refused = ExchangeMatch.refresh.answered(400...400).with(answer: .error, "invalid_grant", label: "a refresh refused with invalid_grant")
        guard let firstRefusal = first(refused) else { return notSeen(refused) }
        var dead: [String: Exchange] = [:]
        for exchange in exchanges where ExchangeMatch.refresh.matches(exchange) {
            guard let token = exchange.parameters["refresh_token"] else { continue }
            if let refusal = dead[token] {
                return (.failed, "a refresh token refused with invalid_grant was presented again", [refusal, exchange], [])
            }
            if refused.matches(exchange) { dead[token] = exchange }
        }
        guard let reply = outcome(reachedBy), reply.observed == .answered, reply.ended(after: firstRefusal) else {
            return (.notTestable, "the refusal was seen, but step \(reachedBy) never finished after it: silence proves nothing", [firstRefusal], [])
        }
        return (.passed, "no refused refresh token was presented again, though the app went on to step \(reachedBy)", Array(dead.values).sorted { $0.id < $1.id }, [reply])
    }

    /// RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests".
    private func slowDownDecision(_ reachedBy: Int) -> Decision {
        let slowed = ExchangeMatch.devicePoll.with(answer: .error, "slow_down", label: "the poll answered slow_down")
        guard let trigger = first(slowed) else { return notSeen(slowed) }
        let authorization = exchanges.last { $0.id < trigger.id && $0.status == 200 && ExchangeMatch.deviceAuthorization.matches($0) }
        // RFC 8628 §3.2: a client assumes 5 seconds when the answer names no interval.
        let interval = authorization?.answer.interval.map { Double($0) } ?? 5
        let spacing = interval + 5
        let context = [authorization].compactMap { $0 } + [trigger]
        var previous = trigger
        let later = all(.devicePoll, after: trigger)
        for poll in later {
            let gap = poll.time.timeIntervalSince(previous.time)
            if gap + Self.timingTolerance < spacing {
                return (.failed, "a poll came \(String(format: "%.2f", gap)) s after the one before, sooner than the interval (\(Self.seconds(interval))) + 5 s a slow_down asks for",
                        context + (previous.id == trigger.id ? [poll] : [previous, poll]), [])
            }
            previous = poll
        }
        if later.isEmpty {
            guard let reply = outcome(reachedBy), reply.observed == .answered, reply.ended(after: trigger) else {
                return (.notTestable, "no poll after the slow_down and step \(reachedBy) never finished after it: the spacing cannot be measured", context, [])
            }
            return (.passed, "no poll after the slow_down, though the app went on to answer step \(reachedBy)", context, [reply])
        }
        return (.passed, "\(later.count) poll(s) after the slow_down, each at least \(Self.seconds(spacing)) (interval \(Self.seconds(interval)) + 5 s) after the one before", context + later, [])
    }

    private func waitsAfterEachDecision(_ trigger: ExchangeMatch, _ next: ExchangeMatch, _ seconds: Double, _ reachedBy: Int) -> Decision {
        let triggers = all(trigger)
        guard !triggers.isEmpty else { return notSeen(trigger) }
        var pairs: [Exchange] = []
        for triggered in triggers {
            guard let following = first(next, after: triggered) else { continue }
            let gap = following.time.timeIntervalSince(triggered.time)
            if gap + Self.timingTolerance < seconds {
                return (.failed, "\(next) came \(String(format: "%.2f s", gap)) after \(trigger), sooner than \(Self.seconds(seconds))", [triggered, following], [])
            }
            pairs += [triggered, following]
        }
        if pairs.isEmpty {
            guard let reply = outcome(reachedBy), reply.observed == .answered, reply.ended(after: triggers[0]) else {
                return (.notTestable, "\(next.absence) after \(trigger) and step \(reachedBy) never finished: the wait cannot be measured", triggers, [])
            }
            return (.passed, "\(next.absence) after \(trigger), though the app answered step \(reachedBy)", triggers, [reply])
        }
        return (.passed, "each \(next.withoutArticle) came at least \(Self.seconds(seconds)) after \(trigger) before it", pairs, [])
    }

    static func seconds(_ value: Double) -> String { String(format: "%g s", value) }
}

extension StepOutcome {
    /// True when the reply came after `exchange`; an outcome reported without times (control API)
    /// was reported at the case's end, after every exchange.
    func ended(after exchange: Exchange) -> Bool {
        observed == .answered && (endedAt.map { $0 >= exchange.time } ?? true)
    }
}
