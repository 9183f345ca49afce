import Conformance
import ExchangeKernel
import Foundation
import Testing

/// Protocol, Graph and resilience cases shown able to fail.
extension EveryCaseCanFailTests {
    // MARK: id_tokens the client must refuse (recommended: a failure warns)

    @Test(arguments: ["protocol.id-token-issuer", "protocol.id-token-expired", "protocol.id-token-signature", "protocol.id-token-alg-none",
                      "protocol.id-token-unknown-kid", "protocol.id-token-tenant"])
    func badIDTokenIsRefused(caseID: String) {
        var accepted = Synthetic()
        accepted.signedIn()
        accepted.reply(2, .callGraph, from: 1.2, to: 1.5, status: 200)
        accepted.graph(at: 1.3)
        accepted.expect(caseID, .warning, decidedBy: "reports-error")
        #expect(accepted.check(caseID, "no-use-of-tokens").verdict == .warning)
        #expect(!accepted.judge(caseID).failsRun)

        var refused = Synthetic()
        refused.authorize(at: 0)
        refused.redeem(at: 1)
        refused.reply(1, .signIn, from: 0, to: 1.1, ok: false, error: .rejectedToken)
        refused.reply(2, .callGraph, from: 1.2, to: 1.5, ok: false, error: .interactionRequired)
        refused.expectPassed(caseID)
    }

    /// A client that pins the first signing key refuses the refreshed token; one that follows the new kid goes on.
    @Test func signingKeyRollover() {
        var pinned = Synthetic()
        pinned.signedIn()
        pinned.refresh(at: 1.3)
        pinned.reply(2, .getToken, from: 1.2, to: 1.4, ok: false, error: .rejectedToken)
        pinned.expect("protocol.signing-key-rollover", .failed, decidedBy: "keeps-working")

        var follows = pinned
        follows.outcomes[1].ok = true
        follows.outcomes[1].error = nil
        follows.expectPassed("protocol.signing-key-rollover")

        var noRefresh = Synthetic()
        noRefresh.signedIn()
        noRefresh.reply(2, .getToken, from: 1.2, to: 1.4)
        #expect(noRefresh.check("protocol.signing-key-rollover", "refresh-seen").verdict == .failed)
    }

    @Test func refreshOtherUser() {
        var switched = Synthetic()
        switched.signedIn()
        switched.refresh(at: 1.3)
        switched.reply(2, .getToken, from: 1.2, to: 1.4)
        switched.expect("protocol.refresh-other-user", .warning, decidedBy: "refuses-other-user")

        var refused = switched
        refused.outcomes[1].ok = false
        refused.outcomes[1].error = .rejectedToken
        refused.expectPassed("protocol.refresh-other-user")
    }

    // MARK: Graph

    @Test func graphForbidden() {
        var reported = Synthetic()
        reported.signedIn()
        reported.graph(at: 1.3, status: 403)
        reported.reply(2, .callGraph, from: 1.2, to: 1.4, ok: false, error: .graphError, status: 403)
        reported.expectPassed("graph.forbidden-403")

        var hammers = reported
        hammers.graph(at: 1.35, status: 403)
        hammers.graph(at: 1.38, status: 403)
        hammers.expect("graph.forbidden-403", .failed, decidedBy: "no-retry-loop")

        var hides = Synthetic()
        hides.signedIn()
        hides.graph(at: 1.3, status: 403)
        hides.reply(2, .callGraph, from: 1.2, to: 1.4, status: 200)
        hides.expect("graph.forbidden-403", .failed, decidedBy: "reports-error")
    }

    @Test func graphServiceUnavailable() {
        var patient = Synthetic()
        patient.signedIn()
        patient.graph(at: 1.3, status: 503)
        patient.graph(at: 3.4)
        patient.reply(2, .callGraph, from: 1.2, to: 3.5, status: 200)
        patient.expectPassed("graph.service-unavailable-503")

        var hasty = Synthetic()
        hasty.signedIn()
        hasty.graph(at: 1.3, status: 503)
        hasty.graph(at: 1.6)
        hasty.reply(2, .callGraph, from: 1.2, to: 1.7, status: 200)
        hasty.expect("graph.service-unavailable-503", .failed, decidedBy: "waits-retry-after")
    }

