import Conformance
import Foundation
import Testing

/// Each kind of check decides PASSED, FAILED and NOT_TESTABLE on synthetic journals, through the
/// cases that use it.
@Suite struct JudgeTests {
    // MARK: Never a silent pass

    @Test func aClientThatNeverRanPassesNothing() {
        for conformanceCase in Catalogue.all {
            let steps = conformanceCase.journey.map { StepOutcome(id: $0.id, step: $0.step, observed: .notSent, startedAt: nil, endedAt: nil) }
            let result = Judge(exchanges: [], outcomes: steps).judge(conformanceCase)
            #expect(result.verdict == .notTestable, "\(conformanceCase.id): \(result.verdict) \(result.reason)")
        }
    }

    @Test func anAdapterThatHangsFailsTheStepsItWasAskedToTake() {
        var s = Synthetic()
        s.reply(1, .signIn, from: 0, to: 30, ok: false, observed: .deadlineExceeded)
        let result = s.judge("protocol.pkce-s256")
        #expect(result.verdict == .failed)
        #expect(result.checks.first { $0.check == "signs-in" }?.reason.contains("no answer") == true)
    }

    @Test func anUnsupportedStepSkipsTheCase() {
        var s = Synthetic()
        s.reply(1, .signIn, from: 0, to: 1, ok: false, error: .unsupported)
        #expect(s.judge("b2c.cancel").verdict == .skipped)
    }

    // MARK: PKCE

    @Test func pkce() {
        var good = Synthetic()
        good.authorize(at: 0)
        good.redeem(at: 1)
        good.reply(1, .signIn, from: 0, to: 2)
        #expect(good.judge("protocol.pkce-s256").verdict == .passed)
        #expect(good.check("protocol.pkce-s256", "s256-challenge-and-verifier").evidence.count == 2)

        var plain = Synthetic()
        plain.authorize(at: 0, challenge: false)
        plain.redeem(at: 1)
        plain.reply(1, .signIn, from: 0, to: 2)
        #expect(plain.check("protocol.pkce-s256", "s256-challenge-and-verifier").verdict == .failed)

        var noVerifier = Synthetic()
        noVerifier.authorize(at: 0)
        noVerifier.redeem(at: 1, verifier: false)
        #expect(noVerifier.check("protocol.pkce-s256", "s256-challenge-and-verifier").verdict == .failed)

        #expect(Synthetic().check("protocol.pkce-s256", "s256-challenge-and-verifier").verdict == .notTestable)
    }

    /// RFC 9700 §2.1.1: a web app without PKCE is warned, not failed; a secret in its /authorize URL fails.
    @Test func pkceIsRecommendedToConfidentialClients() {
        var plain = Synthetic()
        plain.authorize(at: 0, challenge: false)
        plain.redeem(at: 1)
        plain.reply(1, .signIn, from: 0, to: 2)
        #expect(plain.judge("confidential.pkce-s256").verdict == .warning)
        #expect(plain.judge("protocol.pkce-s256").verdict == .failed)

        var leaking = Synthetic()
        leaking.authorize(at: 0, extra: [("client_secret", "s3cr3t-value")])
        leaking.redeem(at: 1)
        leaking.reply(1, .signIn, from: 0, to: 2)
        #expect(leaking.check("confidential.pkce-s256", "no-secret-in-browser").verdict == .failed)
        #expect(leaking.judge("confidential.pkce-s256").verdict == .failed)
        #expect(leaking.check("protocol.pkce-s256", "no-secret-in-browser").verdict == .failed)

        var clean = Synthetic()
        clean.authorize(at: 0)
        clean.redeem(at: 1)
        clean.reply(1, .signIn, from: 0, to: 2)
        #expect(clean.judge("confidential.pkce-s256").verdict == .passed)
    }

