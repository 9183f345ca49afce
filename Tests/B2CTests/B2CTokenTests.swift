import EntraCrypto
import EntraHTTP
import Foundation
import Testing
@testable import B2C
import ExchangeKernel
import IdentityPlatform
import LocatedJSON

@Suite struct B2CTokenTests {
    static let susi = "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi"
    static let edit = "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_edit_profile"
    static let issuer = "https://login.fakeentra.test:8443/\(B2CFixtures.tenantID)/v2.0/"
    static let benID = "3f2a9c1e-8b7d-4e6a-a5c4-1d2e3f4a5b6c"

    @Test func idTokenHasB2CClaims() throws {
        let browser = B2CBrowser()
        let tokens = try browser.signInAndRedeem(authority: "/fabrikamb2c.onmicrosoft.com/b2c_1_SUSI")
        let id = try tokens.idToken
        #expect(id["ver"] as? String == "1.0")
        #expect(id["iss"] as? String == Self.issuer)
        #expect(id["aud"] as? String == B2CFixtures.clientID)
        #expect(id["sub"] as? String == Self.benID)
        #expect(id["oid"] as? String == Self.benID)
        #expect(id["tfp"] as? String == "B2C_1_susi")
        #expect(id["emails"] as? [String] == ["ben@fabrikam.test"])
        #expect(id["name"] as? String == "Ben Smith")
        #expect(id["given_name"] as? String == "Ben")
        #expect(id["family_name"] as? String == "Smith")
        #expect(id["nonce"] as? String == "n0nce")
        #expect(id["idp"] == nil, "local accounts carry no idp")
        #expect(id["newUser"] == nil)
        let now = Int(B2CFixtures.start.timeIntervalSince1970)
        #expect(id["iat"] as? Int == now)
        #expect(id["nbf"] as? Int == now)
        #expect(id["auth_time"] as? Int == now)
        #expect(id["exp"] as? Int == now + 3600)
    }

    @Test func accessTokenIsForTheAPIWithItsScopes() throws {
        let browser = B2CBrowser()
        let tokens = try browser.signInAndRedeem()
        let access = try tokens.accessToken
        #expect(access["aud"] as? String == B2CConfiguration.sampleAPIAppID)
        #expect(access["scp"] as? String == "demo.read")
        #expect(access["azp"] as? String == B2CFixtures.clientID)
        #expect(access["tfp"] as? String == "B2C_1_susi")
        #expect(access["ver"] as? String == "1.0")
        #expect(access["iss"] as? String == Self.issuer)
        #expect(access["sub"] as? String == Self.benID)
        #expect(tokens["token_type"] == "Bearer")
        #expect(tokens["resource"] == B2CConfiguration.sampleAPIAppID)
        #expect(tokens.number("expires_in") == 3599)
        #expect(tokens.number("refresh_token_expires_in") == 1209600)
        #expect(tokens["scope"] == "\(B2CFixtures.apiScope) openid profile offline_access")
        #expect(B2CGrantToken.isWellFormed(try #require(tokens["refresh_token"])))
    }

    @Test func clientInfoNamesTheAccountPerPolicy() throws {
        let browser = B2CBrowser()
        let tokens = try browser.signInAndRedeem(authority: "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_SUSI")
        let clientInfo = try tokens.clientInfo
        #expect(clientInfo == ["uid": "\(Self.benID)-b2c_1_susi", "utid": B2CFixtures.tenantID])
        let profileText = try #require(tokens["profile_info"])
        let profile = try #require(Base64URL.decode(profileText))
        #expect(String(decoding: profile, as: UTF8.self).contains("\"idp\":\"LocalAccount\""))
    }

