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

/// Every issuer form, built and read back by the one type that knows them.
@Suite struct IssuerTests {
    let tenant = "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"

    @Test func everyFormNamesItsTenant() {
        for issuer in [Issuer.v1(tenantID: tenant), Issuer.v2(origin: "https://127.0.0.1:8443", tenant: tenant),
                       Issuer.externalID(tenantID: tenant), Issuer.b2c(origin: "https://fabrikam.b2clogin.com", tenantID: tenant)] {
            #expect(Issuer.tenant(in: issuer) == tenant, "\(issuer)")
            let other = "0d0c0b0a-0000-4000-8000-000000000001"
            let forged = Issuer.replacingTenant(in: issuer, with: other)
            #expect(forged.flatMap(Issuer.tenant(in:)) == other, "\(issuer) → \(forged ?? "nil")")
        }
        #expect(Issuer.v1(tenantID: tenant) == "https://sts.windows.net/\(tenant)/")
        #expect(Issuer.externalID(tenantID: tenant) == "https://\(tenant).ciamlogin.com/\(tenant)/v2.0")
    }

    @Test func otherShapesNameNone() {
        for issuer in ["https://sts.windows.net/", "https://host/a/b/c", "https://host/\(tenant)/v1.0", "not a url", "https://host//v2.0"] {
            #expect(Issuer.tenant(in: issuer) == nil, "\(issuer)")
            #expect(Issuer.replacingTenant(in: issuer, with: "x") == nil, "\(issuer)")
        }
    }
}

/// The federated refusals the platform makes are in the catalogue (scenarios can name them, /error explains
/// them), and those the service answers without an error page link have none.
@Suite struct FederatedCatalogueTests {
    let trace = TraceContext(traceID: "t-1", correlationID: "c-1", timestamp: Date(timeIntervalSince1970: 1_735_732_800), origin: "https://login.test")

    @Test func everyFederatedRefusalIsCatalogued() {
        for code in [700211, 700212, 700213, 700024, 7000114, 70021, 90061, 50166, 900612, 7000272] {
            #expect(ErrorCatalogue.entry(code: code) != nil, "AADSTS\(code)")
        }
        #expect(ErrorCatalogue.entry(code: 70021)?.status == 401)
    }

    @Test func anUnreadableIssuersRefusalLinksNoErrorPage() throws {
        let keys = try #require(ErrorCatalogue.entry(code: 900612))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(keys.tokenEndpointResponse(in: trace).body)) as? [String: Any])
        #expect(body["error_uri"] == nil && body["error_codes"] as? [Int] == [900612])
        let subject = try #require(ErrorCatalogue.entry(code: 700213))
        let linked = try #require(try JSONSerialization.jsonObject(with: Data(subject.tokenEndpointResponse(in: trace).body)) as? [String: Any])
        #expect(linked["error_uri"] as? String == "https://login.test/error?code=700213")
    }

    /// Each rendering hands up what it states, for the receipt; none writes the receipt itself.
    @Test func everyRenderingStatesItsErrorWithTheResponse() throws {
        let json = IdentityError.invalidGrant().tokenEndpointResponse(in: trace)
        #expect(json.statedError == StatedError(code: "AADSTS70000", body: .init(error: "invalid_grant", errorCodes: [70000])))
        let page = SignInErrorPage(.invalidGrant()).response(in: trace)
        #expect(page.statedError == StatedError(code: "AADSTS70000"))
        let redirect = AuthorizeErrorRedirect(.invalidGrant(), redirectURI: "https://app.test/cb", mode: .query, state: "s").response(in: trace)
        #expect(redirect.statedError == StatedError(code: "AADSTS70000"))
        let uncoded = AuthorizeErrorRedirect(IdentityError(error: "access_denied", code: 0, message: "No."), redirectURI: "https://app.test/cb", mode: .query, state: "s").response(in: trace)
        #expect(uncoded.statedError == nil)
    }
}
