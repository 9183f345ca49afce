import IdentityFixtures
import EntraHTTP
import Foundation
import Testing
import ExchangeKernel
@testable import IdentityPlatform
import LocatedJSON

/// What an active scenario changes in the token endpoint's answers.
@Suite struct ScenarioDirectiveTests {
    typealias F = TokenFixtures

    func signedIn(_ service: IdentityService) throws -> String {
        F.issueCode(service, scopes: ["openid", "offline_access", "User.Read", "Mail.Read"])
        let body = F.json(F.send(F.post(F.tokenPath, F.redeemForm(scope: "openid offline_access User.Read Mail.Read")), to: service))
        return try #require(body["refresh_token"] as? String)
    }

    func refresh(_ token: String, _ service: IdentityService, under directives: ScenarioDirectives = .init()) -> HTTPResponse {
        F.send(F.post(F.tokenPath, [("grant_type", "refresh_token"), ("client_id", F.nativeAppID), ("refresh_token", token), ("scope", "openid offline_access User.Read Mail.Read")]),
               to: service, directives: directives)
    }

    @Test func declinedScopesLeaveResponseAndToken() throws {
        let (service, _) = F.service()
        let token = try signedIn(service)
        var directives = ScenarioDirectives()
        directives.declinedScopes = ["https://graph.microsoft.com/Mail.Read"]
        let response = refresh(token, service, under: directives)
        let body = F.json(response)
        #expect(body["scope"] as? String == "User.Read openid")
        #expect(F.claims(body["access_token"] as? String)?["scp"] as? String == "User.Read")
    }

    @Test func withdrawnConsentAndRequiredMFA() throws {
        let (service, _) = F.service()
        let token = try signedIn(service)
        var consent = ScenarioDirectives()
        consent.consentRequiredScopes = ["Mail.Read"]
        #expect(F.errorCode(refresh(token, service, under: consent)) == 65001)
        var mfa = ScenarioDirectives()
        mfa.requireMFA = true
        #expect(F.errorCode(refresh(token, service, under: mfa)) == 50076)
        #expect(refresh(token, service).status.code == 200)
    }

    @Test func absurdLifetimesDoNotTrap() throws {
        let (service, _) = F.service()
        let token = try signedIn(service)
        var directives = ScenarioDirectives()
        directives.accessTokenLifetime = 1e300
        let response = refresh(token, service, under: directives)
        #expect(response.status.code == 200)
        #expect(F.json(response)["expires_in"] as? Int == Int.max)
    }

    @Test func lifetimesAndClaimOverrides() throws {
        let (service, clock) = F.service()
        let token = try signedIn(service)
        var directives = ScenarioDirectives()
        directives.accessTokenLifetime = 120
        directives.idTokenLifetime = 60
        directives.refreshTokenLifetime = 300
        directives.accessTokenClaims = ["xms_cc": .strings(["cp1"]), "scp": .string("Overridden")]
        directives.idTokenClaims = ["acct": .int(1)]
        let body = F.json(refresh(token, service, under: directives))
        let now = Int(clock.now().timeIntervalSince1970)
        #expect(body["expires_in"] as? Int == 120)
        let access = try #require(F.claims(body["access_token"] as? String))
        #expect(access["exp"] as? Int == now + 120 && access["scp"] as? String == "Overridden" && access["xms_cc"] as? [String] == ["cp1"])
        let id = try #require(F.claims(body["id_token"] as? String))
        #expect(id["exp"] as? Int == now + 60 && id["acct"] as? Int == 1)
        let short = try #require(body["refresh_token"] as? String)
        clock.advance(by: 301)
        #expect(F.errorCode(refresh(short, service)) == 700082)
    }
}

/// The `claims` parameter on silent grants: client capabilities and MFA challenges.
@Suite struct TokenClaimsParameterTests {
    typealias F = TokenFixtures

    @Test func capabilitiesBecomeXmsCcAndMFAChallengesNeedInteraction() throws {
        let (service, _) = F.service()
        F.issueCode(service)
        let token = try #require(F.json(F.send(F.post(F.tokenPath, F.redeemForm()), to: service))["refresh_token"] as? String)
        func refresh(claims: String) -> HTTPResponse {
            F.send(F.post(F.tokenPath, [("grant_type", "refresh_token"), ("client_id", F.nativeAppID), ("refresh_token", token), ("scope", "openid offline_access User.Read"), ("claims", claims)]), to: service)
        }
        let capable = F.json(refresh(claims: #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#))
        #expect(F.claims(capable["access_token"] as? String)?["xms_cc"] as? [String] == ["cp1"])
        #expect(F.claims(capable["id_token"] as? String)?["xms_cc"] == nil)
        #expect(F.errorCode(refresh(claims: #"{"access_token":{"amr":{"values":["mfa"]}}}"#)) == 50076)
        #expect(F.json(refresh(claims: "not json"))["error"] as? String == "invalid_request")
    }
}