    @Test func socialAccountsCarryTheirIdentityProvider() throws {
        var configuration = B2CConfiguration.embeddedDefault
        configuration.localAccounts.append(.init(objectId: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", email: "fb@fabrikam.test", password: "Passw0rd!", displayName: "Fay", identityProvider: "facebook.com"))
        let browser = B2CBrowser(configuration: configuration)
        let page = browser.get(browser.authorizeURL())
        let code = try #require(browser.code(from: browser.signIn(page, email: "fb@fabrikam.test")))
        #expect(try TokenResponse(browser.redeem(code)).idToken["idp"] as? String == "facebook.com")
    }

    @Test func policyClaimsLimitWhatTokensSay() throws {
        var configuration = B2CConfiguration.embeddedDefault
        configuration.policies[0].claims = ["emails"]
        let browser = B2CBrowser(configuration: configuration)
        let id = try browser.signInAndRedeem().idToken
        #expect(id["emails"] as? [String] == ["ben@fabrikam.test"])
        #expect(id["name"] == nil)
        #expect(id["oid"] == nil)
        #expect(id["sub"] as? String == Self.benID)
    }

    @Test func clientIDScopeGivesATokenForTheAppItself() throws {
        let browser = B2CBrowser()
        let page = browser.get(browser.authorizeURL(scope: "\(B2CFixtures.clientID) offline_access"))
        let code = try #require(browser.code(from: browser.signIn(page)))
        let response = browser.post(Self.susi + "/oauth2/v2.0/token", [
            ("client_id", B2CFixtures.clientID), ("grant_type", "authorization_code"), ("code", code),
            ("code_verifier", B2CFixtures.verifier),
        ])
        let tokens = try TokenResponse(response)
        #expect(try tokens.accessToken["aud"] as? String == B2CFixtures.clientID)
        #expect(try tokens.accessToken["scp"] == nil)
        #expect(tokens["id_token"] == nil)
        #expect(tokens["client_info"] == nil)
    }

    @Test func unknownAPIsAreStoodInForUnlessStrict() throws {
        let browser = B2CBrowser()
        let scope = "https://fabrikamb2c.onmicrosoft.com/tasks/tasks.read openid offline_access"
        let page = browser.get(browser.authorizeURL(scope: scope))
        let code = try #require(browser.code(from: browser.signIn(page)))
        let tokens = try TokenResponse(browser.redeem(code, scope: scope))
        #expect(try tokens.accessToken["aud"] as? String == TokenIdentifiers.guid(from: "b2c-api|https://fabrikamb2c.onmicrosoft.com/tasks"))
        #expect(try tokens.accessToken["scp"] as? String == "tasks.read")

        let strict = B2CBrowser(options: { var o = IdentityOptions(); o.strict = true; return o }())
        let refused = strict.get(strict.authorizeURL(scope: scope))
        #expect(try #require(B2CBrowser.redirectParameters(refused))["error_description"]?.hasPrefix("AADB2C90117") == true)
        let unknownScope = strict.get(strict.authorizeURL(scope: "https://fabrikamb2c.onmicrosoft.com/helloapi/demo.delete openid"))
        #expect(try #require(B2CBrowser.redirectParameters(unknownScope))["error_description"]?.hasPrefix("AADB2C90117") == true)
    }

    @Test func pkceMismatchIsAADB2C90182() throws {
        let browser = B2CBrowser()
        let code = try #require(browser.code(from: browser.signIn(browser.get(browser.authorizeURL()))))
        let response = browser.redeem(code, verifier: String(repeating: "x", count: 43))
        #expect(response.status.code == 400)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(json["error"] as? String == "invalid_grant")
        let description = try #require(json["error_description"] as? String)
        #expect(description.hasPrefix("AADB2C90182: The supplied code_verifier does not match associated code_challenge.\r\nCorrelation ID: "))
        // The code was not spent by the failed attempt.
        #expect(browser.redeem(code).status.code == 200)
    }

    @Test func codesAreSingleUseShortLivedAndWellFormed() throws {
        let browser = B2CBrowser()
        let code = try #require(browser.code(from: browser.signIn(browser.get(browser.authorizeURL()))))
        #expect(browser.redeem(code).status.code == 200)
        #expect(browser.redeem(code).bodyText.contains("AADB2C90129"))
        #expect(browser.redeem("not-a-jwe").bodyText.contains("AADB2C90090: The provided JWE is not a valid 5 segment token."))
        #expect(browser.redeem(B2CGrantToken.make()).bodyText.contains("AADB2C90090"))

        let late = try #require(browser.code(from: browser.get(browser.authorizeURL())))
        browser.clock.advance(by: 601)
        let expired = browser.redeem(late)
        #expect(expired.bodyText.contains("AADB2C90080: The provided grant has expired."))
    }

    @Test func codeOfAnotherPolicyIsAADB2C90088() throws {
        let browser = B2CBrowser()
        let code = try #require(browser.code(from: browser.signIn(browser.get(browser.authorizeURL()))))
        let response = browser.redeem(code, authority: Self.edit)
        #expect(response.bodyText.contains("AADB2C90088: The provided grant has not been issued for this endpoint. Actual Value : B2C_1_susi and Expected Value : B2C_1_edit_profile"))
    }

    @Test func refreshTokensAreBoundToTheirPolicy() throws {
        let browser = B2CBrowser()
        let tokens = try browser.signInAndRedeem()
        let refreshToken = try #require(tokens["refresh_token"])
        let elsewhere = browser.refresh(refreshToken, authority: Self.edit)
        #expect(elsewhere.status.code == 400)
        #expect(elsewhere.bodyText.contains("\"error\":\"invalid_grant\""))
        #expect(elsewhere.bodyText.contains("AADB2C90088"))
        // Any spelling of the same policy is the same endpoint.
        let refreshed = try TokenResponse(browser.refresh(refreshToken, authority: "/fabrikamb2c.onmicrosoft.com/b2c_1_susi"))
        #expect(try refreshed.idToken["tfp"] as? String == "B2C_1_susi")
        let clientInfo = try refreshed.clientInfo
        #expect(clientInfo["uid"] == "\(Self.benID)-b2c_1_susi")
    }

    @Test func refreshTokenExpiresAfterItsSlidingWindow() throws {
        let browser = B2CBrowser()
        let refreshToken = try #require(try browser.signInAndRedeem()["refresh_token"])
        browser.clock.advance(by: 14 * 86400 + 1)
        let response = browser.refresh(refreshToken)
        #expect(response.bodyText.contains("AADB2C90080"))
    }

    /// B2C redeems through the same state operation as Entra: a token dropped because the store was full
    /// is expired (AADB2C90080), not unknown (AADB2C90090).
    @Test func aRefreshTokenEvictedFromAFullStoreIsExpired() throws {
        var limits = StateLimits()
        limits.refreshTokens = 1
        let browser = B2CBrowser(limits: limits)
        let first = try #require(try browser.signInAndRedeem()["refresh_token"])
        browser.clock.advance(by: 1)
        let second = try #require(try B2CBrowser(sharing: browser).signInAndRedeem()["refresh_token"])
        let evicted = browser.refresh(first)
        #expect(evicted.status.code == 400 && evicted.bodyText.contains("AADB2C90080"), "\(evicted.bodyText)")
        #expect(browser.refresh("never-issued").bodyText.contains("AADB2C90") && !browser.refresh(second).bodyText.contains("error"))
    }

    @Test func refreshForADeletedAccountIsAADB2C90128() throws {
        let browser = B2CBrowser()
        let refreshToken = try #require(try browser.signInAndRedeem()["refresh_token"])
        browser.service.directory.withLock { $0.users.removeAll { $0.id == Self.benID } }
        #expect(browser.refresh(refreshToken).bodyText.contains("AADB2C90128"))
    }

    @Test func confidentialClientsMustSendTheirSecret() throws {
        var configuration = B2CConfiguration.embeddedDefault
        configuration.applications.append(.init(clientId: "web-app", displayName: "Web", redirectUris: ["https://app.example/cb"], secret: "s3cret"))
        let browser = B2CBrowser(configuration: configuration)
        let target = Self.susi + "/oauth2/v2.0/authorize?" + FormParameters([
            ("client_id", "web-app"), ("response_type", "code"), ("redirect_uri", "https://app.example/cb"), ("scope", "openid offline_access"),
        ]).encoded
        let location = browser.signIn(browser.get(target)).headers["Location"] ?? ""
        let code = try #require(FormParameters(decoding: String(location.split(separator: "?").last ?? "")).pairs.first { $0.name == "code" }?.value)
        let base = [("client_id", "web-app"), ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "https://app.example/cb")]
        #expect(browser.post(Self.susi + "/oauth2/v2.0/token", base).bodyText.contains("AADB2C90079"))
        #expect(browser.post(Self.susi + "/oauth2/v2.0/token", base + [("client_secret", "wrong")]).bodyText.contains("AADB2C90081"))
        let tokens = try TokenResponse(browser.post(Self.susi + "/oauth2/v2.0/token", base + [("client_secret", "s3cret")]))
        #expect(tokens["access_token"] == nil, "only OIDC scopes: no access token, as B2C does")
        #expect(try tokens.idToken["aud"] as? String == "web-app")
    }

    @Test func grantTypeAndParametersAreChecked() {
        let browser = B2CBrowser()
        #expect(browser.post(Self.susi + "/oauth2/v2.0/token", [("client_id", "x"), ("grant_type", "password")]).bodyText.contains("AADB2C90086: The supplied grant_type [password] is not supported."))
        #expect(browser.post(Self.susi + "/oauth2/v2.0/token", [("client_id", "x")]).bodyText.contains("AADB2C90083: The request is missing required parameter: grant_type."))
        #expect(browser.post(Self.susi + "/oauth2/v2.0/token", [("grant_type", "authorization_code"), ("code", B2CGrantToken.make())]).bodyText.contains("AADB2C90083: The request is missing required parameter: client_id."))
    }

    @Test func correlationIDIsEchoedWhenAsked() {
        let browser = B2CBrowser()
        let response = browser.post(Self.susi + "/oauth2/v2.0/token", [("client_id", "x"), ("grant_type", "password")],
                                    headers: ["client-request-id": "abc-123", "return-client-request-id": "true"])
        #expect(response.headers["client-request-id"] == "abc-123")
        #expect(response.bodyText.contains("Correlation ID: abc-123"))
    }
}

@Suite struct B2CScenarioDirectiveTests {
    /// Signs ben in, then redeems the code while a scenario imposes `directives`.
    func redeem(under directives: ScenarioDirectives, _ browser: B2CBrowser = B2CBrowser()) throws -> TokenResponse {
        let code = try #require(browser.code(from: browser.signIn(browser.get(browser.authorizeURL()))))
        return try TokenResponse(browser.under(directives) { browser.redeem(code) })
    }

