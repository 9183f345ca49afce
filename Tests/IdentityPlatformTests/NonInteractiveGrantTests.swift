import IdentityFixtures
import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
import Synchronization
@testable import IdentityPlatform

@Suite struct ClientCredentialsGrantTests {
    typealias F = TokenFixtures

    @Test func appOnlyTokenWithConfiguredRoles() throws {
        let (service, _) = F.service()
        let response = F.send(F.post(F.tokenPath, [("grant_type", "client_credentials"), ("client_id", F.webAppID), ("client_secret", F.webSecret), ("scope", "https://graph.microsoft.com/.default")]), to: service)
        #expect(response.status.code == 200)
        let body = F.json(response)
        // No `scope` in an app-only answer, as in the recorded client-credentials answers of v2.0.
        #expect(body["id_token"] == nil && body["refresh_token"] == nil && body["client_info"] == nil && body["scope"] == nil)
        let access = try #require(F.claims(body["access_token"] as? String))
        #expect(access["roles"] as? [String] == ["User.Read.All"])
        #expect(access["scp"] == nil && access["idtyp"] as? String == "app")
        #expect(access["appidacr"] as? String == "1" && access["tid"] as? String == F.contoso)
        #expect(access["oid"] as? String == access["sub"] as? String)
    }

    /// An app that names no app roles on the resource: lenient mode grants it every role (docs/limits.md);
    /// `--strict` grants none, as the service grants only the roles an administrator consented to.
    @Test func anAppWithoutConfiguredRolesHoldsAllOfThemOnlyWhenLenient() throws {
        let request = F.post(F.tokenPath, [("grant_type", "client_credentials"), ("client_id", F.apiAppID), ("client_secret", "api-secret"), ("scope", "https://graph.microsoft.com/.default")])
        let lenient = try #require(F.claims(F.json(F.send(request, to: F.service().0))["access_token"] as? String))
        #expect((lenient["roles"] as? [String])?.contains("Directory.Read.All") == true)
        var options = IdentityOptions()
        options.strict = true
        let strictResponse = F.send(request, to: F.service(options: options).0)
        #expect(strictResponse.status.code == 200)
        let strict = try #require(F.claims(F.json(strictResponse)["access_token"] as? String))
        #expect(strict["roles"] == nil, "no roles claim: Graph then answers 403")
    }

    @Test func v2ResourceGetsAppIDAudience() throws {
        let (service, _) = F.service()
        let body = F.json(F.send(F.post(F.tokenPath, [("grant_type", "client_credentials"), ("client_id", F.webAppID), ("client_secret", F.webSecret), ("scope", "api://\(F.apiAppID)/.default")]), to: service))
        let access = try #require(F.claims(body["access_token"] as? String))
        #expect(access["aud"] as? String == F.apiAppID && access["ver"] as? String == "2.0")
        #expect(access["iss"] as? String == "\(F.origin)/\(F.contoso)/v2.0")
        #expect(access["azp"] as? String == F.webAppID && access["roles"] as? [String] == ["Data.Read"])
    }

    @Test func certificateAssertion() throws {
        let (service, clock) = F.service()
        let jwt = try ClientAuthenticationTests.assertion(claims: ClientAuthenticationTests.assertionClaims(now: clock.now(), aud: "\(F.origin)\(F.tokenPath)"))
        let response = F.send(F.post(F.tokenPath, [("grant_type", "client_credentials"), ("client_id", F.certAppID), ("scope", "https://graph.microsoft.com/.default"),
                                                  ("client_assertion_type", PresentedClientCredentials.jwtBearerAssertionType), ("client_assertion", jwt)]), to: service)
        #expect(response.status.code == 200)
        let access = try #require(F.claims(F.json(response)["access_token"] as? String))
        #expect(access["appidacr"] as? String == "2")
        #expect((access["roles"] as? [String])?.contains("User.Read.All") == true, "no configured roles: every role of the resource")
    }

