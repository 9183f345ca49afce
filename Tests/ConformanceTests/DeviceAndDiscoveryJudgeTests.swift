import ExchangeKernel
import Conformance
import Foundation
import IdentityPlatform
import Testing

extension Synthetic {
    mutating func deviceAuthorization(at seconds: Double, interval: Int?) {
        add(at: seconds, "POST", Self.tenant + "/oauth2/v2.0/devicecode", status: 200, kind: "device_code", form: ["client_id": "c", "scope": "User.Read"],
            answer: Receipt.Answer(interval: interval))
    }

    mutating func devicePoll(at seconds: Double, error: String? = nil) {
        add(at: seconds, "POST", Self.tenant + "/oauth2/v2.0/token", status: error == nil ? 200 : 400, kind: "token",
            form: ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "GAQABAAEAAA"],
            answer: error.map { Receipt.Answer(error: $0) } ?? Receipt.Answer(scope: "User.Read", refreshToken: Receipt.handleID("rt1")))
    }

    mutating func discovery(at seconds: Double, issuer: String) {
        add(at: seconds, "GET", "/conformance-1/v2.0/.well-known/openid-configuration", status: 200, kind: "openid_configuration",
            answer: Receipt.Answer(issuer: issuer))
    }
}

/// The device flow's slow_down (RFC 8628 §3.5) and discovery's issuer (OIDC Discovery §4.3).
@Suite struct DeviceAndDiscoveryJudgeTests {
    static let slowDown = "resilience.device-slow-down"
    static let issuer = "protocol.discovery-issuer"

    /// MSAL for Python with interval 1: slow_down at 0 s, then every 6 s.
    @Test func pollsSpacedByTheIntervalPlusFiveSecondsPass() {
        var s = Synthetic()
        s.deviceAuthorization(at: 0, interval: 1)
        s.devicePoll(at: 0.1, error: "slow_down")
        s.devicePoll(at: 6.1, error: "authorization_pending")
        s.devicePoll(at: 12.15)
        s.reply(1, .signInDevice, from: 0, to: 12.2)
        let result = s.judge(Self.slowDown)
        #expect(result.verdict == .passed, "\(result.reason)")
        #expect(s.check(Self.slowDown, "backs-off").reason.contains("interval 1 s + 5 s"))
        #expect(s.check(Self.slowDown, "backs-off").evidence.count == 4, "the authorization, the slow_down and both later polls")
    }

    @Test func aClientThatKeepsItsIntervalFails() {
        var s = Synthetic()
        s.deviceAuthorization(at: 0, interval: 1)
        s.devicePoll(at: 0.1, error: "slow_down")
        s.devicePoll(at: 1.1, error: "authorization_pending")
        s.devicePoll(at: 2.1)
        s.reply(1, .signInDevice, from: 0, to: 2.2)
        let check = s.check(Self.slowDown, "backs-off")
        #expect(check.verdict == .failed)
        #expect(check.reason.contains("1.00 s after the one before"), "\(check.reason)")
        #expect(s.judge(Self.slowDown).verdict == .failed)
    }

    /// Only the first gap grew: the RFC wants 5 more seconds for every later poll too.
    @Test func aClientThatSlowsDownOnceOnlyFails() {
        var s = Synthetic()
        s.deviceAuthorization(at: 0, interval: 1)
        s.devicePoll(at: 0, error: "slow_down")
        s.devicePoll(at: 6, error: "authorization_pending")
        s.devicePoll(at: 7)
        s.reply(1, .signInDevice, from: 0, to: 7.1)
        let check = s.check(Self.slowDown, "backs-off")
        #expect(check.verdict == .failed)
        #expect(check.evidence.count == 4, "the authorization, the slow_down, and the pair too close together")
    }

    @Test func withoutAnIntervalTheRFCsFiveSecondsCount() {
        var s = Synthetic()
        s.deviceAuthorization(at: 0, interval: nil)
        s.devicePoll(at: 0, error: "slow_down")
        s.devicePoll(at: 6)
        s.reply(1, .signInDevice, from: 0, to: 6.1)
        #expect(s.check(Self.slowDown, "backs-off").verdict == .failed, "5 + 5 s were due")
    }

    @Test func noSlowDownIsNotTestableAndGivingUpIsNoSilentPass() {
        var never = Synthetic()
        never.deviceAuthorization(at: 0, interval: 1)
        never.devicePoll(at: 0)
        never.reply(1, .signInDevice, from: 0, to: 1)
        #expect(never.judge(Self.slowDown).verdict == .notTestable)

        var gaveUp = Synthetic()
        gaveUp.deviceAuthorization(at: 0, interval: 1)
        gaveUp.devicePoll(at: 0, error: "slow_down")
        gaveUp.reply(1, .signInDevice, from: 0, to: 0.5, ok: false, error: .other)
        #expect(gaveUp.check(Self.slowDown, "backs-off").verdict == .passed, "no early poll")
        #expect(gaveUp.judge(Self.slowDown).verdict == .failed, "but no token either")
    }

    @Test func anAdapterWithoutADeviceFlowSkipsTheCase() {
        var s = Synthetic()
        s.reply(1, .signInDevice, from: 0, to: 0.1, ok: false, error: .unsupported)
        #expect(s.judge(Self.slowDown).verdict == .skipped)
    }

    // MARK: discovery issuer

