import EntraHTTP
import Testing
@testable import Scenarios

/// The managed-identity fault scenarios: each scripted answer is IMDS's status alone, without the headers
/// Entra's front end adds, and the requests after it reach the managed-identity service.
extension ShippedScenarioTests {
    static let imdsToken = "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https%3A%2F%2Fmanagement.azure.com"

    private func imds(_ harness: Harness) -> HTTPResponse {
        harness.send(Harness.get(Self.imdsToken, headers: ["Metadata": "true"]))
    }

    private func expectScripted(_ response: HTTPResponse, status: Int, retryAfter: String? = nil) {
        #expect(response.status.code == status)
        #expect(response.body.isEmpty, "IMDS's faults have no recorded body")
        #expect(response.headers["Retry-After"] == retryAfter)
        #expect(response.headers["x-ms-ests-server"] == nil, "not Entra's front end")
    }

    @Test func managedIdentityIMDSUpdating() throws {
        let harness = try bound("managed-identity-imds-updating")
        expectScripted(imds(harness), status: 410)
        #expect(harness.probe.count == 0)
        #expect(imds(harness).status.code != 410)
        #expect(harness.probe.count == 1, "the second request reaches the managed-identity service")
    }

    @Test func managedIdentityThrottled() throws {
        let harness = try bound("managed-identity-throttled")
        expectScripted(imds(harness), status: 429, retryAfter: "2")
        _ = imds(harness)
        #expect(harness.probe.count == 1)
    }

    @Test func managedIdentityTransient500() throws {
        let harness = try bound("managed-identity-transient-500")
        expectScripted(imds(harness), status: 500)
        expectScripted(imds(harness), status: 500)
        #expect(harness.probe.count == 0)
        _ = imds(harness)
        #expect(harness.probe.count == 1)
    }

    @Test func aTokenEndpointFaultStillCarriesEntrasHeaders() throws {
        let harness = try bound("transient-503-then-success")
        #expect(harness.send(Harness.passwordGrant()).headers["x-ms-ests-server"] != nil)
    }
}