    @Test func errors() {
        let (service, _) = F.service()
        func code(_ form: [(String, String)], path: String = F.tokenPath) -> Int? { F.errorCode(F.send(F.post(path, form), to: service)) }
        #expect(code([("grant_type", "client_credentials"), ("client_id", F.webAppID), ("client_secret", F.webSecret), ("scope", "User.Read")]) == 1002012)
        // The client-credentials grant's own wording for a missing credential (recorded AADSTS7000216, 2025).
        #expect(code([("grant_type", "client_credentials"), ("client_id", F.webAppID), ("scope", "https://graph.microsoft.com/.default")]) == 7000216)
        #expect(code([("grant_type", "client_credentials"), ("client_id", F.nativeAppID), ("scope", "https://graph.microsoft.com/.default")]) == 7000216)
        // An unknown tenant: `invalid_request` to a token request (recorded AADSTS90002).
        let unknownTenant = F.send(F.post("/nowhere.example/oauth2/v2.0/token", [("grant_type", "client_credentials"), ("client_id", F.webAppID),
                                                                              ("client_secret", F.webSecret), ("scope", "https://graph.microsoft.com/.default")]), to: service)
        #expect(F.errorCode(unknownTenant) == 90002 && F.json(unknownTenant)["error"] as? String == "invalid_request")
        #expect(code([("grant_type", "client_credentials"), ("client_id", "new-daemon"), ("client_secret", "s"), ("scope", "https://graph.microsoft.com/.default")], path: "/common/oauth2/v2.0/token") == 50059)
        #expect(code([("grant_type", "client_credentials"), ("client_id", F.webAppID), ("client_secret", F.webSecret)]) == 900144)
    }

    @Test func v1ClientCredentials() throws {
        let (service, _) = F.service()
        let body = F.json(F.send(F.post("/\(F.contoso)/oauth2/token", [("grant_type", "client_credentials"), ("client_id", F.webAppID), ("client_secret", F.webSecret), ("resource", "https://graph.microsoft.com")]), to: service))
        #expect(F.claims(body["access_token"] as? String)?["aud"] as? String == "https://graph.microsoft.com")
        #expect(body["resource"] as? String == "https://graph.microsoft.com")
    }
}

@Suite struct PasswordGrantTests {
    typealias F = TokenFixtures

    func ropc(_ username: String, _ password: String, service: IdentityService, scope: String = "openid profile offline_access User.Read") -> HTTPResponse {
        F.send(F.post(F.tokenPath, [("grant_type", "password"), ("client_id", "any-public-client"), ("username", username), ("password", password), ("scope", scope), ("client_info", "1")]), to: service)
    }

    @Test func signsInWithNameAndPassword() throws {
        let (service, _) = F.service()
        let response = ropc("Adele.Vance@contoso.onmicrosoft.com", Directory.demoPassword, service: service)
        #expect(response.status.code == 200)
        let body = F.json(response)
        #expect(body["refresh_token"] != nil && body["client_info"] != nil)
        #expect(F.claims(body["access_token"] as? String)?["scp"] as? String == "User.Read")
        #expect(F.errorCode(ropc("adele.vance@contoso.onmicrosoft.com", Directory.demoPassword, service: service, scope: "openid Mail.Read")) == 65001)
    }

    /// The one password check: the account's own password, never an empty one (an account that signs in
    /// with codes has none), whatever sign-in asks.
    @Test func onlyTheAccountsOwnPasswordIsAccepted() {
        let withPassword = DirectoryUser(id: "u1", tenantID: F.contoso, userPrincipalName: "a@contoso.onmicrosoft.com", displayName: "A", password: "Passw0rd!")
        #expect(withPassword.accepts(password: "Passw0rd!"))
        #expect(!withPassword.accepts(password: "passw0rd!") && !withPassword.accepts(password: "Passw0rd") && !withPassword.accepts(password: ""))
        let codesOnly = DirectoryUser(id: "u2", tenantID: F.contoso, userPrincipalName: "b@contoso.onmicrosoft.com", displayName: "B", password: "")
        #expect(!codesOnly.accepts(password: "") && !codesOnly.accepts(password: "anything"))
    }