    /// A persistent Graph 503 without Retry-After: a few retries a second or more apart, then the error.
    @Test func graph503WithoutRetryAfter() {
        var patient = Synthetic()
        patient.signedIn()
        for (index, at) in [1.3, 6.3, 11.3, 16.3].enumerated() { patient.graph(at: at + Double(index) * 0.01, status: 503) }
        patient.reply(2, .callGraph, from: 1.2, to: 16.5, ok: false, error: .graphError, status: 503)
        patient.expectPassed("graph.503-no-retry-after")

        var hasty = Synthetic()
        hasty.signedIn()
        hasty.graph(at: 1.3, status: 503)
        hasty.graph(at: 1.4, status: 503)
        hasty.reply(2, .callGraph, from: 1.2, to: 1.5, ok: false, error: .graphError, status: 503)
        hasty.expect("graph.503-no-retry-after", .failed, decidedBy: "backs-off")

        var onceOnly = Synthetic()
        onceOnly.signedIn()
        for at in [1.3, 6.3, 6.4] { onceOnly.graph(at: at, status: 503) }
        onceOnly.reply(2, .callGraph, from: 1.2, to: 6.5, ok: false, error: .graphError, status: 503)
        onceOnly.expect("graph.503-no-retry-after", .failed, decidedBy: "backs-off")

        var endless = patient
        for at in [21.3, 26.3] { endless.graph(at: at, status: 503) }
        endless.expect("graph.503-no-retry-after", .failed, decidedBy: "bounded-retries")

        var claimsData = Synthetic()
        claimsData.signedIn()
        claimsData.graph(at: 1.3, status: 503)
        claimsData.reply(2, .callGraph, from: 1.2, to: 1.5, status: 200)
        claimsData.expect("graph.503-no-retry-after", .failed, decidedBy: "reports-error")
    }

    @Test func graphDroppedConnection() {
        var recovers = Synthetic()
        recovers.signedIn()
        recovers.graph(at: 1.3, status: 0)
        recovers.reply(2, .callGraph, from: 1.2, to: 1.5, ok: false, error: .network)
        recovers.graph(at: 1.7)
        recovers.reply(3, .callGraph, from: 1.6, to: 1.8, status: 200)
        recovers.expectPassed("graph.dropped-connection")

        var hangs = recovers
        hangs.outcomes[1].observed = .deadlineExceeded
        hangs.expect("graph.dropped-connection", .failed, decidedBy: "survives-drop")

        var neverCalled = Synthetic()
        neverCalled.signedIn()
        neverCalled.reply(2, .callGraph, from: 1.2, to: 1.5, ok: false, error: .network)
        neverCalled.graph(at: 1.7)
        neverCalled.reply(3, .callGraph, from: 1.6, to: 1.8, status: 200)
        neverCalled.expect("graph.dropped-connection", .failed, decidedBy: "calls-graph")

        var staysBroken = recovers
        staysBroken.outcomes[2].ok = false
        staysBroken.outcomes[2].error = .network
        staysBroken.outcomes[2].status = nil
        staysBroken.expect("graph.dropped-connection", .failed, decidedBy: "recovers")
    }

    func b2cAuthorize(_ s: inout Synthetic, at seconds: Double, policy: String, errorCode: String? = nil) {
        s.add(at: seconds, "GET", "/fabrikamb2c.onmicrosoft.com/\(policy)/oauth2/v2.0/authorize", status: errorCode == nil ? 200 : 302, kind: "authorize",
              query: [("client_id", "c"), ("response_type", "code"), ("p", policy)], errorCode: errorCode)
    }

