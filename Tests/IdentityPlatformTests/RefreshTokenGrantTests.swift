import IdentityFixtures
import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
@testable import IdentityPlatform

@Suite struct RefreshTokenGrantTests {
    typealias F = TokenFixtures

    /// Signs in through a code and returns the refresh token.
    func signIn(_ service: IdentityService, clientID: String = F.nativeAppID, redirectURI: String = "msauth.com.contoso.mobile://auth", methods: [String] = ["pwd"]) throws -> String {
        F.issueCode(service, code: "code-\(clientID)", clientID: clientID, redirectURI: redirectURI, methods: methods)
        let body = F.json(F.send(F.post(F.tokenPath, F.redeemForm(code: "code-\(clientID)", clientID: clientID, redirectURI: redirectURI)), to: service))
        return try #require(body["refresh_token"] as? String)
    }

    func refresh(_ token: String, clientID: String = F.nativeAppID, scope: String = "openid profile offline_access https://graph.microsoft.com/User.Read", path: String = F.tokenPath, service: IdentityService) -> HTTPResponse {
        F.send(F.post(path, [("grant_type", "refresh_token"), ("client_id", clientID), ("refresh_token", token), ("scope", scope), ("client_info", "1")]), to: service)
    }

    @Test func refreshRotatesAndEarlierTokensStayValid() throws {
        let (service, clock) = F.service()
        let first = try signIn(service)
        clock.advance(by: 3600)
        let response = refresh(first, service: service)
        #expect(response.status.code == 200)
        let body = F.json(response)
        let second = try #require(body["refresh_token"] as? String)
        #expect(second != first)
        #expect(body["client_info"] != nil && body["id_token"] != nil)
        let id = try #require(F.claims(body["id_token"] as? String))
        #expect(id["nonce"] == nil, "a refreshed id_token carries no nonce")
        #expect(F.claims(body["access_token"] as? String)?["iat"] as? Int == Int(clock.now().timeIntervalSince1970))
        #expect(refresh(first, service: service).status.code == 200)
        #expect(refresh(second, service: service).status.code == 200)
    }

    @Test func inactivityExpiry() throws {
        let (service, clock) = F.service()
        let token = try signIn(service)
        clock.advance(by: 90 * 86400 + 1)
        let response = refresh(token, service: service)
        #expect(F.errorCode(response) == 700082)
        #expect((F.json(response)["error_description"] as? String)?.contains("was inactive for 90.00:00:01") == true)
        #expect(F.errorCode(refresh("garbage", service: service)) == 70000)
    }

    @Test func passwordChangeRevokesGrants() throws {
        let (service, clock) = F.service()
        let token = try signIn(service)
        clock.advance(by: 60)
        service.directory.withLock { d in d.users[d.users.firstIndex { $0.id == F.adele }!].tokensValidFrom = clock.now() }
        #expect(F.errorCode(refresh(token, service: service)) == 50173)
    }

    @Test func disabledUserAndMFAPolicy() throws {
        let (service, _) = F.service()
        let token = try signIn(service)
        service.directory.withLock { d in d.users[d.users.firstIndex { $0.id == F.adele }!].mfaRequired = true }
        let mfa = refresh(token, service: service)
        #expect(F.errorCode(mfa) == 50076 && F.json(mfa)["suberror"] as? String == "basic_action")
        let strong = try signIn(service, clientID: F.familyAppA, redirectURI: "http://localhost/x", methods: ["pwd", "mfa"])
        #expect(refresh(strong, clientID: F.familyAppA, service: service).status.code == 200)
        service.directory.withLock { d in d.users[d.users.firstIndex { $0.id == F.adele }!].accountEnabled = false }
        #expect(F.errorCode(refresh(strong, clientID: F.familyAppA, service: service)) == 50057)
    }