    /// Two sign-ins with the same state, nonce or challenge: the first user's values let an attacker in.
    @Test func everySignInHasValuesOfItsOwn() {
        var fresh = Synthetic()
        fresh.authorize(at: 0)
        fresh.authorize(at: 5)
        #expect(fresh.check("lifecycle.account-isolation", "fresh-per-sign-in").verdict == .passed)
        for (state, nonce, challenge) in [("same", "n2", "c2"), ("s2", "same", "c2"), ("s2", "n2", "same")] {
            var reused = Synthetic()
            reused.authorize(at: 0, values: ("same", "same", "same"))
            reused.authorize(at: 5, values: (state, nonce, challenge))
            #expect(reused.check("lifecycle.account-isolation", "fresh-per-sign-in").verdict == .failed)
        }
        var one = Synthetic()
        one.authorize(at: 0)
        #expect(one.check("lifecycle.account-isolation", "fresh-per-sign-in").verdict == .notTestable)
    }

    // MARK: Negative checks need the point the client reached

    @Test func badNonceIsTwoSided() {
        var refused = Synthetic()
        refused.authorize(at: 0)
        refused.redeem(at: 1)
        refused.reply(1, .signIn, from: 0, to: 1.1, ok: false, error: .rejectedToken)
        refused.reply(2, .callGraph, from: 1.2, to: 1.5, ok: false, error: .rejectedToken)
        #expect(refused.judge("protocol.nonce-mismatch").verdict == .passed)

        var accepted = refused
        accepted.outcomes[0] = StepOutcome(id: 1, step: .signIn, observed: .answered, ok: true, startedAt: Synthetic.t0, endedAt: Synthetic.t0.addingTimeInterval(1.1))
        #expect(accepted.judge("protocol.nonce-mismatch").verdict == .failed, "reporting success is a required failure")

        var wentOn = refused
        wentOn.graph(at: 1.3)
        // Using the cached tokens afterwards is a recommended check: a warning, not a failure.
        #expect(wentOn.check("protocol.nonce-mismatch", "no-use-of-tokens").verdict == .warning)
        #expect(wentOn.judge("protocol.nonce-mismatch").verdict == .warning)

        var stoppedEarly = Synthetic()
        stoppedEarly.authorize(at: 0)
        stoppedEarly.redeem(at: 1)
        stoppedEarly.reply(1, .signIn, from: 0, to: 1.1, ok: false)
        stoppedEarly.reply(2, .callGraph, from: 1.2, to: 31, ok: false, observed: .deadlineExceeded)
        #expect(stoppedEarly.check("protocol.nonce-mismatch", "no-use-of-tokens").verdict == .notTestable, "silence before step 2 finished proves nothing")
    }

    @Test func recommendedCasesWarn() {
        var s = Synthetic()
        s.authorize(at: 0)
        s.redeem(at: 1)
        s.reply(1, .signIn, from: 0, to: 1.1)
        s.reply(2, .callGraph, from: 1.2, to: 1.5, status: 200)
        s.graph(at: 1.3)
        let result = s.judge("protocol.id-token-audience")
        #expect(result.verdict == .warning)
        #expect(!result.failsRun)
    }

    @Test func errorRedirect() {
        var s = Synthetic()
        s.authorize(at: 0)
        s.exchanges[0].rules = [0]
        s.reply(1, .signIn, from: 0, to: 1, ok: false, error: .userCanceled)
        #expect(s.judge("protocol.error-redirect").verdict == .passed)
        s.redeem(at: 0.5)
        #expect(s.check("protocol.error-redirect", "no-redemption").verdict == .failed)
        #expect(Synthetic().check("protocol.error-redirect", "no-redemption").verdict == .notTestable)
    }

