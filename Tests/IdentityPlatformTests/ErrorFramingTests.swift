import EntraHTTP
import Foundation
import ExchangeKernel
@testable import IdentityPlatform
import Testing

/// How an error is framed depends on who answers, as recorded from the real service
/// (Tests/Fidelity/recordings): the v1 endpoint and B2C frame the same catalogue entry differently.
@Suite struct ErrorFramingTests {
    static func trace(_ version: EndpointVersion) -> TraceContext {
        TraceContext(traceID: "t", correlationID: "c", timestamp: Date(timeIntervalSince1970: 1_700_000_000), origin: "https://login.fake.test", endpointVersion: version)
    }

    static func body(_ error: IdentityError, _ version: EndpointVersion) throws -> [String: Any] {
        let response = error.tokenEndpointResponse(in: trace(version))
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func interactionCodesAreInteractionRequiredOnV1AndInvalidGrantOnV2() throws {
        for error in [IdentityError.mfaRequired(resource: Resource.graphAppID), .mfaEnrollmentRequired(resource: Resource.graphAppID), .conditionalAccessBlocked()] {
            #expect(try Self.body(error, .v1)["error"] as? String == "interaction_required", "AADSTS\(error.code) on v1")
            #expect(try Self.body(error, .v2)["error"] as? String == "invalid_grant", "AADSTS\(error.code) on v2.0")
        }
        // Other invalid_grant codes keep their word on v1.
        #expect(try Self.body(.grantRevoked(issuedAt: .now, validFrom: .now), .v1)["error"] as? String == "invalid_grant")
        let redirect = IdentityError.mfaRequired(resource: "r").redirectParameters(in: Self.trace(.v1), state: nil)
        #expect(redirect.first { $0.0 == "error" }?.1 == "interaction_required")
    }

    @Test func b2cAnswersTwoMembersAndEndsItsTimestampLine() throws {
        let body = try Self.body(.b2cGrantRevoked(), .v2)
        #expect(Set(body.keys) == ["error", "error_description"])
        let description = try #require(body["error_description"] as? String)
        #expect(description.hasPrefix("AADB2C") && description.hasSuffix("Timestamp: 2023-11-14 22:13:20Z\r\n"))
        let entra = try Self.body(.invalidGrant(), .v2)
        #expect(Set(entra.keys) == ["error", "error_description", "error_codes", "timestamp", "trace_id", "correlation_id", "error_uri"])
        #expect((entra["error_description"] as? String)?.hasSuffix("Z") == true)
    }
}
