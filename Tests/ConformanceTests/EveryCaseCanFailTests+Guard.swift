import Conformance
import Foundation
import Testing

/// The guard: every catalogue case has a proof that it can fail, and the proof it names exists.
extension EveryCaseCanFailTests {
    /// Where each case's failing proof lives: `swift:<Suite>.<test>` (synthetic journals judged here) or
    /// `adapter:<variant>` (a broken adapter of Tests/Conformance/test_broken_adapters.py failing it live).
    static let canFailProofs: [String: String] = [
        "protocol.pkce-s256": "adapter:no-pkce",
        "confidential.pkce-s256": "swift:JudgeTests.pkceIsRecommendedToConfidentialClients",
        "protocol.nonce-mismatch": "adapter:accepts-bad-nonce",
        "protocol.id-token-audience": "swift:JudgeTests.recommendedCasesWarn",
        "protocol.id-token-issuer": "swift:EveryCaseCanFailTests.badIDTokenIsRefused",
        "protocol.id-token-expired": "swift:EveryCaseCanFailTests.badIDTokenIsRefused",
        "protocol.id-token-signature": "swift:EveryCaseCanFailTests.badIDTokenIsRefused",
        "protocol.id-token-alg-none": "swift:EveryCaseCanFailTests.badIDTokenIsRefused",
        "protocol.id-token-unknown-kid": "swift:EveryCaseCanFailTests.badIDTokenIsRefused",
        "protocol.id-token-tenant": "swift:EveryCaseCanFailTests.badIDTokenIsRefused",
        "protocol.prompt-none-login-required": "adapter:login-required-as-error",
        "graph.paging": "adapter:stops-after-first-page",
        "resilience.device-pending-interval": "adapter:polls-without-waiting",
        "lifecycle.account-isolation": "adapter:keeps-first-account",
        "protocol.signing-key-rollover": "swift:EveryCaseCanFailTests.signingKeyRollover",
        "protocol.refresh-other-user": "swift:EveryCaseCanFailTests.refreshOtherUser",
        "protocol.discovery-issuer": "swift:DeviceAndDiscoveryJudgeTests.goingOnAfterAForeignIssuerWarns",
        "protocol.state-mismatch": "adapter:ignores-state",
        "protocol.error-redirect": "swift:JudgeTests.errorRedirect",
        "errors.consent-required": "swift:EveryCaseCanFailTests.consentRequired",
        "errors.mfa-basic-action": "adapter:never-interactive",
        "errors.bad-token": "swift:EveryCaseCanFailTests.goesInteractiveAfterARefusedRefresh",
        "errors.claims-on-code-redemption": "swift:EveryCaseCanFailTests.claimsOnCodeRedemption",
        "errors.invalid-client": "swift:JudgeTests.noRetryLoopOnInvalidClient",
        "errors.declined-scopes": "adapter:ignores-declined-scopes",
        "errors.dead-grant-loop": "adapter:dead-token-loop",
        "errors.consent-declined": "swift:EveryCaseCanFailTests.consentDeclined",
        "resilience.retry-after-seconds": "adapter:ignores-retry-after",
        "resilience.retry-after-http-date": "swift:JudgeTests.httpDateResumptionIsRecommended",
        "resilience.503-retry-after": "swift:EveryCaseCanFailTests.serviceUnavailableWithRetryAfter",
        "resilience.503-no-retry-after": "swift:EveryCaseCanFailTests.serviceUnavailableWithoutRetryAfter",
        "resilience.dropped-connection": "swift:EveryCaseCanFailTests.droppedConnection",
        "resilience.hung-token-endpoint": "swift:EveryCaseCanFailTests.hungTokenEndpoint",
        "resilience.device-slow-down": "adapter:ignores-slow-down",
        "resilience.device-code-expired": "swift:DeviceFlowEndsTests.aClientThatPollsOnFailsAndOneThatStopsPasses",
        "resilience.device-code-declined": "swift:DeviceFlowEndsTests.aClientThatPollsOnFailsAndOneThatStopsPasses",
        "lifecycle.cached-token-reuse": "swift:JudgeTests.cachedTokenReuse",
        "lifecycle.short-expires-in": "swift:EveryCaseCanFailTests.shortExpiresIn",
        "lifecycle.refresh-in": "swift:EveryCaseCanFailTests.refreshIn",
        "lifecycle.rotation": "swift:JudgeTests.rotation",
        "lifecycle.revoked-grant": "swift:EveryCaseCanFailTests.goesInteractiveAfterARefusedRefresh",
        "lifecycle.refresh-token-expired": "swift:EveryCaseCanFailTests.goesInteractiveAfterARefusedRefresh",
        "lifecycle.clock-skew": "swift:EveryCaseCanFailTests.clockSkew",
        "externalid.sign-in-refresh": "swift:EveryCaseCanFailTests.externalIDSignInRefreshesSilently",
        "externalid.password-reset-revokes": "swift:EveryCaseCanFailTests.goesInteractiveAfterARefusedRefresh",
        "nativeauth.sign-in-refresh": "adapter:native-sign-in-per-token",
        "nativeauth.code-expired": "adapter:resubmits-refused-code",
        "nativeauth.wrong-code": "adapter:restarts-after-wrong-code",
        "nativeauth.resend-throttled": "adapter:resend-loop",
        "nativeauth.password-reset-required": "adapter:no-native-password-reset",
        "nativeauth.mfa": "adapter:gives-up-on-mfa",
        "nativeauth.jit-registration": "adapter:gives-up-on-registration",
        "nativeauth.browser-fallback": "adapter:no-browser-fallback",
        "lifecycle.sign-out": "swift:EveryCaseCanFailTests.signOut",
        "graph.cae-claims-challenge": "adapter:drops-claims-challenge",
        "graph.second-challenge": "swift:JudgeTests.secondChallengeAllowsOneRetry",
        "graph.invalid-token-401": "adapter:graph-401-loop",
        "graph.forbidden-403": "swift:EveryCaseCanFailTests.graphForbidden",
        "graph.throttled-429": "adapter:ignores-graph-retry-after",
        "graph.service-unavailable-503": "swift:EveryCaseCanFailTests.graphServiceUnavailable",
        "graph.503-no-retry-after": "swift:EveryCaseCanFailTests.graph503WithoutRetryAfter",
        "graph.dropped-connection": "swift:EveryCaseCanFailTests.graphDroppedConnection",
        "b2c.password-reset": "adapter:no-password-reset",
        "b2c.cancel": "adapter:cancel-as-error",
        "b2c.cancel-in-reset": "swift:EveryCaseCanFailTests.b2cCancelInReset",
        "b2c.edit-profile": "swift:EveryCaseCanFailTests.b2cEditProfile",
        "confidential.secret-invalid": "adapter:signs-in-again-on-invalid-client",
        "confidential.secret-expired": "swift:ConfidentialClientTests.aRefusedSecretIsReportedNotRetried",
        "confidential.certificate-rollover": "adapter:no-certificate-reload",
        "confidential.app-token-reuse": "adapter:new-app-per-call",
        "confidential.app-token-secret-refused": "swift:ConfidentialClientTests.aDaemonReportsARefusedSecretOnce",
        "mcp.entra-resource-and-registration": "swift:EveryCaseCanFailTests.mcpClientMeetingEntra",
    ]

