import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
@testable import Graph

@Suite("Bearer token validation")
struct TokenValidationTests {
    let fixture = GraphFixture()
    let challenge = #"Bearer realm="", authorization_uri="https://127.0.0.1:8443/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000""#

    func expectRejected(_ response: HTTPResponse, _ message: String, date: String = "2025-01-08T12:00:00", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status.code == 401, sourceLocation: sourceLocation)
        #expect(response.bodyText == expectedErrorBody(code: "InvalidAuthenticationToken", message: message, response: response, date: date), sourceLocation: sourceLocation)
        #expect(response.headers["WWW-Authenticate"] == challenge, sourceLocation: sourceLocation)
        #expect(response.headers["Content-Type"] == "application/json", sourceLocation: sourceLocation)
    }

    @Test func missingTokenIsEmpty() {
        expectRejected(fixture.get("/v1.0/me", token: nil), "Access token is empty.")
        expectRejected(fixture.get("/v1.0/me", token: "", headers: []), "Access token is empty.")
    }

    @Test func otherSchemeCountsAsNoToken() {
        let request = HTTPRequest(method: "GET", target: "/v1.0/me", headers: ["Host": "127.0.0.1:8443", "Authorization": "Basic YWRlbGU6cHc="])
        expectRejected(fixture.handler.handle(request)!, "Access token is empty.")
    }

    @Test func tokenWithoutDotsIsMalformed() {
        let response = fixture.get("/v1.0/me", token: "EwBwA8l6BAAUO9chh8cJscQLmU")
        expectRejected(response, TokenRejection.malformed.message)
        #expect(response.errorMessage?.hasPrefix("IDX14100: JWT is not well formed, there are no dots (.).\nThe token needs to be in JWS") == true)
    }

    @Test func garbageBetweenDotsIsMalformed() {
        expectRejected(fixture.get("/v1.0/me", token: "abc.def.ghi"), TokenRejection.malformed.message)
        expectRejected(fixture.get("/v1.0/me", token: "a.b"), TokenRejection.malformed.message)
    }

    @Test func foreignSignatureIsRejected() {
        expectRejected(fixture.get("/v1.0/me", token: fixture.token(credential: strangerCredential)), "Signature is invalid.")
    }

    @Test func tamperedPayloadIsRejected() {
        let parts = fixture.token().split(separator: ".").map(String.init)
        let forged = #"{"aud":"https://graph.microsoft.com","iss":"https://login.microsoftonline.com/\#(Demo.tenant)/","exp":1999999999,"tid":"\#(Demo.tenant)","oid":"\#(Demo.alex)","appid":"x","scp":"User.Read"}"#
        let token = [parts[0], Base64URL.encode(Array(forged.utf8)), parts[2]].joined(separator: ".")
        expectRejected(fixture.get("/v1.0/me", token: token), "Signature is invalid.")
    }

    @Test func unsignedTokenIsRejected() {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = fixture.token().split(separator: ".")[1]
        expectRejected(fixture.get("/v1.0/me", token: "\(header).\(payload)."), "Signature is invalid.")
    }

    @Test func keyRolloverInvalidatesOldTokens() throws {
        let old = fixture.token()
        fixture.service.keys.roll(to: strangerCredential)
        expectRejected(fixture.get("/v1.0/me", token: old), "Signature is invalid.")
        #expect(fixture.get("/v1.0/me", token: fixture.token(credential: strangerCredential)).status == .ok)
    }

    @Test func expiryFollowsTheVirtualClockWithFiveMinutesOfSkew() {
        let token = fixture.token(lifetime: 3600)
        #expect(fixture.get("/v1.0/me", token: token).status == .ok)
        fixture.clock.advance(by: 3600 + 299)
        #expect(fixture.get("/v1.0/me", token: token).status == .ok)
        fixture.clock.advance(by: 2)
        expectRejected(fixture.get("/v1.0/me", token: token), "Lifetime validation failed, the token is expired.", date: "2025-01-08T13:05:01")
    }

    @Test func notYetValidToken() {
        let token = fixture.token(issuedAt: Demo.now.addingTimeInterval(600))
        expectRejected(fixture.get("/v1.0/me", token: token), "Lifetime validation failed, the token is not yet valid.")
        fixture.clock.advance(by: 301)
        #expect(fixture.get("/v1.0/me", token: token).status == .ok)
    }

    @Test(arguments: ["api://my-api", "00000002-0000-0000-c000-000000000000", "https://graph.windows.net", Demo.client])
    func wrongAudienceIsRejected(audience: String) {
        expectRejected(fixture.get("/v1.0/me", token: fixture.token(audience: audience)), "Access token validation failure. Invalid audience.")
    }

    @Test(arguments: [Resource.graphAppID, "https://graph.microsoft.com", "https://graph.microsoft.com/"])
    func eitherGraphAudienceIsAccepted(audience: String) {
        #expect(fixture.get("/v1.0/me", token: fixture.token(audience: audience)).status == .ok)
    }

    @Test func issuerMustNameTheTokensKnownTenant() {
        let unknownTenant = "0e0e0e0e-0000-4000-8000-000000000000"
        expectRejected(fixture.get("/v1.0/me", token: fixture.token(tenant: unknownTenant)), "Access token validation failure. Invalid issuer.")
        let mismatched = fixture.token(issuer: "https://login.microsoftonline.com/\(Tenant.consumersTenantID)/")
        expectRejected(fixture.get("/v1.0/me", token: mismatched), "Access token validation failure. Invalid issuer.")
        expectRejected(fixture.get("/v1.0/me", token: fixture.token(issuer: "https://evil.example/")), "Access token validation failure. Invalid issuer.")
    }

    @Test func issuerFormsOfOursAreAccepted() {
        for issuer in ["https://127.0.0.1:8443/\(Demo.tenant)/", "https://login.microsoftonline.com/\(Demo.tenant)/v2.0", "https://sts.windows.net/\(Demo.tenant)/"] {
            #expect(fixture.get("/v1.0/me", token: fixture.token(issuer: issuer)).status == .ok, "issuer \(issuer)")
        }
    }

    @Test func validatorReadsTheClaims() throws {
        let token = fixture.token(scopes: "User.Read Mail.Read", capabilities: ["cp1"])
        let result = BearerTokenValidator.graph().validate(
            authorization: "bearer \(token)", keys: [platformCredential], directory: .embeddedDefault, now: Demo.now
        )
        let valid = try result.get()
        #expect(valid.kind == .delegated)
        #expect(valid.objectID == Demo.adele)
        #expect(valid.tenantID == Demo.tenant)
        #expect(valid.appID == Demo.client)
        #expect(valid.scopes == ["User.Read", "Mail.Read"])
        #expect(valid.isCAECapable)
        #expect(valid.expiresAt == Demo.now.addingTimeInterval(3600))
        let app = try BearerTokenValidator.graph().validate(
            authorization: "Bearer \(fixture.appToken(roles: ["User.Read.All"]))", keys: [platformCredential], directory: .embeddedDefault, now: Demo.now
        ).get()
        #expect(app.kind == .application)
        #expect(app.roles == ["User.Read.All"])
        #expect(!app.isCAECapable)
    }

    @Test func graphHostChallengePointsAtTheRealLoginHost() {
        let response = fixture.get("/v1.0/me", token: nil, host: "graph.microsoft.com")
        #expect(response.headers["WWW-Authenticate"] == challenge.replacingOccurrences(of: "127.0.0.1:8443", with: "login.microsoftonline.com"))
    }
}