    @Test func forgedStateMayBeWaitedOut() {
        var waiting = Synthetic()
        waiting.authorize(at: 0)
        waiting.reply(1, .signIn, from: 0, to: 8, ok: false, observed: .deadlineExceeded)
        #expect(waiting.judge("protocol.state-mismatch").verdict == .passed)
        var redeemed = waiting
        redeemed.redeem(at: 1)
        #expect(redeemed.check("protocol.state-mismatch", "no-redemption").verdict == .failed)
        var accepted = Synthetic()
        accepted.authorize(at: 0)
        accepted.reply(1, .signIn, from: 0, to: 1)
        #expect(accepted.check("protocol.state-mismatch", "refuses-response").verdict == .failed)
    }

    // MARK: Waiting

    func throttled(retryAt: Double?) -> Synthetic {
        var s = Synthetic()
        s.authorize(at: 0)
        s.redeem(at: 0.5)
        s.refresh(at: 1, status: 429, error: "temporarily_unavailable", retryAfter: "3")
        s.reply(1, .signIn, from: 0, to: 0.6)
        s.reply(2, .getToken, from: 0.9, to: 1.1, ok: false, error: .throttled)
        s.reply(3, .getToken, from: 1.2, to: 1.3, ok: false, error: .throttled)
        s.reply(4, .wait, from: 1.3, to: 4.3)
        if let retryAt { s.refresh(at: retryAt) }
        s.reply(5, .getToken, from: 4.3, to: 4.6, ok: retryAt != nil)
        return s
    }

    @Test func retryAfterSeconds() {
        #expect(throttled(retryAt: 4.4).judge("resilience.retry-after-seconds").verdict == .passed)
        let early = throttled(retryAt: 1.25)
        let check = early.check("resilience.retry-after-seconds", "no-early-retry")
        #expect(check.verdict == .failed)
        #expect(check.evidence.count == 2, "the 429 and the early request")
        #expect(check.reason.contains("0.25 s"))
        // Never asked again after the 429: the wait is proven by step 3's reply.
        #expect(throttled(retryAt: nil).check("resilience.retry-after-seconds", "no-early-retry").verdict == .passed)
        // The 429 never served.
        var none = Synthetic()
        none.reply(1, .signIn, from: 0, to: 1)
        #expect(none.check("resilience.retry-after-seconds", "no-early-retry").verdict == .notTestable)
    }

    @Test func httpDateResumptionIsRecommended() {
        let s = throttled(retryAt: nil)
        #expect(s.check("resilience.retry-after-http-date", "resumes-after-wait").verdict == .warning)
        #expect(s.judge("resilience.retry-after-http-date").verdict == .warning)
    }

    @Test func graphRetryAfter() {
        var s = Synthetic()
        s.graph(at: 1, status: 429)
        s.graph(at: 1.5)
        s.reply(2, .callGraph, from: 0.5, to: 2, status: 200)
        #expect(s.check("graph.throttled-429", "waits-retry-after").verdict == .failed)
        var patient = Synthetic()
        patient.graph(at: 1, status: 429)
        patient.graph(at: 3.1)
        patient.reply(2, .callGraph, from: 0.5, to: 3.2, status: 200)
        #expect(patient.judge("graph.throttled-429").verdict == .passed)
    }

    // MARK: Loops and counts

    @Test func noRetryLoopOnInvalidClient() {
        var s = Synthetic()
        s.refresh(at: 1, status: 401, error: "invalid_client")
        s.refresh(at: 2, status: 401, error: "invalid_client")
        s.reply(2, .getToken, from: 0.5, to: 1.5, ok: false, error: .invalidClient)
        #expect(s.check("errors.invalid-client", "no-retry-loop").verdict == .passed)
        s.refresh(at: 2.1, status: 401, error: "invalid_client")
        #expect(s.check("errors.invalid-client", "no-retry-loop").verdict == .failed)
    }