    @Test func scenarioLifetimesClaimsAndDeclinedScopesShapeB2CTokens() throws {
        let browser = B2CBrowser()
        var directives = ScenarioDirectives()
        directives.accessTokenLifetime = 120
        directives.refreshTokenLifetime = 600
        directives.idTokenClaims = ["extension_tier": .string("gold")]
        directives.accessTokenClaims = ["name": .string("Overridden")]
        directives.declinedScopes = [B2CFixtures.apiScope]
        let tokens = try redeem(under: directives, browser)
        #expect(tokens.number("expires_in") == 120)
        #expect(tokens.number("refresh_token_expires_in") == 600)
        #expect(tokens["scope"] == "openid profile offline_access")
        #expect(try tokens.idToken["extension_tier"] as? String == "gold")
        #expect(try tokens.accessToken["name"] as? String == "Overridden")
        #expect(try tokens.accessToken["scp"] == nil)
        browser.clock.advance(by: 601)
        #expect(browser.refresh(try #require(tokens["refresh_token"])).bodyText.contains("AADB2C90080"))
    }
}

@Suite struct B2CPasswordGrantTests {
    static let ropc = "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_ropc"

    func passwordGrant(_ browser: B2CBrowser, authority: String = ropc, password: String = "Passw0rd!") -> HTTPResponse {
        browser.post(authority + "/oauth2/v2.0/token", [
            ("client_id", B2CFixtures.clientID), ("grant_type", "password"), ("username", "ben@fabrikam.test"),
            ("password", password), ("scope", "openid \(B2CFixtures.clientID) offline_access"), ("client_info", "1"),
        ])
    }

