import Testing
@testable import Scenarios

/// Which suite tests each shipped scenario: a scenario added without a test fails here.
extension ShippedScenarioTests {
    @Test func everyShippedScenarioHasATest() {
        let tested: Set<String> = [
            "happy-path", "access-token-expiry", "refresh-token-expired", "grant-revoked-password-change", "bad-token",
            "incremental-consent-required", "admin-consent-required", "declined-scopes", "user-declines-consent", "user-cancels-sign-in",
            "mfa-required", "password-expired", "prompt-none-no-session", "conditional-access-blocked", "protection-policy-required",
            "throttled-token-endpoint", "transient-503-then-success", "network-drop-then-success", "slow-token-endpoint", "clock-skew",
            "signing-key-rollover", "family-refresh-token", "adal-v1-resource-migration", "graph-cae-claims-challenge", "graph-throttling",
            "graph-missing-scope-403", "b2c-forgot-password", "b2c-cancel", "b2c-edit-profile",
            // ShippedExternalIDScenarioTests
            "external-id-code-expired", "external-id-code-requests-throttled", "external-id-password-reset-required",
            "external-id-sign-up-attribute-refused", "external-id-redirect-challenge",
            // KeyScenarioTests
            "signing-key-graceful-rollover",
            // ShippedManagedIdentityScenarioTests
            "managed-identity-imds-updating", "managed-identity-throttled", "managed-identity-transient-500",
        ]
        #expect(Set(Self.library.names) == tested)
    }
}