    /// A new case cannot be added without a proof that its checks can fail, and every proof named exists:
    /// the Swift test in its suite's sources, the broken adapter in the Python TARGETS for that very case.
    @Test func everyCaseHasACanFailProof() throws {
        #expect(Set(Self.canFailProofs.keys) == Set(Catalogue.all.map(\.id)))
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        // This file names every case in its table, so it cannot prove a test names one.
        let swiftSources = try FileManager.default.contentsOfDirectory(atPath: here.path).filter { $0.hasSuffix(".swift") && !#filePath.hasSuffix("/" + $0) }
            .map { try String(contentsOf: here.appendingPathComponent($0), encoding: .utf8) }
        let targets = try String(contentsOf: here.deletingLastPathComponent().appendingPathComponent("Conformance/test_broken_adapters.py"), encoding: .utf8)
        for (caseID, proof) in Self.canFailProofs.sorted(by: { $0.key < $1.key }) {
            if proof.hasPrefix("adapter:") {
                let variant = proof.dropFirst("adapter:".count)
                #expect(targets.contains(#""\#(variant)": ("\#(caseID)""#), "\(caseID): no broken adapter \(variant) targets it")
            } else if proof.hasPrefix("swift:") {
                let name = proof.dropFirst("swift:".count).split(separator: ".").map(String.init)
                let declared = name.count == 2 && swiftSources.contains {
                    ($0.contains("struct \(name[0])") || $0.contains("extension \(name[0])")) && Self.test(name[1], in: $0, names: caseID)
                }
                #expect(declared, "\(caseID): \(proof) is not a test naming this case")
            } else {
                Issue.record("\(caseID): \(proof) is neither swift: nor adapter:")
            }
        }
    }

    /// True when test `name` (its `@Test` attributes, arguments and body, up to the next `@Test`) names
    /// the case: as a literal id, or through a `static let` holding it. A helper of the same name is no test.
    static func test(_ name: String, in source: String, names caseID: String) -> Bool {
        let constants = source.split(separator: "\n").filter { $0.contains("static let ") && $0.hasSuffix(" = \"\(caseID)\"") }
            .compactMap { $0.components(separatedBy: "static let ").last?.components(separatedBy: " ").first }
        var searched = source.startIndex..<source.endIndex
        while let declaration = source.range(of: "func \(name)(", range: searched) {
            searched = declaration.upperBound..<source.endIndex
            guard let start = source.range(of: "@Test", options: .backwards, range: source.startIndex..<declaration.lowerBound)?.lowerBound,
                  !source[start..<declaration.lowerBound].contains("func ") else { continue }
            let test = source[start..<(source.range(of: "@Test", range: searched)?.lowerBound ?? source.endIndex)]
            if test.contains("\"\(caseID)\"") || constants.contains(where: { test.contains("Self.\($0)") }) { return true }
        }
        return false
    }
}