    @Test func ropcPolicyTakesTheAccountsCredentials() throws {
        let browser = B2CBrowser()
        let tokens = try TokenResponse(passwordGrant(browser))
        #expect(try tokens.idToken["tfp"] as? String == "B2C_1_ropc")
        #expect(try tokens.accessToken["aud"] as? String == B2CFixtures.clientID)
        let clientInfo = try tokens.clientInfo
        #expect(clientInfo["uid"] == "\(B2CTokenTests.benID)-b2c_1_ropc")
        #expect(try TokenResponse(browser.refresh(try #require(tokens["refresh_token"]), authority: Self.ropc))["id_token"] != nil)
    }

    @Test func wrongPasswordAndOtherPoliciesAreRefused() {
        let browser = B2CBrowser()
        let wrong = passwordGrant(browser, password: "nope")
        #expect(wrong.status.code == 400)
        #expect(wrong.bodyText.contains("AADB2C90225: The username or password provided in the request are invalid."))
        #expect(wrong.bodyText.contains(#""error":"access_denied""#), "as recorded in 2019")
        #expect(passwordGrant(browser, authority: B2CTokenTests.susi).bodyText.contains("AADB2C90086: The supplied grant_type [password] is not supported."))
    }
}

extension B2CScenarioDirectiveTests {
    @Test func absurdLifetimesSaturateInsteadOfTrapping() throws {
        var directives = ScenarioDirectives()
        directives.accessTokenLifetime = 1e300
        directives.idTokenLifetime = 1e300
        directives.refreshTokenLifetime = .infinity
        let tokens = try redeem(under: directives)
        #expect(tokens.number("expires_in") == Int.max)
        #expect(tokens.number("refresh_token_expires_in") == Int.max)
        #expect(try tokens.idToken["exp"] as? Int == Int.max)
    }
}

/// B2C's front end headers, as recorded with a user flow's keys (2017) and a ROPC refusal (2019).
@Suite struct B2CFrontEndHeaderTests {
    @Test func everyAnswerCarriesTheGatewayIdAndTheHardeningHeaders() {
        var keys = HTTPResponse(status: .ok, headers: ["Cache-Control": "max-age=86400, private"], body: [])
        B2CHandler.addFrontEndHeaders(to: &keys, discovery: true)
        #expect(keys.headers["Cache-Control"] == "private")
        #expect(keys.headers["X-Frame-Options"] == "DENY" && keys.headers["X-XSS-Protection"] == "1; mode=block")
        #expect(keys.headers["x-ms-gateway-requestid"]?.count == 36)
        var token = HTTPResponse(status: .badRequest, headers: ["Cache-Control": "no-store, no-cache", "X-Frame-Options": "SAMEORIGIN"], body: [])
        B2CHandler.addFrontEndHeaders(to: &token, discovery: false)
        #expect(token.headers["Cache-Control"] == "no-store, no-cache", "an answer that may carry tokens is never cached")
        #expect(token.headers["X-Frame-Options"] == "SAMEORIGIN", "a page's own policy stays")
    }
}

/// Client credentials at any policy (learn.microsoft.com, "Set up OAuth 2.0 client credentials flow in Azure
/// AD B2C"): an app's own token for a web API of the tenant, its app roles in `scp`.
@Suite struct B2CClientCredentialsTests {
    func clientCredentials(_ browser: B2CBrowser, clientID: String, secret: String?, scope: String,
                           authority: String = "/fabrikamb2c.onmicrosoft.com/B2C_1A_SUSI") -> HTTPResponse {
        var fields = [("grant_type", "client_credentials"), ("client_id", clientID), ("scope", scope)]
        if let secret { fields.append(("client_secret", secret)) }
        return browser.post(authority + "/oauth2/v2.0/token", fields)
    }