    @Test func deadGrantIsNeverPresentedAgain() {
        var s = Synthetic()
        s.refresh(at: 1, presenting: "rt1", status: 400, error: "invalid_grant")
        s.authorize(at: 1.5)
        s.redeem(at: 2, refreshToken: "rt2")
        s.refresh(at: 3, presenting: "rt2", status: 400, error: "invalid_grant")
        s.reply(3, .getToken, from: 2.5, to: 4)
        #expect(s.check("errors.dead-grant-loop", "dead-token-not-reused").verdict == .passed)
        s.refresh(at: 3.5, presenting: "rt1", status: 400, error: "invalid_grant")
        #expect(s.check("errors.dead-grant-loop", "dead-token-not-reused").verdict == .failed)
        #expect(Synthetic().check("errors.dead-grant-loop", "dead-token-not-reused").verdict == .notTestable)
    }

    @Test func secondChallengeAllowsOneRetry() {
        var s = Synthetic()
        s.graph(at: 1, status: 401, challenge: true)
        s.refresh(at: 1.5, claims: #"{"access_token":{"nbf":{"essential":true,"value":"1900000000"},"xms_cc":{"values":["cp1"]}}}"#)
        s.graph(at: 2, status: 401, challenge: true)
        s.reply(2, .callGraph, from: 0.5, to: 2.5, ok: false, error: .graphError, status: 401)
        #expect(s.judge("graph.second-challenge").verdict == .passed)
        s.graph(at: 3, status: 401)
        #expect(s.check("graph.second-challenge", "retries-once").verdict == .failed)
    }

    /// Every cp1 client sends `claims` with its capability: only the challenge's own claims (nbf) answer it.
    @Test func aClaimsChallengeIsAnsweredWithItsOwnClaims() {
        for caseID in ["graph.cae-claims-challenge", "graph.second-challenge"] {
            var dropped = Synthetic()
            dropped.graph(at: 1, status: 401, challenge: true)
            dropped.refresh(at: 1.5, claims: #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#)
            #expect(dropped.check(caseID, "passes-claims").verdict == .failed, "\(caseID)")
            var merged = Synthetic()
            merged.graph(at: 1, status: 401, challenge: true)
            merged.refresh(at: 1.5, claims: #"{"access_token":{"nbf":{"essential":true,"value":"1900000000"},"xms_cc":{"values":["cp1"]}}}"#)
            #expect(merged.check(caseID, "passes-claims").verdict == .passed, "\(caseID)")
        }
    }

    // MARK: Steps and time

    @Test func cachedTokenReuse() {
        var s = Synthetic()
        s.authorize(at: 0)
        s.redeem(at: 1)
        s.reply(1, .signIn, from: 0, to: 1.1)
        s.reply(2, .getToken, from: 1.2, to: 1.3)
        s.reply(3, .getToken, from: 1.4, to: 1.5)
        #expect(s.judge("lifecycle.cached-token-reuse").verdict == .passed)
        s.refresh(at: 1.45)
        #expect(s.check("lifecycle.cached-token-reuse", "no-request-step-3").verdict == .failed)
        // Outcomes reported without times (control API) cannot be attributed to steps.
        var untimed = Synthetic()
        untimed.outcomes = [StepOutcome(id: 2, step: .getToken, observed: .answered, ok: true, startedAt: nil, endedAt: nil)]
        #expect(untimed.check("lifecycle.cached-token-reuse", "no-request-step-2").verdict == .notTestable)
    }

    @Test func rotation() {
        var s = Synthetic()
        s.redeem(at: 1, refreshToken: "rt1")
        s.refresh(at: 2, presenting: "rt1", issuing: "rt2")
        s.refresh(at: 3, presenting: "rt2", issuing: "rt3")
        s.reply(3, .getToken, from: 2.5, to: 3.5)
        #expect(s.judge("lifecycle.rotation").verdict == .passed)
        var stale = Synthetic()
        stale.redeem(at: 1, refreshToken: "rt1")
        stale.refresh(at: 2, presenting: "rt1", issuing: "rt2")
        stale.refresh(at: 3, presenting: "rt1", issuing: "rt3")
        #expect(stale.check("lifecycle.rotation", "presents-newest").verdict == .failed)
        var once = Synthetic()
        once.redeem(at: 1)
        once.refresh(at: 2)
        #expect(once.check("lifecycle.rotation", "presents-newest").verdict == .notTestable)
    }

    @Test func declinedScopes() {
        var honest = Synthetic()
        honest.reply(1, .signIn, from: 0, to: 1, scopes: ["User.Read"])
        #expect(honest.judge("errors.declined-scopes").verdict == .passed)
        var claims = Synthetic()
        claims.reply(1, .signIn, from: 0, to: 1, scopes: ["User.Read", "https://graph.microsoft.com/Calendars.Read"])
        #expect(claims.judge("errors.declined-scopes").verdict == .failed)
        var reports = Synthetic()
        reports.reply(1, .signIn, from: 0, to: 1, ok: false, error: .declinedScopes)
        #expect(reports.judge("errors.declined-scopes").verdict == .passed)
        var other = Synthetic()
        other.reply(1, .signIn, from: 0, to: 1, ok: false, error: .network)
        #expect(other.judge("errors.declined-scopes").verdict == .failed)
    }

    @Test func claimsChallenge() {
        var s = Synthetic()
        s.authorize(at: 0)
        s.exchanges[0].parameters["claims"] = #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#
        s.graph(at: 1, status: 401, challenge: true)
        s.add(at: 1.2, "POST", Synthetic.tenant + "/oauth2/v2.0/token", status: 200, kind: "token",
              form: ["grant_type": "refresh_token", "claims": "{nbf}"])
        s.graph(at: 1.4)
        s.reply(2, .callGraph, from: 0.5, to: 1.5, status: 200)
        #expect(s.judge("graph.cae-claims-challenge").verdict == .passed)
        var noCP1 = s
        noCP1.exchanges[0].parameters["claims"] = nil
        #expect(noCP1.check("graph.cae-claims-challenge", "declares-cp1").verdict == .failed)
        var dropped = Synthetic()
        dropped.graph(at: 1, status: 401, challenge: true)
        dropped.reply(2, .callGraph, from: 0.5, to: 1.5, ok: false, error: .graphError, status: 401)
        #expect(dropped.check("graph.cae-claims-challenge", "passes-claims").verdict == .failed)
        #expect(Synthetic().check("graph.cae-claims-challenge", "passes-claims").verdict == .notTestable)
    }

    @Test func goesInteractiveAfterBasicAction() {
        var s = Synthetic()
        s.refresh(at: 1, status: 400, error: "invalid_grant", suberror: "basic_action")
        s.reply(2, .getToken, from: 0.5, to: 3)
        #expect(s.check("errors.mfa-basic-action", "goes-interactive").verdict == .failed)
        s.authorize(at: 2)
        #expect(s.judge("errors.mfa-basic-action").verdict == .passed)
        #expect(Synthetic().check("errors.mfa-basic-action", "goes-interactive").verdict == .notTestable)
    }

    @Test func b2cResetFlow() {
        var s = Synthetic()
        s.add(at: 0, "GET", "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/oauth2/v2.0/authorize", status: 200, kind: "b2c", errorCode: "AADB2C90118")
        s.reply(1, .signIn, from: 0, to: 2, ok: false, error: .passwordResetRequested)
        #expect(s.check("b2c.password-reset", "starts-reset-flow").verdict == .failed)
        s.add(at: 1, "GET", "/tfp/fabrikamb2c.onmicrosoft.com/b2c_1_reset/oauth2/v2.0/authorize", status: 200, kind: "b2c")
        #expect(s.judge("b2c.password-reset").verdict == .passed)
    }

    @Test func verdictsCarryEvidenceAndCitations() {
        let result = throttled(retryAt: 1.25).judge("resilience.retry-after-seconds")
        for check in result.checks { #expect(check.citation != nil) }
        #expect(!result.citations.isEmpty)
        #expect(result.checks[0].evidence.map(\.summary).first?.contains("429") == true)
    }
}