    @Test func scopesMayChangeWithinConsent() throws {
        let (service, _) = F.service()
        let token = try signIn(service)
        let more = refresh(token, scope: "openid offline_access https://graph.microsoft.com/Mail.Read", service: service)
        #expect(F.errorCode(more) == 65001 && F.json(more)["suberror"] as? String == "consent_required")
        let admin = refresh(token, scope: "openid offline_access https://graph.microsoft.com/User.Read.All", service: service)
        #expect(F.errorCode(admin) == 90094)
        service.directory.withLock { d in
            d.grantConsent(ConsentGrant(clientID: F.nativeAppID, resourceAppID: Resource.graphAppID, userID: F.adele, tenantID: F.contoso, scopes: ["Mail.Read"]))
        }
        let granted = refresh(token, scope: "openid offline_access https://graph.microsoft.com/Mail.Read", service: service)
        #expect(F.claims(F.json(granted)["access_token"] as? String)?["scp"] as? String == "Mail.Read")
    }

    @Test func familyRefreshTokensServeTheFamily() throws {
        let (service, _) = F.service()
        let family = try signIn(service, clientID: F.familyAppA, redirectURI: "http://localhost/x")
        let first = F.json(F.send(F.post(F.tokenPath, [("grant_type", "refresh_token"), ("client_id", F.familyAppA), ("refresh_token", family), ("scope", "openid offline_access User.Read")]), to: service))
        #expect(first["foci"] as? String == "1")
        // The family sibling has no consent of its own: the family token serves it with the family's grant.
        let sibling = refresh(family, clientID: F.familyAppB, scope: "openid offline_access User.Read", service: service)
        #expect(sibling.status.code == 200)
        #expect(F.claims(F.json(sibling)["access_token"] as? String)?["appid"] as? String == F.familyAppB)
        let stranger = refresh(family, clientID: F.nativeAppID, service: service)
        #expect(F.json(stranger)["suberror"] as? String == "client_mismatch")
        let native = try signIn(service)
        #expect(F.json(refresh(native, clientID: F.familyAppA, service: service))["suberror"] as? String == "client_mismatch")
    }

    @Test func v1EndpointTakesResource() throws {
        let (service, _) = F.service()
        let token = try signIn(service)
        let response = F.send(F.post("/\(F.contoso)/oauth2/token", [("grant_type", "refresh_token"), ("client_id", F.nativeAppID), ("refresh_token", token), ("resource", "https://graph.microsoft.com")]), to: service)
        #expect(response.status.code == 200)
        let body = F.json(response)
        #expect(body["expires_in"] as? String == "3599" && body["resource"] as? String == "https://graph.microsoft.com")
        let access = try #require(F.claims(body["access_token"] as? String))
        #expect(access["aud"] as? String == "https://graph.microsoft.com" && access["scp"] as? String == "User.Read")
        let id = try #require(F.claims(body["id_token"] as? String))
        #expect(id["ver"] as? String == "1.0" && id["iss"] as? String == "https://sts.windows.net/\(F.contoso)/" && id["upn"] as? String == "adele.vance@contoso.onmicrosoft.com")
    }

    @Test func userOfAnotherTenantIsRefusedAtATenantAuthority() throws {
        let (service, _) = F.service()
        let token = try signIn(service)
        #expect(F.errorCode(refresh(token, path: "/consumers/oauth2/v2.0/token", service: service)) == 50020)
        #expect(refresh(token, path: "/organizations/oauth2/v2.0/token", service: service).status.code == 200)
    }
}

@Suite struct V1FallbackTests {
    typealias F = TokenFixtures

    @Test func v1RefreshWithoutResourceKeepsTheResourceAsNamed() throws {
        let (service, _) = F.service()
        F.issueCode(service, scopes: ["openid", "https://graph.microsoft.com/.default"])
        let redeem = F.send(F.post("/\(F.contoso)/oauth2/token", [("grant_type", "authorization_code"), ("client_id", F.nativeAppID), ("code", "test-code"),
                                                                  ("code_verifier", "verifier-0123456789-0123456789-0123456789-abcdefgh"), ("redirect_uri", "msauth.com.contoso.mobile://auth"),
                                                                  ("resource", "https://graph.microsoft.com")]), to: service)
        let token = try #require(F.json(redeem)["refresh_token"] as? String)
        let refreshed = F.json(F.send(F.post("/\(F.contoso)/oauth2/token", [("grant_type", "refresh_token"), ("client_id", F.nativeAppID), ("refresh_token", token)]), to: service))
        #expect(F.claims(refreshed["access_token"] as? String)?["aud"] as? String == "https://graph.microsoft.com")
        #expect(refreshed["refresh_token"] != nil && refreshed["id_token"] != nil)
    }
}