    @Test func anAppGetsItsOwnTokenForAnAPIOfTheTenant() throws {
        let browser = B2CBrowser()
        let client = UUID().uuidString.lowercased()
        let response = clientCredentials(browser, clientID: client, secret: "daemon-secret", scope: "https://fabrikamb2c.onmicrosoft.com/helloapi/.default")
        let tokens = try TokenResponse(response)
        #expect(tokens["resource"] == B2CConfiguration.sampleAPIAppID)
        #expect((tokens.number("expires_in") ?? 0) > 0 && tokens.number("not_before") != nil && tokens.number("expires_on") != nil)
        #expect(tokens["scope"] == nil && tokens["refresh_token"] == nil && tokens["id_token"] == nil)
        let claims = try tokens.accessToken
        #expect(claims["aud"] as? String == B2CConfiguration.sampleAPIAppID)
        #expect(claims["azp"] as? String == client)
        #expect(claims["scp"] as? String == "app.read app.write")
        #expect(claims["sub"] as? String == TokenIdentifiers.servicePrincipalID(clientID: client, tenantID: B2CFixtures.tenantID))
        #expect(claims["tfp"] as? String == "B2C_1A_SUSI")
    }

    @Test func aPublicClientOrAnotherScopeIsRefused() throws {
        let browser = B2CBrowser()
        let publicClient = clientCredentials(browser, clientID: B2CFixtures.clientID, secret: nil, scope: "https://fabrikamb2c.onmicrosoft.com/helloapi/.default")
        #expect(publicClient.bodyText.contains("AADB2C90079"), "\(publicClient.bodyText)")
        let delegated = clientCredentials(browser, clientID: UUID().uuidString, secret: "s", scope: B2CFixtures.apiScope)
        #expect(delegated.bodyText.contains("AADB2C90117"), "\(delegated.bodyText)")
        let graph = clientCredentials(browser, clientID: UUID().uuidString, secret: "s", scope: "https://graph.microsoft.com/.default")
        #expect(graph.bodyText.contains("AADB2C90117"), "\(graph.bodyText)")
    }
}