    /// The profile-editing flow runs at its own policy and ends with tokens.
    @Test func b2cEditProfile() {
        var edits = Synthetic()
        b2cAuthorize(&edits, at: 0, policy: "B2C_1_susi")
        edits.reply(1, .signIn, from: 0, to: 1)
        b2cAuthorize(&edits, at: 1.2, policy: "B2C_1_edit_profile")
        edits.add(at: 1.5, "POST", "/fabrikamb2c.onmicrosoft.com/B2C_1_edit_profile/oauth2/v2.0/token", status: 200, kind: "token",
                  form: ["grant_type": "authorization_code", "code": "c0de"])
        edits.reply(2, .signIn, from: 1.1, to: 2)
        edits.expectPassed("b2c.edit-profile")

        var samePolicy = Synthetic()
        b2cAuthorize(&samePolicy, at: 0, policy: "B2C_1_susi")
        samePolicy.reply(1, .signIn, from: 0, to: 1)
        b2cAuthorize(&samePolicy, at: 1.2, policy: "B2C_1_susi")
        samePolicy.reply(2, .signIn, from: 1.1, to: 2)
        samePolicy.expect("b2c.edit-profile", .failed, decidedBy: "runs-edit-policy")
    }

    /// Cancel inside B2C's reset flow: reported as a cancellation, no second reset, no redemption.
    @Test func b2cCancelInReset() {
        var cancelled = Synthetic()
        b2cAuthorize(&cancelled, at: 0, policy: "B2C_1_susi", errorCode: "AADB2C90118")
        b2cAuthorize(&cancelled, at: 1, policy: "B2C_1_reset", errorCode: "AADB2C90091")
        cancelled.reply(1, .signIn, from: 0, to: 1.1, ok: false, error: .userCanceled)
        cancelled.expectPassed("b2c.cancel-in-reset")

        var loops = cancelled
        b2cAuthorize(&loops, at: 1.05, policy: "B2C_1_reset", errorCode: "AADB2C90091")
        loops.expect("b2c.cancel-in-reset", .failed, decidedBy: "no-second-reset")

        var misreported = cancelled
        misreported.outcomes[0].error = .other
        misreported.expect("b2c.cancel-in-reset", .failed, decidedBy: "reports-cancel")
    }

    // MARK: Token endpoint outages

    /// Steps 1–3 of a throttled refresh: the outage answers step 2's refresh at 1 s; `retryAt`: the next token request.
    func outage(status: Int, retryAfter: String?, retryAt: Double?, recovers: Bool = true) -> Synthetic {
        var s = Synthetic()
        s.signedIn(until: 0.6)
        s.refresh(at: 1, status: status, error: "temporarily_unavailable", retryAfter: retryAfter)
        s.reply(2, .getToken, from: 0.9, to: 1.1, ok: false, error: .serverError)
        if let retryAt { s.refresh(at: retryAt) }
        s.reply(3, .getToken, from: 1.2, to: 1.3, ok: false, error: .serverError)
        s.reply(4, .wait, from: 1.3, to: 3.3)
        s.reply(5, .getToken, from: 3.3, to: 3.6, ok: recovers)
        return s
    }

    @Test func serviceUnavailableWithRetryAfter() {
        outage(status: 503, retryAfter: "2", retryAt: 3.4).expectPassed("resilience.503-retry-after")
        outage(status: 503, retryAfter: "2", retryAt: nil).expectPassed("resilience.503-retry-after")
        outage(status: 503, retryAfter: "2", retryAt: 1.25).expect("resilience.503-retry-after", .failed, decidedBy: "no-early-retry")
        outage(status: 503, retryAfter: "2", retryAt: 3.4, recovers: false).expect("resilience.503-retry-after", .failed, decidedBy: "resumes-after-wait")
    }

    /// No Retry-After: a second of back-off is due, as MSAL.NET waits before its retry. The case's journey
    /// has no wait step.
    @Test func serviceUnavailableWithoutRetryAfter() {
        var s = outage(status: 503, retryAfter: nil, retryAt: nil)
        s.outcomes.removeAll { $0.id > 3 }
        s.expectPassed("resilience.503-no-retry-after")
        s.refresh(at: 6.1)
        s.expectPassed("resilience.503-no-retry-after")

        var msalNet = outage(status: 503, retryAfter: nil, retryAt: 2.05)
        msalNet.outcomes.removeAll { $0.id > 3 }
        msalNet.expectPassed("resilience.503-no-retry-after")

        var early = outage(status: 503, retryAfter: nil, retryAt: 1.3)
        early.outcomes.removeAll { $0.id > 3 }
        let check = early.check("resilience.503-no-retry-after", "no-early-retry")
        #expect(check.reason.contains("0.30 s"), "\(check.reason)")
        early.expect("resilience.503-no-retry-after", .failed, decidedBy: "no-early-retry")
    }

