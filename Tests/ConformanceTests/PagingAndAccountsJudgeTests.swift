import Conformance
import ExchangeKernel
import Foundation
import Testing

extension Synthetic {
    /// One page of `/v1.0/me/events`: `skip` names it, `items` its size, `next` the skip its link names.
    mutating func page(at seconds: Double, skip: Int?, items: Int, next: Int?, status: Int = 200) {
        var query = [("$top", "5")]
        if let skip { query.append(("$skip", String(skip))) }
        let link = next.map { "https://127.0.0.1:8443/v1.0/me/events?$top=5&$skip=\($0)" }
        add(at: seconds, "GET", "/v1.0/me/events", status: status, kind: "graph", query: query,
            answer: status == 200 ? Receipt.Answer(items: items, nextLink: link) : Receipt.Answer())
    }

    func reply(_ outcome: StepOutcome) -> Synthetic {
        var copy = self
        copy.outcomes.append(outcome)
        return copy
    }

    static func listed(count: Int?, ok: Bool = true) -> StepOutcome {
        StepOutcome(id: 2, step: .listGraph, observed: .answered, ok: ok, error: ok ? nil : .graphError, status: 200, count: count,
                    startedAt: t0.addingTimeInterval(1.2), endedAt: t0.addingTimeInterval(3))
    }
}

/// The checks of `graph.paging` and `lifecycle.account-isolation` that their broken adapters do not reach.
@Suite struct PagingAndAccountsJudgeTests {
    static let paging = "graph.paging"
    static let isolation = "lifecycle.account-isolation"

    var threePages: Synthetic {
        var journal = Synthetic()
        journal.signedIn()
        journal.page(at: 1.3, skip: nil, items: 5, next: 5)
        journal.page(at: 1.4, skip: 5, items: 5, next: 10)
        journal.page(at: 1.5, skip: 10, items: 2, next: nil)
        return journal
    }

    @Test func aCollectionReadToItsEndPasses() {
        threePages.reply(Synthetic.listed(count: 12)).expectPassed(Self.paging)
    }

    @Test func aPageRequestedAgainOrAfterTheLastFails() {
        var twice = threePages
        twice.page(at: 1.6, skip: 10, items: 2, next: nil)
        twice.reply(Synthetic.listed(count: 12)).expect(Self.paging, .failed, decidedBy: "stops-at-last-page")

        var restarted = threePages
        restarted.page(at: 1.6, skip: nil, items: 5, next: 5)
        #expect(restarted.reply(Synthetic.listed(count: 12)).check(Self.paging, "stops-at-last-page").verdict == .failed)

        // A throttled page asked again is a retry, not a second reading.
        var throttled = Synthetic()
        throttled.signedIn()
        throttled.page(at: 1.3, skip: nil, items: 5, next: 5)
        throttled.page(at: 1.35, skip: 5, items: 0, next: nil, status: 429)
        throttled.page(at: 1.4, skip: 5, items: 5, next: 10)
        throttled.page(at: 1.5, skip: 10, items: 2, next: nil)
        throttled.reply(Synthetic.listed(count: 12)).expectPassed(Self.paging)
    }

    @Test func anotherCountThanThePagesHeldFails() {
        threePages.reply(Synthetic.listed(count: 5)).expect(Self.paging, .failed, decidedBy: "reports-every-item")
        #expect(threePages.reply(Synthetic.listed(count: nil)).check(Self.paging, "reports-every-item").verdict == .notTestable)
        #expect(threePages.reply(Synthetic.listed(count: 12, ok: false)).check(Self.paging, "reports-every-item").verdict == .failed)
    }

    @Test func stoppingEarlyFailsAndNoPageAtAllFails() {
        var first = Synthetic()
        first.signedIn()
        first.page(at: 1.3, skip: nil, items: 5, next: 5)
        first.reply(Synthetic.listed(count: 5)).expect(Self.paging, .failed, decidedBy: "follows-every-page")

        var none = Synthetic()
        none.signedIn()
        #expect(none.reply(Synthetic.listed(count: 0)).check(Self.paging, "follows-every-page").verdict == .failed)
    }

    // MARK: two users

    static let adele = "adele.vance@contoso.onmicrosoft.com", alex = "alex.wilber@contoso.onmicrosoft.com"

