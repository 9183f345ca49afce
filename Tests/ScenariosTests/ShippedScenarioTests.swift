import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
@testable import Scenarios
import LocatedJSON

/// One test per shipped scenario: bound to a server running the real platform chain, the
/// scenario does what its file says. Directives (declined scopes, consent, MFA, lifetimes, claims)
/// are checked where the platform receives them: the probe at the head of the world's chain.
@Suite struct ShippedScenarioTests {
    static let library: ScenarioLibrary = {
        do { return try ScenarioLibrary.load(directories: [LibraryTests.directory]) }
        catch { preconditionFailure("\(error)") }
    }()

    func bound(_ name: String, to target: BindingTarget = .server) throws -> Harness {
        let scenario = try #require(Self.library[name], "no shipped scenario \(name)")
        let harness = Harness(scenarios: [scenario])
        try harness.engine.bind(scenario: name, to: target)
        return harness
    }

    /// A refresh token from the password grant, failing the test when there is none.
    func refreshToken(_ harness: Harness, client: String = Harness.nativeApp, scope: String = "User.Read offline_access openid profile") throws -> String {
        let response = harness.send(Harness.passwordGrant(client: client, scope: scope))
        return try #require(Harness.body(response)["refresh_token"] as? String, "\(response.status.code) \(response.bodyText)")
    }

    func error(_ response: HTTPResponse) -> (error: String?, codes: [Int]?, suberror: String?, description: String?) {
        let body = Harness.body(response)
        return (body["error"] as? String, body["error_codes"] as? [Int], body["suberror"] as? String, body["error_description"] as? String)
    }

