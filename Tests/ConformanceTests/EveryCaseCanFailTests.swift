import Conformance
import Foundation
import Testing

extension Synthetic {
    /// A sign-in that went through: its /authorize and code redemption, and step 1's reply.
    mutating func signedIn(until seconds: Double = 1.1) {
        authorize(at: 0)
        redeem(at: seconds - 0.1)
        reply(1, .signIn, from: 0, to: seconds)
    }

    /// The case ends `verdict` and its check `check` is one that says so: the check decides, not another.
    func expect(_ caseID: String, _ verdict: Verdict, decidedBy check: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = judge(caseID)
        #expect(result.verdict == verdict, "\(caseID): \(result.verdict) \(result.reason)", sourceLocation: sourceLocation)
        #expect(self.check(caseID, check).verdict == verdict, "\(caseID)/\(check): \(self.check(caseID, check).reason)", sourceLocation: sourceLocation)
    }

    func expectPassed(_ caseID: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = judge(caseID)
        #expect(result.verdict == .passed, "\(caseID): \(result.verdict) \(result.reason)", sourceLocation: sourceLocation)
    }
}

/// Every catalogue case is shown able to fail: a journal of a misbehaving client fails (or warns, for
/// a recommended check) on the check meant to catch it, and a correct client's journal passes.
/// Cases proven elsewhere are listed in `CanFailProofs`, which a new case cannot escape.
@Suite struct EveryCaseCanFailTests {
    // MARK: Going interactive after a refusal

    @Test func consentRequired() {
        var refused = Synthetic()
        refused.signedIn()
        refused.refresh(at: 1.5, status: 400, error: "invalid_grant", suberror: "consent_required")
        refused.reply(2, .getToken, from: 1.2, to: 2, ok: false, error: .consentRequired)
        refused.expect("errors.consent-required", .failed, decidedBy: "goes-interactive")

        var consented = refused
        consented.outcomes.removeLast()
        consented.authorize(at: 2.5)
        consented.redeem(at: 3)
        consented.reply(2, .getToken, from: 1.2, to: 3.1, scopes: ["Calendars.Read"])
        consented.expectPassed("errors.consent-required")
    }

    /// The three refusals sharing one recovery: bad_token, a revoked grant, an expired refresh token.
    @Test(arguments: [("errors.bad-token", "bad_token"), ("lifecycle.revoked-grant", nil), ("lifecycle.refresh-token-expired", nil),
                      ("externalid.password-reset-revokes", nil)] as [(String, String?)])
    func goesInteractiveAfterARefusedRefresh(caseID: String, suberror: String?) {
        var stuck = Synthetic()
        stuck.signedIn()
        stuck.refresh(at: 1.5, status: 400, error: "invalid_grant", suberror: suberror)
        stuck.reply(2, .getToken, from: 1.2, to: 2, ok: false, error: .invalidGrant)
        stuck.expect(caseID, .failed, decidedBy: "goes-interactive")
        #expect(stuck.check(caseID, "ends-with-token").verdict == .failed)

        var recovered = stuck
        recovered.outcomes.removeLast()
        recovered.authorize(at: 2.5)
        recovered.redeem(at: 3)
        recovered.reply(2, .getToken, from: 1.2, to: 3.1)
        recovered.expectPassed(caseID)
    }

    @Test func consentDeclined() {
        var redeemed = Synthetic()
        redeemed.authorize(at: 0, errorCode: "AADSTS65004")
        redeemed.redeem(at: 0.5)
        redeemed.reply(1, .signIn, from: 0, to: 1)
        redeemed.expect("errors.consent-declined", .failed, decidedBy: "no-redemption")
        #expect(redeemed.check("errors.consent-declined", "reports-error").verdict == .failed)

        var reported = Synthetic()
        reported.authorize(at: 0, errorCode: "AADSTS65004")
        reported.reply(1, .signIn, from: 0, to: 1, ok: false, error: .userCanceled)
        reported.expectPassed("errors.consent-declined")
    }

    // MARK: Token lifetimes

    @Test func shortExpiresIn() {
        var cached = Synthetic()
        cached.signedIn()
        cached.reply(2, .getToken, from: 1.2, to: 1.3)
        cached.expect("lifecycle.short-expires-in", .failed, decidedBy: "refreshes-before-use")

        var refreshed = cached
        refreshed.refresh(at: 1.25)
        refreshed.expectPassed("lifecycle.short-expires-in")
    }

