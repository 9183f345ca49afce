import ExchangeKernel
import FoundationGaps

/// Two users on one app (account switching, a shared device): after the first signs out, nothing of
/// theirs may serve the second.
extension Judge {
    func accountDecision(_ step: Int, sameAs: Int, notAs: Int) -> Decision {
        let replies = [step, sameAs, notAs].compactMap(outcome)
        guard let reply = outcome(step), reply.observed != .notSent else { return (.notTestable, "step \(step) was never taken", [], replies) }
        guard reply.observed == .answered, reply.ok else { return (.failed, "step \(step) did not succeed: \(reply.summary)", [], replies) }
        guard let account = reply.account, let expected = outcome(sameAs)?.account, let other = outcome(notAs)?.account else {
            return (.notTestable, "the replies of steps \(notAs), \(sameAs) and \(step) do not all name their account (the reply's `account`)", [], replies)
        }
        if expected.caseInsensitiveCompare(other) == .orderedSame {
            return (.notTestable, "step \(sameAs) signed in \(expected) again, the account of step \(notAs) (the adapter did not sign in the step's user): no second user to keep apart", [], replies)
        }
        if account.caseInsensitiveCompare(other) == .orderedSame {
            return (.failed, "step \(step) answered for \(account), who signed in at step \(notAs) and has signed out since; \(expected) signed in at step \(sameAs)", [], replies)
        }
        if account.caseInsensitiveCompare(expected) != .orderedSame {
            return (.failed, "step \(step) answered for \(account), not \(expected), who signed in at step \(sameAs)", [], replies)
        }
        return (.passed, "step \(step) answered for \(account), who signed in at step \(sameAs)", [], replies)
    }

    func refreshTokenFromBeforeDecision(_ step: Int, reachedBy: Int) -> Decision {
        during(step) { reply, window in refreshTokenFromBeforeDecision(step, reachedBy: reachedBy, reply: reply, window: window) }
    }

    private func refreshTokenFromBeforeDecision(_ step: Int, reachedBy: Int, reply: StepOutcome, window: ClosedRange<Date>) -> Decision {
        let (startedAt, endedAt) = (window.lowerBound, window.upperBound)
        let issued = exchanges.filter { $0.time < startedAt && $0.status == 200 && $0.answer.refreshToken != nil }
        guard !issued.isEmpty else { return (.notTestable, "no refresh token was issued before step \(step)", [], [reply]) }
        let refreshes = exchanges.filter { $0.time > endedAt && ExchangeMatch.refresh.matches($0) }
        for exchange in refreshes {
            if let origin = issued.first(where: { exchange.presentsRefreshToken($0.answer.refreshToken ?? "") }) {
                return (.failed, "a refresh token issued before step \(step) (\(reply.step.rawValue)) was presented after it", [origin, exchange], [reply])
            }
        }
        guard let later = outcome(reachedBy), later.observed == .answered, later.startedAt.map({ $0 >= endedAt }) ?? true else {
            return (.notTestable, "step \(reachedBy) never finished after step \(step): silence proves nothing", [], [reply])
        }
        return (.passed, "none of the \(issued.count) refresh token(s) issued before step \(step) was presented after it, though the app went on to step \(reachedBy) (\(refreshes.count) refresh request(s) later)", issued, [reply, later])
    }
}