    @Test func accountStates() {
        let (service, _) = F.service()
        let upn = "alex.wilber@contoso.onmicrosoft.com"
        func update(_ change: @escaping (inout DirectoryUser) -> Void) {
            service.directory.withLock { d in change(&d.users[d.users.firstIndex { $0.userPrincipalName == upn }!]) }
        }
        #expect(F.errorCode(ropc(upn, "wrong", service: service)) == 50126)
        #expect(F.errorCode(ropc("nobody@contoso.onmicrosoft.com", "x", service: service)) == 50034)
        update { $0.passwordExpired = true }
        let expired = ropc(upn, Directory.demoPassword, service: service)
        #expect(F.errorCode(expired) == 50055 && F.json(expired)["suberror"] as? String == "user_password_expired")
        update { $0.passwordExpired = false; $0.mfaRequired = true }
        let mfa = ropc(upn, Directory.demoPassword, service: service)
        #expect(F.errorCode(mfa) == 50076 && F.json(mfa)["suberror"] as? String == "basic_action")
        #expect(F.json(mfa)["claims"] == nil, "no Conditional Access claims on a password grant (recorded 2025)")
        update { $0.accountEnabled = false }
        #expect(F.errorCode(ropc(upn, Directory.demoPassword, service: service)) == 50057)
        update { $0.locked = true }
        #expect(F.errorCode(ropc(upn, Directory.demoPassword, service: service)) == 50053)
    }
}

@Suite struct DeviceCodeGrantTests {
    typealias F = TokenFixtures

    func start(_ service: IdentityService) throws -> (device: String, user: String, body: [String: Any]) {
        let response = F.send(F.post("/organizations/oauth2/v2.0/devicecode", [("client_id", F.nativeAppID), ("scope", "openid profile offline_access User.Read")]), to: service)
        #expect(response.status.code == 200)
        let body = F.json(response)
        return (try #require(body["device_code"] as? String), try #require(body["user_code"] as? String), body)
    }

    func poll(_ device: String, service: IdentityService) -> HTTPResponse {
        F.send(F.post("/organizations/oauth2/v2.0/token", [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("client_id", F.nativeAppID), ("device_code", device), ("client_info", "1")]), to: service)
    }

    func approve(_ device: String, service: IdentityService, decline: Bool = false) {
        service.state.withLock { state in
            let record = state.deviceCodes[device]!
            state.deviceCodes[device]!.status = decline ? .declined : .approved(GrantContext(
                clientID: record.clientID, userID: F.adele, tenantID: F.contoso, scopes: record.requestedScopes,
                resourceAppID: Resource.graphAppID, endpointVersion: .v2, authTime: service.clock.now()
            ))
        }
    }

    @Test func deviceAuthorizationResponse() throws {
        let (service, _) = F.service()
        let (_, userCode, body) = try start(service)
        #expect(userCode.count == 9 && userCode.allSatisfy { DeviceAuthorizationEndpoint.userCodeAlphabet.contains($0) })
        #expect(body["verification_uri"] as? String == "\(F.origin)/devicelogin")
        #expect(body["expires_in"] as? Int == 900 && body["interval"] as? Int == 5)
        #expect(body["message"] as? String == "To sign in, use a web browser to open the page \(F.origin)/devicelogin and enter the code \(userCode) to authenticate.")
        #expect(service.state.withLock { $0.userCodes[userCode] } != nil)
    }

    @Test func pollingPendingSlowDownThenSuccessOnce() throws {
        let (service, clock) = F.service()
        let (device, _, _) = try start(service)
        #expect(F.json(poll(device, service: service))["error"] as? String == "authorization_pending")
        #expect(F.json(poll(device, service: service))["error"] as? String == "slow_down")
        clock.advance(by: 5)
        #expect(F.json(poll(device, service: service))["error"] as? String == "authorization_pending")
        approve(device, service: service)
        clock.advance(by: 5)
        let success = poll(device, service: service)
        #expect(success.status.code == 200)
        let body = F.json(success)
        #expect(body["scope"] as? String == "User.Read openid profile")
        #expect(F.claims(body["id_token"] as? String)?["oid"] as? String == F.adele)
        clock.advance(by: 5)
        #expect(F.json(poll(device, service: service))["error"] as? String == "invalid_grant")
    }

    @Test func declinedExpiredAndBadCodes() throws {
        let (service, clock) = F.service()
        let (declined, _, _) = try start(service)
        approve(declined, service: service, decline: true)
        #expect(F.json(poll(declined, service: service))["error"] as? String == "authorization_declined")
        let (late, _, _) = try start(service)
        clock.advance(by: 901)
        #expect(F.json(poll(late, service: service))["error"] as? String == "expired_token")
        #expect(F.json(poll("no-such-code", service: service))["error"] as? String == "bad_verification_code")
        let missing = F.send(F.post("/organizations/oauth2/v2.0/devicecode", [("client_id", F.nativeAppID)]), to: service)
        #expect(F.errorCode(missing) == 900144)
    }
}

@Suite struct OnBehalfOfGrantTests {
    typealias F = TokenFixtures