    /// An External ID customer's second token comes from a refresh, not from signing in again.
    @Test func externalIDSignInRefreshesSilently() {
        var signedInTwice = Synthetic()
        signedInTwice.signedIn()
        signedInTwice.authorize(at: 1.25)
        signedInTwice.redeem(at: 1.3, refreshToken: "rt2")
        signedInTwice.reply(2, .getToken, from: 1.2, to: 1.4)
        signedInTwice.expect("externalid.sign-in-refresh", .failed, decidedBy: "refreshes-silently")
        #expect(signedInTwice.check("externalid.sign-in-refresh", "no-second-sign-in").verdict == .failed)

        var refreshed = Synthetic()
        refreshed.signedIn()
        refreshed.refresh(at: 1.25)
        refreshed.reply(2, .getToken, from: 1.2, to: 1.3)
        refreshed.expectPassed("externalid.sign-in-refresh")
    }

    func refreshIn(refreshingAt times: [Double]) -> Synthetic {
        var s = Synthetic()
        s.signedIn()
        s.reply(2, .getToken, from: 1.2, to: 1.3)
        s.reply(3, .wait, from: 1.3, to: 4.3)
        s.reply(4, .getToken, from: 4.4, to: 4.6)
        for time in times { s.refresh(at: time) }
        return s
    }

    /// MSAL.NET refreshes at refresh_on ± 300 s, in the background: early or late is a warning, a refresh in
    /// the wait or fired by the later call is right, a token step that fails is a failure.
    @Test func refreshIn() {
        refreshIn(refreshingAt: [1.25, 4.5]).expect("lifecycle.refresh-in", .warning, decidedBy: "no-refresh-before")
        refreshIn(refreshingAt: []).expect("lifecycle.refresh-in", .warning, decidedBy: "refresh-after")
        refreshIn(refreshingAt: [4.5]).expectPassed("lifecycle.refresh-in")
        refreshIn(refreshingAt: [3.5]).expectPassed("lifecycle.refresh-in")
        refreshIn(refreshingAt: [4.8]).expectPassed("lifecycle.refresh-in")
        var failing = refreshIn(refreshingAt: [4.5])
        failing.outcomes[failing.outcomes.count - 1].ok = false
        failing.outcomes[failing.outcomes.count - 1].error = .network
        failing.expect("lifecycle.refresh-in", .failed, decidedBy: "ends-with-token")
    }

    @Test func clockSkew() {
        var correct = Synthetic()
        correct.signedIn()
        correct.reply(2, .getToken, from: 1.2, to: 1.3)
        correct.graph(at: 1.5)
        correct.reply(3, .callGraph, from: 1.4, to: 1.6, status: 200)
        correct.expectPassed("lifecycle.clock-skew")

        var refreshes = correct
        refreshes.refresh(at: 1.25)
        refreshes.expect("lifecycle.clock-skew", .failed, decidedBy: "reuses-token")

        var refusesFutureToken = Synthetic()
        refusesFutureToken.authorize(at: 0)
        refusesFutureToken.redeem(at: 1)
        refusesFutureToken.reply(1, .signIn, from: 0, to: 1.1, ok: false, error: .rejectedToken)
        refusesFutureToken.expect("lifecycle.clock-skew", .failed, decidedBy: "signs-in")
    }

    @Test func signOut() {
        var forgot = Synthetic()
        forgot.signedIn()
        forgot.reply(2, .signOut, from: 1.2, to: 1.3)
        forgot.authorize(at: 1.5)
        forgot.redeem(at: 2)
        forgot.reply(3, .getToken, from: 1.4, to: 2.1)
        forgot.expectPassed("lifecycle.sign-out")

        var remembered = Synthetic()
        remembered.signedIn()
        remembered.reply(2, .signOut, from: 1.2, to: 1.3)
        remembered.refresh(at: 1.5)
        remembered.reply(3, .getToken, from: 1.4, to: 1.6)
        remembered.expect("lifecycle.sign-out", .failed, decidedBy: "no-silent-refresh")
        #expect(remembered.check("lifecycle.sign-out", "goes-interactive").verdict == .failed)
    }
}