    func twoUsers(token: String, graph: String, refreshWith presented: String = "rt-alex") -> Synthetic {
        var journal = Synthetic()
        journal.authorize(at: 0)
        journal.redeem(at: 0.5, refreshToken: "rt-adele")
        let t = Synthetic.t0
        func step(_ id: Int, _ kind: JourneyStep.Kind, _ from: Double, _ to: Double, _ account: String?) -> StepOutcome {
            StepOutcome(id: id, step: kind, observed: .answered, ok: true, account: account, startedAt: t.addingTimeInterval(from), endedAt: t.addingTimeInterval(to))
        }
        journal.outcomes = [step(1, .signIn, 0, 0.6, Self.adele), step(2, .callGraph, 0.7, 0.8, Self.adele), step(3, .signOut, 0.9, 1.0, nil)]
        journal.authorize(at: 1.1)
        journal.redeem(at: 1.5, refreshToken: "rt-alex")
        journal.refresh(at: 1.8, presenting: presented)
        journal.outcomes += [step(4, .signIn, 1.05, 1.6, Self.alex), step(5, .getToken, 1.7, 1.9, token), step(6, .callGraph, 2.0, 2.1, graph)]
        return journal
    }

    @Test func theSecondUserServedPasses() {
        twoUsers(token: Self.alex, graph: Self.alex).expectPassed(Self.isolation)
    }

    @Test func anythingOfTheFirstUserAfterTheirSignOutFails() {
        twoUsers(token: Self.adele, graph: Self.alex).expect(Self.isolation, .failed, decidedBy: "token-for-second-user")
        twoUsers(token: Self.alex, graph: Self.adele).expect(Self.isolation, .failed, decidedBy: "graph-for-second-user")
        twoUsers(token: Self.alex, graph: Self.alex, refreshWith: "rt-adele").expect(Self.isolation, .failed, decidedBy: "first-user-grant-unused")
        #expect(twoUsers(token: "megan@outlook.com", graph: Self.alex).check(Self.isolation, "token-for-second-user").verdict == .failed)
        // The report names the step the first user signed in at, not the sign-out's as theirs.
        let detail = twoUsers(token: Self.adele, graph: Self.alex).check(Self.isolation, "token-for-second-user").reason
        #expect(detail.contains("who signed in at step 1 and has signed out since") && detail.contains("signed in at step 4"), "\(detail)")
    }

    /// An adapter that does not sign in the step's user signs the first one in again: nothing was kept apart.
    @Test func theSameUserTwiceIsNotAPass() {
        var again = twoUsers(token: Self.adele, graph: Self.adele)
        again.outcomes[3].account = Self.adele
        #expect(again.check(Self.isolation, "token-for-second-user").verdict == .notTestable)
        #expect(again.judge(Self.isolation).verdict != .passed)
    }

    @Test func nothingAfterTheSignOutProvesNothing() {
        var stopped = twoUsers(token: Self.alex, graph: Self.alex)
        stopped.outcomes = Array(stopped.outcomes.prefix(4))
        #expect(stopped.check(Self.isolation, "first-user-grant-unused").verdict == .notTestable)
    }

    /// The breach on the wire decides, even when the app never answered the step after it.
    @Test func aPresentedGrantFailsEvenWithoutALaterReply() {
        var breached = twoUsers(token: Self.alex, graph: Self.alex, refreshWith: "rt-adele")
        breached.outcomes = Array(breached.outcomes.prefix(4))
        #expect(breached.check(Self.isolation, "first-user-grant-unused").verdict == .failed)
    }

    @Test func aCollectionOfOnePageIsNotTestable() {
        var single = Synthetic()
        single.signedIn()
        single.page(at: 1.3, skip: nil, items: 4, next: nil)
        #expect(single.reply(Synthetic.listed(count: 4)).check(Self.paging, "follows-every-page").verdict == .notTestable)
    }

    @Test func repliesWithoutAccountsAreNotTestable() {
        var silent = twoUsers(token: Self.alex, graph: Self.alex)
        silent.outcomes = silent.outcomes.map { var outcome = $0; outcome.account = nil; return outcome }
        #expect(silent.check(Self.isolation, "token-for-second-user").verdict == .notTestable)
    }
}