    /// A user token for the API, as the web app's front end would have obtained it.
    func apiToken(_ service: IdentityService) throws -> String {
        let body = F.json(F.send(F.post(F.tokenPath, [("grant_type", "password"), ("client_id", F.webAppID), ("client_secret", F.webSecret), ("username", "adele.vance@contoso.onmicrosoft.com"), ("password", Directory.demoPassword), ("scope", "api://\(F.apiAppID)/access_as_user")]), to: service))
        return try #require(body["access_token"] as? String)
    }

    func obo(_ assertion: String, clientID: String = F.apiAppID, secret: String = "api-secret", service: IdentityService) -> HTTPResponse {
        F.send(F.post(F.tokenPath, [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("client_id", clientID), ("client_secret", secret), ("assertion", assertion), ("requested_token_use", "on_behalf_of"), ("scope", "https://graph.microsoft.com/User.Read offline_access")]), to: service)
    }

    @Test func exchangesAUserTokenForADownstreamToken() throws {
        let (service, _) = F.service()
        let incoming = try apiToken(service)
        #expect(F.claims(incoming)?["aud"] as? String == F.apiAppID)
        let response = obo(incoming, service: service)
        #expect(response.status.code == 200)
        let body = F.json(response)
        let access = try #require(F.claims(body["access_token"] as? String))
        #expect(access["aud"] as? String == Resource.graphAppID && access["oid"] as? String == F.adele)
        #expect(access["appid"] as? String == F.apiAppID && access["scp"] as? String == "User.Read")
        #expect(body["refresh_token"] != nil && body["id_token"] == nil)
    }

