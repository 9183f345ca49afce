import B2C
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing

/// AADSTS and AADB2C errors render through the one error protocol as the token endpoint's JSON.
@Suite struct IdentityErrorRenderingTests {
    let trace = TraceContext(traceID: "t-1", correlationID: "c-1", timestamp: Date(timeIntervalSince1970: 1_735_732_800), origin: "https://login.test")

    func render<E: HTTPResponseError>(_ error: E, in trace: E.Trace) throws -> (HTTPResponse, [String: Any]) {
        let response = error.response(in: trace)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (response, object)
    }

    @Test func anAADSTSErrorRendersTheTokenEndpointsJSON() throws {
        let (response, body) = try render(IdentityError.invalidGrant(), in: trace)
        #expect(response.status.code == 400)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.headers["x-ms-request-id"] == "t-1")
        #expect(body["error"] as? String == "invalid_grant")
        #expect(body["error_codes"] as? [Int] == [70000])
        #expect(body["error_uri"] as? String == "https://login.test/error?code=70000")
        #expect((body["error_description"] as? String)?.hasPrefix("AADSTS70000: ") == true)
        #expect((body["error_description"] as? String)?.contains("Trace ID: t-1") == true)
    }

    /// A JSON body joins the trace lines by single spaces, as every token-endpoint answer recorded since 2024;
    /// a redirect keeps CRLF, as every recorded one.
    @Test func theTraceLinesAreJoinedBySpacesInJSONAndByCRLFInARedirect() throws {
        let (_, body) = try render(IdentityError.invalidGrant(), in: trace)
        let description = try #require(body["error_description"] as? String)
        #expect(!description.contains("\r\n"))
        #expect(description.hasSuffix(" Trace ID: t-1 Correlation ID: \(trace.correlationID) Timestamp: \(trace.formattedTimestamp)"))
        let redirect = Dictionary(uniqueKeysWithValues: IdentityError.invalidGrant().redirectParameters(in: trace, state: nil))
        #expect(redirect["error_description"]?.contains("\r\nTrace ID: t-1\r\nCorrelation ID: ") == true)
    }

    @Test func anAADB2CErrorHasNoErrorURIAndNoTraceLine() throws {
        let (response, body) = try render(IdentityError.b2cForgotPassword(), in: trace)
        #expect(response.status.code == 400)
        #expect(body["error"] as? String == "access_denied")
        #expect(body["error_uri"] == nil)
        let description = try #require(body["error_description"] as? String)
        #expect(description.hasPrefix("AADB2C90118: The user has forgotten their password.\r\nCorrelation ID: c-1"))
        #expect(!description.contains("Trace ID"))
    }

    @Test func anInvalidClientIs401() throws {
        let (response, _) = try render(IdentityError.invalidClientSecret(clientID: "app"), in: trace)
        #expect(response.status.code == 401)
    }
}
