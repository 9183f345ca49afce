import IdentityFixtures
import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
@testable import IdentityPlatform

@Suite struct AuthorizationCodeGrantTests {
    typealias F = TokenFixtures

    @Test func redeemsACodeIntoTheTokensMSALExpects() throws {
        let (service, clock) = F.service()
        F.issueCode(service)
        let response = F.send(F.post(F.tokenPath, F.redeemForm(), headers: ["client-request-id": "corr-1", "return-client-request-id": "true"]), to: service)
        #expect(response.status.code == 200)
        #expect(response.headers["Cache-Control"] == "no-store, no-cache" && response.headers["Pragma"] == "no-cache")
        #expect(response.headers["client-request-id"] == "corr-1")
        #expect(response.headers["x-ms-srs"] == "1.P")
        let body = F.json(response)
        #expect(body["token_type"] as? String == "Bearer")
        #expect(body["scope"] as? String == "https://graph.microsoft.com/User.Read openid profile")
        #expect(body["expires_in"] as? Int == 3599 && body["ext_expires_in"] as? Int == 7199)
        #expect((body["refresh_token"] as? String)?.isEmpty == false)
        #expect(body["foci"] == nil)
        let clientInfo = try #require(Base64URL.decode(body["client_info"] as? String ?? ""))
        #expect(String(decoding: clientInfo, as: UTF8.self) == #"{"uid":"\#(F.adele)","utid":"\#(F.contoso)"}"#)

        let now = Int(clock.now().timeIntervalSince1970)
        let id = try #require(F.claims(body["id_token"] as? String))
        #expect(id["aud"] as? String == F.nativeAppID)
        #expect(id["iss"] as? String == "\(F.origin)/\(F.contoso)/v2.0")
        #expect(id["iat"] as? Int == now && id["nbf"] as? Int == now && id["exp"] as? Int == now + 3600)
        #expect(id["nonce"] as? String == "nonce-123")
        #expect(id["ver"] as? String == "2.0")
        #expect(id["oid"] as? String == F.adele && id["tid"] as? String == F.contoso)
        #expect(id["preferred_username"] as? String == "adele.vance@contoso.onmicrosoft.com")
        #expect(id["name"] as? String == "Adele Vance" && id["given_name"] as? String == "Adele" && id["family_name"] as? String == "Vance")
        #expect(id["email"] == nil, "no email scope asked")
        #expect(id["auth_time"] as? Int == now - 30)
        #expect(id["sid"] as? String == "session-1")
        #expect(id["xms_cc"] == nil)
        #expect((id["sub"] as? String)?.count == 43)
        #expect(id["login_hint"] as? String == TokenIdentifiers.loginHint(objectID: F.adele, tenantID: F.contoso))

        let access = try #require(F.claims(body["access_token"] as? String))
        #expect(access["aud"] as? String == Resource.graphAppID)
        #expect(access["iss"] as? String == "https://sts.windows.net/\(F.contoso)/")
        #expect(access["ver"] as? String == "1.0")
        #expect(access["scp"] as? String == "User.Read")
        #expect(access["appid"] as? String == F.nativeAppID && access["appidacr"] as? String == "0")
        #expect(access["upn"] as? String == "adele.vance@contoso.onmicrosoft.com" && access["idtyp"] as? String == "user")
        #expect(access["exp"] as? Int == now + 3599)
        #expect(access["uti"] as? String != id["uti"] as? String)
    }

    @Test func subjectIsPairwiseAndStable() throws {
        let (service, _) = F.service()
        F.issueCode(service, code: "a")
        F.issueCode(service, code: "b")
        F.issueCode(service, code: "c", clientID: F.familyAppA, redirectURI: "http://localhost/cb")
        func sub(_ form: [(String, String)]) throws -> String? {
            try #require(F.claims(F.json(F.send(F.post(F.tokenPath, form), to: service))["id_token"] as? String))["sub"] as? String
        }
        let first = try sub(F.redeemForm(code: "a")), second = try sub(F.redeemForm(code: "b"))
        let other = try sub(F.redeemForm(code: "c", clientID: F.familyAppA, redirectURI: "http://localhost/cb"))
        #expect(first == second && first != other && first != nil)
    }

    @Test func emailScopeAndNoOpenIDMeansNoIDToken() throws {
        let (service, _) = F.service()
        F.issueCode(service, code: "e", scopes: ["openid", "email", "User.Read"])
        var body = F.json(F.send(F.post(F.tokenPath, F.redeemForm(code: "e", scope: "openid email User.Read")), to: service))
        #expect(try #require(F.claims(body["id_token"] as? String))["email"] as? String == "adele.vance@contoso.onmicrosoft.com")
        #expect(body["refresh_token"] == nil, "no offline_access")
        #expect(body["scope"] as? String == "User.Read openid email")
        F.issueCode(service, code: "o", scopes: ["openid", "profile", "offline_access"])
        body = F.json(F.send(F.post(F.tokenPath, F.redeemForm(code: "o", scope: "openid profile")), to: service))
        let userInfoToken = try #require(F.claims(body["access_token"] as? String))
        #expect(userInfoToken["aud"] as? String == Resource.graphAppID && userInfoToken["scp"] as? String == "openid profile")
        #expect(body["scope"] as? String == "openid profile")
        F.issueCode(service, code: "n", scopes: ["User.Read"])
        body = F.json(F.send(F.post(F.tokenPath, F.redeemForm(code: "n", scope: "User.Read")), to: service))
        #expect(body["id_token"] == nil && body["access_token"] != nil)
    }