    func connectionTrouble(step2: StepOutcome.Observed, error: AdapterError?, recovers: Bool) -> Synthetic {
        var s = Synthetic()
        s.signedIn()
        s.add(at: 1.3, "POST", Synthetic.tenant + "/oauth2/v2.0/token", status: 0, kind: "token", form: ["grant_type": "refresh_token", "refresh_token": "rt1"])
        s.reply(2, .getToken, from: 1.2, to: step2 == .answered ? 3.3 : 7.2, ok: false, error: error, observed: step2)
        s.refresh(at: 7.5)
        s.reply(3, .getToken, from: 7.4, to: 7.6, ok: recovers, error: recovers ? nil : .network)
        return s
    }

    @Test func droppedConnection() {
        connectionTrouble(step2: .answered, error: .network, recovers: true).expectPassed("resilience.dropped-connection")
        connectionTrouble(step2: .deadlineExceeded, error: nil, recovers: true).expect("resilience.dropped-connection", .failed, decidedBy: "survives-drop")
        connectionTrouble(step2: .adapterExited, error: nil, recovers: true).expect("resilience.dropped-connection", .failed, decidedBy: "survives-drop")
        connectionTrouble(step2: .answered, error: .network, recovers: false).expect("resilience.dropped-connection", .failed, decidedBy: "recovers")
    }

    @Test func hungTokenEndpoint() {
        connectionTrouble(step2: .answered, error: .timeout, recovers: true).expectPassed("resilience.hung-token-endpoint")
        connectionTrouble(step2: .deadlineExceeded, error: nil, recovers: true).expect("resilience.hung-token-endpoint", .failed, decidedBy: "gives-up-in-time")
        connectionTrouble(step2: .answered, error: .timeout, recovers: false).expect("resilience.hung-token-endpoint", .failed, decidedBy: "recovers")
        // MSAL.NET's default: the request timed out at 2 s, one retry a second later, the token served at 3.5 s.
        var retried = connectionTrouble(step2: .answered, error: nil, recovers: true)
        retried.refresh(at: 3.4)
        retried.outcomes[1].ok = true
        retried.outcomes[1].error = nil
        retried.outcomes[1].endedAt = Synthetic.t0.addingTimeInterval(3.5)
        retried.expectPassed("resilience.hung-token-endpoint")
    }

    @Test func claimsOnCodeRedemption() {
        let caseID = "errors.claims-on-code-redemption"
        var refused = Synthetic()
        refused.authorize(at: 0)
        refused.add(at: 0.5, "POST", Synthetic.tenant + "/oauth2/v2.0/token", status: 400, kind: "token", form: ["grant_type": "authorization_code", "code": "c0de"],
                    answer: Receipt.Answer(error: "invalid_grant", errorCodes: [50076]), errorCode: "AADSTS50076")
        refused.reply(1, .signIn, from: 0, to: 0.6, ok: false, error: .invalidGrant)
        refused.expect(caseID, .failed, decidedBy: "asks-with-claims")

        var withoutClaims = refused
        withoutClaims.outcomes.removeLast()
        withoutClaims.authorize(at: 0.7)
        withoutClaims.redeem(at: 1.0)
        withoutClaims.reply(1, .signIn, from: 0, to: 1.1)
        withoutClaims.expect(caseID, .failed, decidedBy: "asks-with-claims")

        var withClaims = refused
        withClaims.outcomes.removeLast()
        withClaims.add(at: 0.7, "GET", Synthetic.tenant + "/oauth2/v2.0/authorize", status: 200, kind: "authorize",
                       query: [("client_id", "c"), ("code_challenge", "abc"), ("code_challenge_method", "S256"),
                               ("claims", #"{"access_token":{"capolids":{"essential":true,"values":["p"]},"xms_cc":{"values":["cp1"]}}}"#)])
        withClaims.redeem(at: 1.0)
        withClaims.reply(1, .signIn, from: 0, to: 1.1)
        withClaims.expectPassed(caseID)
    }
}