    @Test func goingOnAfterAForeignIssuerWarns() {
        var s = Synthetic()
        s.discovery(at: 0, issuer: Catalogue.discoveryIssuer)
        s.authorize(at: 0.5)
        s.redeem(at: 1)
        s.reply(1, .signIn, from: 0, to: 1.2)
        let result = s.judge(Self.issuer)
        #expect(result.verdict == .warning, "recommended: \(result.reason)")
        #expect(s.check(Self.issuer, "stops-after-discovery").reason.contains("an /authorize, token or Graph request followed"))
    }

    @Test func stoppingWithAnErrorPasses() {
        var s = Synthetic()
        s.discovery(at: 0, issuer: Catalogue.discoveryIssuer)
        s.reply(1, .signIn, from: 0, to: 0.3, ok: false, error: .rejectedToken)
        let result = s.judge(Self.issuer)
        #expect(result.verdict == .passed, "\(result.reason)")
        #expect(s.check(Self.issuer, "stops-after-discovery").reason.hasPrefix("no /authorize, token or Graph request after"))
    }

    @Test func noDiscoveryIsNotTestable() {
        var s = Synthetic()
        s.authorize(at: 0)
        s.redeem(at: 1)
        s.reply(1, .signIn, from: 0, to: 1.2)
        #expect(s.judge(Self.issuer).verdict == .notTestable, "hard-coded endpoints prove nothing about issuer checks")
        var honest = Synthetic()
        honest.discovery(at: 0, issuer: "https://localhost/tenant/v2.0")
        honest.authorize(at: 0.5)
        honest.reply(1, .signIn, from: 0, to: 1)
        #expect(honest.check(Self.issuer, "stops-after-discovery").verdict == .notTestable, "only the foreign document triggers it")
    }

    // MARK: wording

    /// "no a token request" was the old wording: every label of the catalogue reads well after "no".
    @Test func negativeReasonsReadWellForEveryLabel() {
        var labels: [ExchangeMatch] = [.tokenRequest, .refresh, .codeRedemption, .authorize, .graph, .deviceAuthorization, .devicePoll, .openIDConfiguration, .usesDiscoveredEndpoints]
        for conformanceCase in Catalogue.all {
            for check in conformanceCase.checks {
                switch check.rule {
                case .noneAfter(let trigger, let forbidden, _): labels += [trigger, forbidden]
                case .follows(let trigger, let then): labels += [trigger, then]
                case .waits(let trigger, let next, _, _): labels += [trigger, next]
                case .atMost(_, let match, let after): labels += [match, after]
                case .noneDuring(_, let match), .someDuring(_, let match): labels.append(match)
                case .seen(let match, let once): labels += [match, once]
                default: break
                }
            }
        }
        for match in labels {
            let text = match.absence
            #expect(text.hasPrefix("no "), "\(text)")
            for article in ["a", "an", "the", "A", "An", "The"] {
                #expect(!text.hasPrefix("no \(article) "), "\(match.label) → \(text)")
            }
        }
        #expect(ExchangeMatch.tokenRequest.absence == "no token request")
        #expect(ExchangeMatch.authorize.absence == "no /authorize request")
        #expect(ExchangeMatch.codeRedemption.absence == "no code redemption")
        #expect(ExchangeMatch("Graph calls").absence == "no Graph calls")
    }

    @Test func judgedReasonsNeverSayNoA() {
        var s = Synthetic()
        s.authorize(at: 0, errorCode: "AADSTS65004")
        s.reply(1, .signIn, from: 0, to: 1, ok: false, error: .userCanceled)
        let reason = s.check("errors.consent-declined", "no-redemption").reason
        #expect(reason.hasPrefix("no code redemption after"), "\(reason)")
    }
}

/// A device-code poll that ends the flow (RFC 8628 §3.5): the client stops polling and says why.
@Suite struct DeviceFlowEndsTests {
    @Test(arguments: [("resilience.device-code-expired", "expired_token", AdapterError.other),
                      ("resilience.device-code-declined", "authorization_declined", AdapterError.userCanceled)])
    func aClientThatPollsOnFailsAndOneThatStopsPasses(caseID: String, error: String, reported: AdapterError) {
        var pollsOn = Synthetic()
        pollsOn.deviceAuthorization(at: 0, interval: 1)
        pollsOn.devicePoll(at: 1, error: error)
        pollsOn.devicePoll(at: 2, error: error)
        pollsOn.reply(1, .signInDevice, from: 0, to: 2.1, ok: false, error: reported)
        pollsOn.expect(caseID, .failed, decidedBy: "stops-polling")

        var stops = Synthetic()
        stops.deviceAuthorization(at: 0, interval: 1)
        stops.devicePoll(at: 1, error: error)
        stops.reply(1, .signInDevice, from: 0, to: 1.1, ok: false, error: reported)
        stops.expectPassed(caseID)

        var claimsSuccess = stops
        claimsSuccess.outcomes[0].ok = true
        claimsSuccess.outcomes[0].error = nil
        claimsSuccess.expect(caseID, .failed, decidedBy: "reports-end")
    }

    @Test func aDeclinedSignInReportedAsAnotherErrorFails() {
        var s = Synthetic()
        s.deviceAuthorization(at: 0, interval: 1)
        s.devicePoll(at: 1, error: "authorization_declined")
        s.reply(1, .signInDevice, from: 0, to: 1.1, ok: false, error: .other)
        #expect(s.check("resilience.device-code-declined", "reports-end").verdict == .failed)
    }
}
