import EntraHTTP
import Foundation
import ExchangeKernel
import IdentityPlatform
import Testing
@testable import Graph

@Suite("Graph errors and the engine's renderers")
struct GraphErrorTests {
    let trace = GraphTrace(requestID: "6a1b2c3d-0000-4000-8000-000000000001", clientRequestID: "c1", date: Demo.now)

    @Test func errorRendersGraphsExactShape() {
        let response = GraphError.insufficientPrivileges.response(in: trace)
        #expect(response.status.code == 403)
        #expect(response.bodyText == #"{"error":{"code":"Authorization_RequestDenied","message":"Insufficient privileges to complete the operation.","innerError":{"date":"2025-01-08T12:00:00","request-id":"6a1b2c3d-0000-4000-8000-000000000001","client-request-id":"c1"}}}"#)
        #expect(response.headers["request-id"] == "6a1b2c3d-0000-4000-8000-000000000001")
        #expect(response.headers["client-request-id"] == "c1")
        #expect(response.headers["Date"] == "Wed, 08 Jan 2025 12:00:00 GMT")
        #expect(response.headers["Content-Type"] == "application/json")
    }

    @Test func throttlingCarriesRetryAfter() {
        let response = GraphError.throttled(retryAfter: 30).response(in: trace)
        #expect(response.status.code == 429)
        #expect(response.headers["Retry-After"] == "30")
        #expect(response.errorCode == "TooManyRequests")
        let sharepoint = GraphError.throttled(retryAfter: 41, code: "activityLimitReached", message: "The request has been throttled", innerCode: "throttledRequest")
        #expect(sharepoint.response(in: trace).bodyText == #"{"error":{"code":"activityLimitReached","message":"The request has been throttled","innerError":{"code":"throttledRequest","date":"2025-01-08T12:00:00","request-id":"6a1b2c3d-0000-4000-8000-000000000001","client-request-id":"c1"}}}"#)
    }

    @Test func claimsChallengeOnlyForCP1Clients() throws {
        let fixture = GraphFixture()
        let validator = BearerTokenValidator.graph()
        let capable = try validator.validate(authorization: "Bearer " + fixture.token(capabilities: ["CP1"]), keys: [platformCredential], directory: .embeddedDefault, now: Demo.now).get()
        let plain = try validator.validate(authorization: "Bearer " + fixture.token(), keys: [platformCredential], directory: .embeddedDefault, now: Demo.now).get()
        #expect(GraphError.claimsChallenge(for: plain, notBefore: Demo.now, authorityOrigin: "https://login.microsoftonline.com") == nil)
        let challenge = try #require(GraphError.claimsChallenge(for: capable, notBefore: Demo.now, authorityOrigin: "https://login.microsoftonline.com"))
        #expect(challenge.status.code == 401)
        let header = try #require(challenge.headers["WWW-Authenticate"])
        #expect(header.hasPrefix(#"Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000", error="insufficient_claims", claims=""#))
        let encoded = try #require(header.split(separator: "\"").last)
        let decoded = try #require(Data(base64Encoded: String(encoded)))
        #expect(String(decoding: decoded, as: UTF8.self) == #"{"access_token":{"nbf":{"essential":true, "value":"1736337600"}}}"#)
    }

    @Test func scriptedAnswersComeWhereGraphGivesThem() {
        let fixture = GraphFixture()
        let throttled = fixture.get("/v1.0/me/events", token: fixture.token(), scripted: .graphError(GraphErrorSpec(status: 429, code: "TooManyRequests", retryAfter: 5)))
        #expect(throttled.status.code == 429)
        #expect(throttled.headers["Retry-After"] == "5")
        #expect(throttled.errorMessage == "Too many requests. Please try again later.")
        let challenged = fixture.get("/v1.0/me", token: fixture.token(capabilities: ["cp1"]), scripted: .claimsChallenge(ClaimsChallengeSpec()))
        #expect(challenged.status.code == 401)
        #expect(challenged.headers["WWW-Authenticate"]?.contains(#"error="insufficient_claims""#) == true)
        #expect(challenged.errorMessage == "Continuous access evaluation resulted in challenge with result: InteractionRequired and code: TokenIssuedBeforeRevocationTimestamp")
        // The workload's answers come after the token check; the gateway's before it.
        #expect(fixture.get("/v1.0/me/events", token: nil, scripted: .graphError(GraphErrorSpec(status: 429, code: "TooManyRequests"))).errorCode == "InvalidAuthenticationToken")
        let outage = fixture.get("/v1.0/me", token: nil, headers: [("client-request-id", "abc")], scripted: .serviceError(ServiceErrorSpec(status: 503, retryAfter: 10)))
        #expect(outage.status.code == 503)
        #expect(outage.headers["Retry-After"] == "10")
        #expect(outage.headers["client-request-id"] == "abc")
        #expect(outage.bodyText == expectedErrorBody(code: "serviceNotAvailable", message: "Service unavailable. Please try again later.", response: outage))
    }

    @Test func endpointNamesForScenarioRules() {
        let cases: [(String, String)] = [
            ("/v1.0/me", "me"), ("/v1.0/users/x", "user"), ("/beta/users", "users"), ("/v1.0/me/photo/$value", "photoValue"),
            ("/v1.0/me/calendar/calendarView", "calendarView"), ("/v1.0/users/x/events/abc", "event"), ("/oidc/userinfo", "userInfo"),
            ("/v1.0/me/mailboxSettings", "mailboxSettings"), ("/v1.0/me/nothing", "unknown"),
        ]
        for (target, name) in cases {
            let route = GraphRoute.parse(HTTPRequest(method: "GET", target: target), graphHost: false)
            #expect(route?.endpointName == name, "\(target)")
        }
    }
}