    /// The downstream token names the subject the middle tier saw (`xms_st.sub`) beside its own pairwise
    /// `sub`, and so does one refreshed from the exchange's refresh token; a token from any other grant does not.
    @Test func theDownstreamTokenNamesTheSourceTokensSubject() throws {
        let (service, _) = F.service()
        let incoming = try apiToken(service)
        let incomingSubject = try #require(F.claims(incoming)?["sub"] as? String)
        #expect(F.claims(incoming)?["xms_st"] == nil)
        let body = F.json(obo(incoming, service: service))
        let access = try #require(F.claims(body["access_token"] as? String))
        #expect((access["xms_st"] as? [String: Any])?["sub"] as? String == incomingSubject)
        #expect(access["sub"] as? String != incomingSubject)
        let refreshed = F.json(F.send(F.post(F.tokenPath, [("grant_type", "refresh_token"), ("client_id", F.apiAppID), ("client_secret", "api-secret"),
                                                          ("refresh_token", try #require(body["refresh_token"] as? String)), ("scope", "https://graph.microsoft.com/User.Read")]), to: service))
        let again = try #require(F.claims(refreshed["access_token"] as? String))
        #expect((again["xms_st"] as? [String: Any])?["sub"] as? String == incomingSubject)
    }

    /// A refresh token comes with the exchange though `offline_access` was not asked (recorded 2021,
    /// azure-identity's own request).
    @Test func theExchangeAnswersARefreshTokenWithoutOfflineAccess() throws {
        let (service, _) = F.service()
        let response = F.send(F.post(F.tokenPath, [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("client_id", F.apiAppID), ("client_secret", "api-secret"), ("assertion", try apiToken(service)), ("requested_token_use", "on_behalf_of"), ("scope", "https://graph.microsoft.com/.default")]), to: service)
        #expect(response.status.code == 200)
        #expect(F.json(response)["refresh_token"] != nil && F.json(response)["id_token"] == nil)
    }

    @Test func assertionChecks() throws {
        let (service, clock) = F.service()
        let incoming = try apiToken(service)
        #expect(F.errorCode(obo(incoming, clientID: F.webAppID, secret: F.webSecret, service: service)) == 50013)
        #expect(F.errorCode(obo("not-a-jwt", service: service)) == 50027)
        // Signed with a key the tenant does not publish, then with the published key's id and a signature it does not verify (recorded 2024, 2018).
        let forged = try JWS.signJWT(payloadJSON: Array(JWS.decode(incoming)!.payloadJSON), credential: F.clientCertificate)
        let unknownKey = obo(forged, service: service)
        #expect(F.errorCode(unknownKey) == 50013)
        #expect((F.json(unknownKey)["error_description"] as? String)?.hasPrefix("AADSTS50013: Assertion failed signature validation. [Reason - The key was not found., Please visit the Azure Portal") == true)
        var parts = incoming.split(separator: ".").map(String.init)
        parts[2] = String(try apiToken(service).split(separator: ".")[2])   // another token's signature by the same key
        let tampered = obo(parts.joined(separator: "."), service: service)
        #expect(F.errorCode(tampered) == 50013 && F.json(tampered)["error"] as? String == "invalid_grant")
        let thumbprint = Hex.uppercase(service.keys.current.certificate.sha1Thumbprint)
        #expect((F.json(tampered)["error_description"] as? String)?.contains("[Reason - The provided signature value did not match the expected signature value., Thumbprint of key used by client: '\(thumbprint)', Found key 'Start=") == true, "\(F.json(tampered))")
        let appOnly = try #require(F.json(F.send(F.post(F.tokenPath, [("grant_type", "client_credentials"), ("client_id", F.webAppID), ("client_secret", F.webSecret), ("scope", "api://\(F.apiAppID)/.default")]), to: service))["access_token"] as? String)
        let application = obo(appOnly, service: service)
        #expect(F.errorCode(application) == 7000114 && F.json(application)["error"] as? String == "unauthorized_client", "an app-only token (recorded 2026)")
        clock.advance(by: 3600)
        let expired = obo(incoming, service: service)
        #expect(F.errorCode(expired) == 500133)
        // Both times, in .NET's round-trip form (recorded 2024).
        let description = F.json(expired)["error_description"] as? String ?? ""
        #expect(description.contains("or request a new token. Current time: ") && description.contains(".0000000Z."), "\(description)")
        let withoutSecret = F.send(F.post(F.tokenPath, [("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("client_id", F.apiAppID), ("assertion", incoming), ("requested_token_use", "on_behalf_of"), ("scope", "User.Read")]), to: service)
        #expect(F.errorCode(withoutSecret) == 7000218)
    }
}

@Suite struct V1DeviceCodeTests {
    typealias F = TokenFixtures

    @Test func adalStyleDeviceFlow() throws {
        let (service, _) = F.service()
        let start = F.json(F.send(F.post("/common/oauth2/devicecode", [("client_id", F.nativeAppID), ("resource", "https://graph.microsoft.com")]), to: service))
        #expect(start["verification_url"] as? String == "\(F.origin)/devicelogin" && start["verification_uri"] == nil)
        let device = try #require(start["device_code"] as? String)
        service.state.withLock { state in
            let record = state.deviceCodes[device]!
            state.deviceCodes[device]!.status = .approved(GrantContext(clientID: F.nativeAppID, userID: F.adele, tenantID: F.contoso, scopes: record.requestedScopes, resourceAppID: Resource.graphAppID, endpointVersion: .v1, authTime: service.clock.now()))
        }
        let body = F.json(F.send(F.post("/common/oauth2/token", [("grant_type", "device_code"), ("client_id", F.nativeAppID), ("code", device), ("resource", "https://graph.microsoft.com")]), to: service))
        #expect(F.claims(body["access_token"] as? String)?["aud"] as? String == "https://graph.microsoft.com")
        #expect(F.claims(body["id_token"] as? String)?["ver"] as? String == "1.0")
        #expect(body["refresh_token"] != nil && body["expires_in"] as? String == "3599")
    }
}