    @Test func happyPath() throws {
        let harness = try bound("happy-path")
        let authorize = harness.send(Harness.authorize())
        #expect(authorize.status.code == 302)
        let code = try #require(Harness.redirectParameters(authorize)["code"], "\(authorize.headers)")
        let redeem = harness.send(Harness.post("/organizations/oauth2/v2.0/token", [
            ("grant_type", "authorization_code"), ("client_id", Harness.nativeApp), ("code", code), ("redirect_uri", Harness.redirect),
            ("code_verifier", "verifier-0123456789-0123456789-0123456789-0123456789"), ("scope", "User.Read openid profile offline_access"), ("client_info", "1"),
        ]))
        #expect(redeem.status.code == 200, "\(redeem.bodyText)")
        let tokens = Harness.body(redeem)
        #expect(tokens["client_info"] is String)
        let refreshed = harness.send(Harness.refreshGrant(try #require(tokens["refresh_token"] as? String)))
        #expect(refreshed.status.code == 200)
    }

    @Test func accessTokenExpiry() throws {
        let harness = try bound("access-token-expiry")
        let token = harness.send(Harness.passwordGrant())
        #expect(token.status.code == 200)
        #expect(harness.probe.last?.accessTokenLifetime == 240)
        #expect(Harness.body(token)["expires_in"] as? Int == 240)
        let issued = Harness.claims(Harness.body(token)["access_token"] as? String)
        #expect((issued["exp"] as? Int).map { $0 - (issued["iat"] as? Int ?? 0) } == 240)
        let world = try #require(harness.engine.world(binding: "b1"))
        #expect(world.elapsed == 0)
        let accessToken = try #require(Harness.body(token)["access_token"] as? String)
        // The first Graph call is answered at the time it was sent; then the clock moves past the token's
        // expiry (240 s + Graph's 5 minutes of skew), so sending the same token again is refused.
        let first = harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(accessToken)"]))
        #expect(first.status.code == 200)
        #expect(world.elapsed == 600, "the first Graph call moves the world's clock past the token's expiry")
        let stale = harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(accessToken)"]))
        #expect(stale.status.code == 401)
        #expect((Harness.body(stale)["error"] as? [String: Any])?["code"] as? String == "InvalidAuthenticationToken")
        #expect(world.elapsed == 600, "only once")
        // Every later token response is short-lived too.
        let refreshed = Harness.body(harness.send(Harness.refreshGrant(try #require(Harness.body(token)["refresh_token"] as? String))))
        #expect(refreshed["expires_in"] as? Int == 240)
        let fresh = try #require(refreshed["access_token"] as? String)
        #expect(harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(fresh)"])).status.code == 200, "the silently refreshed token works")
    }

    @Test func refreshTokenExpired() throws {
        let harness = try bound("refresh-token-expired")
        let rt = try refreshToken(harness)
        let failed = error(harness.send(Harness.refreshGrant(rt)))
        #expect(failed.error == "invalid_grant")
        #expect(failed.codes == [700082])
        #expect(failed.description?.contains("The token was issued on") == true)
        #expect(harness.send(Harness.refreshGrant(rt)).status.code == 200, "after the interactive sign-in the service works again")
    }

    @Test func grantRevokedByPasswordChange() throws {
        let harness = try bound("grant-revoked-password-change")
        let failed = error(harness.send(Harness.refreshGrant(try refreshToken(harness))))
        #expect(failed.codes == [50173])
        #expect(failed.description?.contains("TokensValidFrom") == true)
    }

    @Test func badToken() throws {
        let harness = try bound("bad-token")
        let failed = error(harness.send(Harness.refreshGrant(try refreshToken(harness))))
        #expect(failed.error == "invalid_grant")
        #expect(failed.suberror == "bad_token")
        #expect(failed.codes == [50034])
        #expect(failed.description?.hasPrefix("AADSTS50034: The user account {EUII Hidden} does not exist in the \(Directory.contosoTenantID) directory.") == true)
    }

    @Test func incrementalConsentRequired() throws {
        let harness = try bound("incremental-consent-required")
        let rt = try refreshToken(harness)
        #expect(harness.send(Harness.refreshGrant(rt)).status.code == 200, "User.Read alone is fine")
        let failed = error(harness.send(Harness.refreshGrant(rt, scope: "https://graph.microsoft.com/Calendars.Read offline_access")))
        #expect(failed.codes == [65001])
        #expect(failed.suberror == "consent_required")
        #expect(failed.description?.contains("named 'Contoso Mobile'") == true)
        _ = harness.send(Harness.authorize(scope: "Calendars.Read openid offline_access"))
        #expect(harness.probe.last?.consentRequiredScopes == ["Calendars.Read"])
    }

    /// The consent page comes back for Calendars.Read even though the user had granted it before.
    @Test func incrementalConsentShowsTheConsentPageAgain() throws {
        let scenario = try #require(Self.library["incremental-consent-required"])
        var options = IdentityOptions()
        options.autoLogin = false
        let harness = Harness(scenarios: [scenario], identityOptions: options)
        let binding = try harness.engine.bind(scenario: scenario.name, to: .server)
        try #require(harness.engine.world(binding: binding.id)).service.directory.withLock {
            $0.grantConsent(ConsentGrant(clientID: Harness.nativeApp, resourceAppID: Resource.graphAppID, userID: "6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51",
                                         tenantID: Directory.contosoTenantID, scopes: ["User.Read", "Calendars.Read"]))
        }
        func pageAfterSignIn(scope: String) throws -> String {
            let page = harness.send(Harness.authorize(scope: scope))
            let ctx = try #require(page.bodyText.range(of: "name=\"ctx\" value=\"[^\"]+\"", options: .regularExpression).map { String(page.bodyText[$0].dropFirst(18).dropLast()) })
            let next = harness.send(Harness.post("/organizations/oauth2/v2.0/authorize", [("ctx", ctx), ("action", "signin"), ("login", Harness.adele), ("passwd", Directory.demoPassword)]))
            return next.bodyText
        }
        #expect(try pageAfterSignIn(scope: "Calendars.Read openid").contains("id=\"consent\""), "asked again")
        #expect(try !pageAfterSignIn(scope: "Calendars.Read openid").contains("id=\"consent\""), "the rule fired once: granted consent counts again")
    }

    @Test func adminConsentRequired() throws {
        let harness = try bound("admin-consent-required")
        for _ in 0..<2 {
            let failed = error(harness.send(Harness.passwordGrant(scope: "User.Read.All offline_access")))
            #expect(failed.codes == [90094])
            #expect(failed.suberror == "consent_required")
        }
        let page = harness.send(Harness.authorize(scope: "User.Read.All openid"))
        #expect(page.status.code == 200)
        #expect(page.headers["Location"] == nil, "shown as a page, never redirected")
        #expect(page.bodyText.contains("AADSTS90094: The grant requires admin permission."))
    }

    @Test func declinedScopes() throws {
        let harness = try bound("declined-scopes")
        let response = harness.send(Harness.passwordGrant(scope: "User.Read Calendars.Read offline_access"))
        #expect(harness.probe.last?.declinedScopes == ["Calendars.Read"])
        #expect(response.status.code == 200, "declined scopes are a success whose scope lacks them")
        let granted = (Harness.body(response)["scope"] as? String)?.lowercased().split(separator: " ").map(String.init) ?? []
        #expect(granted.contains { $0.hasSuffix("user.read") })
        #expect(!granted.contains { $0.hasSuffix("calendars.read") })
    }

    @Test func userDeclinesConsent() throws {
        let harness = try bound("user-declines-consent")
        let response = harness.send(Harness.authorize())
        #expect(response.status.code == 302)
        #expect(response.headers["Location"]?.hasPrefix(Harness.redirect + "?") == true)
        let parameters = Harness.redirectParameters(response)
        #expect(parameters["error"] == "access_denied")
        #expect(parameters["error_description"]?.hasPrefix("AADSTS65004: User declined to consent to access the app.\r\nTrace ID: ") == true)
        #expect(parameters["state"] == "s-1")
    }

    @Test func userCancelsSignIn() throws {
        let harness = try bound("user-cancels-sign-in")
        let parameters = Harness.redirectParameters(harness.send(Harness.authorize()))
        #expect(parameters["error"] == "access_denied")
        #expect(parameters["error_subcode"] == "cancel")
        #expect(parameters["state"] == "s-1")
        #expect(harness.send(Harness.authorize()).status.code == 302)
        #expect(Harness.redirectParameters(harness.send(Harness.authorize()))["code"] != nil, "the next attempt signs in")
    }

    @Test func mfaRequired() throws {
        let harness = try bound("mfa-required")
        let failed = error(harness.send(Harness.refreshGrant(try refreshToken(harness))))
        #expect(failed.codes == [50076])
        #expect(failed.suberror == "basic_action")
        #expect(failed.description?.contains("'00000003-0000-0000-c000-000000000000'") == true)
        let signIn = harness.interactiveSignIn()
        let amr = Harness.claims(signIn["access_token"] as? String)["amr"] as? [String]
        #expect(amr?.contains("mfa") == true, "the interactive sign-in went through MFA")
    }

    @Test func passwordExpired() throws {
        let harness = try bound("password-expired")
        let failed = error(harness.send(Harness.passwordGrant()))
        #expect(failed.codes == [50055])
        #expect(failed.suberror == "user_password_expired")
        // The scenario's own user has an expired password: the platform itself refuses it.
        let nestor = error(harness.send(Harness.passwordGrant(user: "nestor.wilke@contoso.onmicrosoft.com")))
        #expect(nestor.codes == [50055])
    }

    @Test func passwordExpiredAsksForANewPasswordOnSignIn() throws {
        let scenario = try #require(Self.library["password-expired"])
        var options = IdentityOptions()
        options.autoLogin = false
        let harness = Harness(scenarios: [scenario], identityOptions: options)
        try harness.engine.bind(scenario: scenario.name, to: .server)
        let page = harness.send(Harness.authorize(user: "nestor.wilke@contoso.onmicrosoft.com"))
        let ctx = try #require(page.bodyText.range(of: "name=\"ctx\" value=\"[^\"]+\"", options: .regularExpression).map { String(page.bodyText[$0].dropFirst(18).dropLast()) })
        let next = harness.send(Harness.post("/organizations/oauth2/v2.0/authorize", [("ctx", ctx), ("action", "signin"), ("login", "nestor.wilke@contoso.onmicrosoft.com"), ("passwd", Directory.demoPassword)]))
        #expect(next.bodyText.contains("id=\"passwordchange\""))
    }

    @Test func promptNoneWithoutSession() throws {
        let harness = try bound("prompt-none-no-session")
        let parameters = Harness.redirectParameters(harness.send(Harness.authorize(extra: [("prompt", "none")])))
        #expect(parameters["error"] == "login_required")
        #expect(parameters["error_description"]?.hasPrefix("AADSTS50058: A silent sign-in request was sent but no user is signed in.") == true)
        #expect(Harness.redirectParameters(harness.send(Harness.authorize()))["code"] != nil, "an interactive request still works")
    }

    @Test func conditionalAccessBlocked() throws {
        let harness = try bound("conditional-access-blocked")
        let failed = error(harness.send(Harness.passwordGrant()))
        #expect(failed.codes == [53003])
        #expect(failed.suberror == "message_only")
        let page = harness.send(Harness.authorize())
        #expect(page.status.code == 200)
        #expect(page.bodyText.contains("AADSTS53003: Access has been blocked by Conditional Access policies."))
    }

    @Test func protectionPolicyRequired() throws {
        let harness = try bound("protection-policy-required")
        let response = harness.send(Harness.refreshGrant(try refreshToken(harness)))
        #expect(response.status.code == 400)
        let failed = error(response)
        #expect(failed.error == "unauthorized_client")
        #expect(failed.suberror == "protection_policy_required")
        #expect(failed.codes == [53005])
    }

    @Test func throttledTokenEndpoint() throws {
        let harness = try bound("throttled-token-endpoint")
        for _ in 0..<2 {
            let response = harness.send(Harness.passwordGrant())
            #expect(response.status.code == 429)
            #expect(response.headers["Retry-After"] == "5")
            #expect(error(response).error == "temporarily_unavailable")
        }
        #expect(harness.send(Harness.passwordGrant()).status.code == 200)
    }

    @Test func transient503ThenSuccess() throws {
        let harness = try bound("transient-503-then-success")
        let first = harness.send(Harness.passwordGrant())
        #expect(first.status.code == 503)
        #expect(first.headers["Retry-After"] == "1")
        #expect(harness.send(Harness.passwordGrant()).status.code == 200)
    }

    @Test func networkDropThenSuccess() throws {
        let harness = try bound("network-drop-then-success")
        #expect(harness.send(Harness.passwordGrant()).directives.dropConnection)
        let second = harness.send(Harness.passwordGrant())
        #expect(!second.directives.dropConnection)
        #expect(second.status.code == 200)
    }

    @Test func slowTokenEndpoint() throws {
        let harness = try bound("slow-token-endpoint")
        for _ in 0..<2 {
            let response = harness.send(Harness.passwordGrant())
            #expect(response.status.code == 200)
            #expect(response.directives.delay == .seconds(8))
        }
    }

    @Test func clockSkew() throws {
        let harness = try bound("clock-skew")
        let tokens = Harness.body(harness.send(Harness.passwordGrant()))
        let claims = Harness.claims(tokens["id_token"] as? String)
        #expect(claims["iat"] as? Int == Int(Harness.start.timeIntervalSince1970) + 900)
        #expect(harness.service.clock.now() == Harness.start, "the server's own clock is untouched")
    }

    @Test func signingKeyRollover() throws {
        let harness = try bound("signing-key-rollover")
        let first = Harness.body(harness.send(Harness.passwordGrant()))
        let firstKid = JWS.decode(try #require(first["access_token"] as? String))?.keyID
        #expect(firstKid == Harness.credential.keyID)
        let second = Harness.body(harness.send(Harness.refreshGrant(try #require(first["refresh_token"] as? String))))
        let secondKid = JWS.decode(try #require(second["access_token"] as? String))?.keyID
        #expect(secondKid != nil && secondKid != firstKid)
        let jwks = Harness.body(harness.send(Harness.get("/common/discovery/v2.0/keys")))
        let kids = (jwks["keys"] as? [[String: Any]])?.compactMap { $0["kid"] as? String }
        #expect(kids == [secondKid!], "the old key is gone from the JWKS")
        #expect(harness.service.keys.current.keyID == Harness.credential.keyID, "the default world keeps its key")
    }

    @Test func familyRefreshToken() throws {
        let harness = try bound("family-refresh-token")
        let appA = "9c2f4f0e-6a1d-4f7b-8e21-3b5d7c9a1e40", appB = "d4b7e2a9-3c6f-4e8d-9a1b-5f2c8e7d6b30"
        let signIn = Harness.body(harness.send(Harness.passwordGrant(client: appA)))
        #expect(signIn["foci"] as? String == "1")
        let familyToken = try #require(signIn["refresh_token"] as? String)
        let mismatch = error(harness.send(Harness.refreshGrant(familyToken, client: appB)))
        #expect(mismatch.suberror == "client_mismatch")
        #expect(mismatch.error == "invalid_grant")
        #expect(harness.send(Harness.refreshGrant(familyToken, client: appA)).status.code == 200, "the family token still serves its own app")
    }

    @Test func adalV1ResourceMigration() throws {
        let harness = try bound("adal-v1-resource-migration")
        let legacyApp = "e1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607"
        let wrong = error(harness.send(Harness.passwordGrant(client: legacyApp, scope: "https://api.contoso.com/.default offline_access")))
        #expect(wrong.error == "invalid_resource")
        #expect(wrong.codes == [500011])
        let right = harness.send(Harness.passwordGrant(client: legacyApp, scope: "https://api.contoso.com//.default offline_access"))
        #expect(right.status.code == 200, "\(right.bodyText)")
        let claims = Harness.claims(Harness.body(right)["access_token"] as? String)
        #expect(claims["ver"] as? String == "1.0")
        #expect((claims["aud"] as? String)?.hasPrefix("https://api.contoso.com") == true)
    }

    @Test func graphClaimsChallenge() throws {
        let harness = try bound("graph-cae-claims-challenge")
        // A client without the cp1 capability is never challenged, as with the real Graph.
        let plain = try #require(Harness.body(harness.send(Harness.passwordGrant()))["access_token"] as? String)
        #expect(harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(plain)"])).status.code == 200)
        let capable = harness.interactiveSignIn(extra: [("claims", #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#)])
        let accessToken = try #require(capable["access_token"] as? String, "\(capable)")
        let response = harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(accessToken)"]))
        #expect(response.status.code == 401)
        let challenge = try #require(response.headers["WWW-Authenticate"])
        #expect(challenge.contains("error=\"insufficient_claims\""))
        let encoded = try #require(challenge.range(of: "claims=\"[^\"]+\"", options: .regularExpression).map { String(challenge[$0].dropFirst(8).dropLast()) })
        let decoded = String(decoding: Data(base64Encoded: encoded) ?? Data(), as: UTF8.self)
        #expect(decoded == "{\"access_token\":{\"nbf\":{\"essential\":true, \"value\":\"\(Int(Harness.start.timeIntervalSince1970))\"}}}")
        var form = FormParameters(decoding: String(decoding: Harness.refreshGrant(try #require(capable["refresh_token"] as? String)).body, as: UTF8.self))
        form.append("claims", decoded)
        let reauth = harness.send(Harness.post("/organizations/oauth2/v2.0/token", form.pairs.map { ($0.name, $0.value) }))
        #expect(reauth.status.code == 200, "\(reauth.bodyText)")
        let counters = try #require(harness.engine.world(binding: "b1")?.counters)
        #expect(counters[1].fired == 1, "the re-authentication passed the claims back")
        let fresh = try #require(Harness.body(reauth)["access_token"] as? String)
        #expect(harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(fresh)"])).status.code == 200, "challenged once")
    }

    @Test func graphThrottling() throws {
        let harness = try bound("graph-throttling")
        for _ in 0..<2 {
            let response = harness.send(Harness.get("/v1.0/me"))
            #expect(response.status.code == 429)
            #expect(response.headers["Retry-After"] == "2")
            #expect((Harness.body(response)["error"] as? [String: Any])?["code"] as? String == "TooManyRequests")
        }
        #expect(harness.send(Harness.get("/v1.0/me")).status.code == 401, "then Graph itself answers (here: no token)")
    }

    @Test func graphMissingScope403() throws {
        let harness = try bound("graph-missing-scope-403")
        let userRead = try #require(Harness.body(harness.send(Harness.passwordGrant())) ["access_token"] as? String)
        let refused = harness.send(Harness.get("/v1.0/me/events", headers: ["Authorization": "Bearer \(userRead)"]))
        #expect(refused.status.code == 403)
        #expect((Harness.body(refused)["error"] as? [String: Any])?["code"] as? String == "ErrorAccessDenied")
        #expect(harness.send(Harness.get("/v1.0/me", headers: ["Authorization": "Bearer \(userRead)"])).status.code == 200, "the profile needs no calendar scope")
        let calendar = try #require(Harness.body(harness.send(Harness.passwordGrant(scope: "User.Read Calendars.Read"))) ["access_token"] as? String)
        #expect(harness.send(Harness.get("/v1.0/me/events", headers: ["Authorization": "Bearer \(calendar)"])).status.code == 200)
    }

    static func b2cAuthorize(policy: String) -> HTTPRequest {
        Harness.get("/fabrikamb2c.onmicrosoft.com/\(policy)/oauth2/v2.0/authorize?client_id=\(Harness.nativeApp)&response_type=code&redirect_uri=https%3A%2F%2Fjwt.ms&scope=openid%20offline_access&state=b2c")
    }

    @Test func b2cForgotPassword() throws {
        let harness = try bound("b2c-forgot-password")
        let response = harness.send(Self.b2cAuthorize(policy: "B2C_1_susi"))
        #expect(response.headers["Location"]?.hasPrefix("https://jwt.ms?") == true)
        let parameters = Harness.redirectParameters(response)
        #expect(parameters["error"] == "access_denied")
        #expect(parameters["error_description"]?.hasPrefix("AADB2C90118: The user has forgotten their password.\r\nCorrelation ID: ") == true)
        #expect(parameters["error_uri"] == nil, "B2C errors carry no error_uri")
        _ = harness.send(Self.b2cAuthorize(policy: "B2C_1_reset"))
        #expect(harness.engine.world(binding: "b1")?.counters[1].fired == 1, "the app started the password-reset flow")
    }

    @Test func b2cCancel() throws {
        let harness = try bound("b2c-cancel")
        let parameters = Harness.redirectParameters(harness.send(Self.b2cAuthorize(policy: "B2C_1_edit_profile")))
        #expect(parameters["error"] == "access_denied")
        #expect(parameters["error_description"]?.hasPrefix("AADB2C90091: The user has cancelled entering self-asserted information.") == true)
        #expect(parameters["state"] == "b2c")
    }

    @Test func b2cEditProfile() throws {
        let harness = try bound("b2c-edit-profile")
        _ = harness.send(Harness.post("/fabrikamb2c.onmicrosoft.com/B2C_1_edit_profile/oauth2/v2.0/token", [("grant_type", "authorization_code"), ("client_id", Harness.nativeApp), ("code", "x")]))
        #expect(harness.probe.last?.idTokenClaims["name"]?.string == "Patti F.")
        #expect(harness.probe.last?.idTokenClaims["tfp"]?.string == "B2C_1_edit_profile")
    }
}