    @Test func codesAreSingleUse() {
        let (service, _) = F.service()
        F.issueCode(service)
        #expect(F.send(F.post(F.tokenPath, F.redeemForm()), to: service).status.code == 200)
        let again = F.send(F.post(F.tokenPath, F.redeemForm()), to: service)
        #expect(again.status.code == 400 && F.errorCode(again) == 54005)
        #expect(F.json(again)["error"] as? String == "invalid_grant")
    }

    @Test func codesExpireAfterTenMinutes() {
        let (service, clock) = F.service()
        F.issueCode(service)
        clock.advance(by: 601)
        #expect(F.errorCode(F.send(F.post(F.tokenPath, F.redeemForm()), to: service)) == 70008)
    }

    @Test func pkceVerifierMustMatch() {
        let (service, _) = F.service()
        F.issueCode(service)
        #expect(F.errorCode(F.send(F.post(F.tokenPath, F.redeemForm(verifier: "another-verifier-0123456789-0123456789-0123")), to: service)) == 501481)
        F.issueCode(service, code: "plain", method: "plain")
        #expect(F.send(F.post(F.tokenPath, F.redeemForm(code: "plain")), to: service).status.code == 200)
        F.issueCode(service, code: "noverifier")
        let missing = F.redeemForm(code: "noverifier").filter { $0.0 != "code_verifier" }
        #expect(F.errorCode(F.send(F.post(F.tokenPath, missing), to: service)) == 900144)
    }

    @Test func redirectURIAndClientMustMatchTheCode() {
        let (service, _) = F.service()
        F.issueCode(service)
        #expect(F.errorCode(F.send(F.post(F.tokenPath, F.redeemForm(redirectURI: "http://localhost/callback")), to: service)) == 50011)
        #expect(F.errorCode(F.send(F.post(F.tokenPath, F.redeemForm(clientID: F.familyAppA)), to: service)) == 70000)
        #expect(F.errorCode(F.send(F.post(F.tokenPath, F.redeemForm(code: "never-issued")), to: service)) == 70000)
        // The failures above did not burn the code.
        #expect(F.send(F.post(F.tokenPath, F.redeemForm()), to: service).status.code == 200)
    }

    @Test func confidentialClientMustAuthenticate() {
        let (service, _) = F.service()
        F.issueCode(service, clientID: F.webAppID, redirectURI: "https://app.example/callback")
        let form = F.redeemForm(clientID: F.webAppID, redirectURI: "https://app.example/callback")
        let denied = F.send(F.post(F.tokenPath, form), to: service)
        #expect(denied.status.code == 401 && F.errorCode(denied) == 7000218)
        let ok = F.send(F.post(F.tokenPath, form + [("client_secret", F.webSecret)]), to: service)
        #expect(ok.status.code == 200)
        #expect(F.claims(F.json(ok)["access_token"] as? String)?["appidacr"] as? String == "1")
    }

    /// The service echoes a client's correlation id even when told not to (MSAL for Go, recorded 2025).
    @Test func theClientRequestIDIsEchoedWhateverReturnClientRequestIDSays() {
        let (service, _) = F.service()
        let refused = F.send(F.post(F.tokenPath, [("client_id", F.nativeAppID)], headers: ["client-request-id": "corr-2", "return-client-request-id": "false"]), to: service)
        #expect(refused.headers["client-request-id"] == "corr-2")
        #expect(F.send(F.post(F.tokenPath, [("client_id", F.nativeAppID)]), to: service).headers["client-request-id"] == nil)
    }

    @Test func requestErrors() {
        let (service, _) = F.service()
        let missing = F.send(F.post(F.tokenPath, [("client_id", F.nativeAppID)]), to: service)
        #expect(F.errorCode(missing) == 900144)
        let description = F.json(missing)["error_description"] as? String ?? ""
        #expect(description.hasPrefix("AADSTS900144: The request body must contain the following parameter: 'grant_type'. Trace ID: "))
        let unknown = F.send(F.post(F.tokenPath, [("grant_type", "magic"), ("client_id", "x")]), to: service)
        #expect(F.json(unknown)["error"] as? String == "unsupported_grant_type")
        #expect(F.errorCode(F.send(F.get(F.tokenPath), to: service)) == 900561)
        let tenant = F.send(F.post("/nowhere.example/oauth2/v2.0/token", F.redeemForm()), to: service)
        #expect(tenant.status.code == 400 && F.errorCode(tenant) == 90002)
    }
}

@Suite struct TokenEndpointCORSTests {
    @Test func preflightAndAnyOrigin() {
        let (service, _) = TokenFixtures.service()
        let preflight = TokenFixtures.send(HTTPRequest(method: "OPTIONS", target: TokenFixtures.tokenPath, headers: ["Host": "login.fake.test", "Origin": "http://localhost:3000", "Access-Control-Request-Headers": "content-type,client-request-id"]), to: service)
        #expect(preflight.status.code == 200)
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "*")
        #expect(preflight.headers["Access-Control-Allow-Headers"] == "content-type,client-request-id")
        let post = TokenFixtures.send(TokenFixtures.post(TokenFixtures.tokenPath, [("grant_type", "refresh_token")], headers: ["Origin": "http://localhost:3000"]), to: service)
        // As recorded on a 2024 answer of the v2.0 token endpoint (supabase/auth issue 1387).
        #expect(post.status.code == 400 && post.headers["Access-Control-Allow-Origin"] == "*")
        #expect(post.headers["Access-Control-Allow-Methods"] == "POST, OPTIONS")
        #expect(post.headers["Access-Control-Expose-Headers"] == "Content-Length,Content-Encoding,x-ms-request-id")
    }
}
