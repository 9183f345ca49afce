import EntraCrypto
import EntraHTTP
import Foundation
import ExchangeKernel
import IdentityPlatform
import Testing
@testable import Graph

/// Tokens from FakeEntra's own token endpoint, spent at Graph through one handler chain as the server mounts them.
@Suite("Graph with tokens from the token endpoint")
struct RealTokenTests {
    static let daemonID = "77777777-7777-4777-8777-777777777777"
    static let daemonSecret = "daemon-secret"

    let clock = VirtualClock(frozenAt: Demo.now)
    let service: IdentityService
    let chain: ExchangeStack

    init() {
        var directory = Directory.embeddedDefault
        directory.applications.append(Application(
            clientID: Self.daemonID, displayName: "Contoso Daemon", tenantID: Demo.tenant, isPublicClient: false,
            secrets: [.init(value: Self.daemonSecret)],
            requiredResourceAccess: [.init(resource: "https://graph.microsoft.com", roles: ["User.Read.All", "Calendars.Read"])]
        ))
        // Admin consent, as ROPC cannot ask for it.
        directory.grantConsent(ConsentGrant(clientID: Demo.client, resourceAppID: Resource.graphAppID, userID: nil, tenantID: Demo.tenant, scopes: ["User.Read", "Calendars.Read"]))
        service = IdentityService(directory: directory, keys: SigningKeyRing(current: platformCredential), clock: clock)
        chain = ExchangeStack([WorldRouter([EntraHandler(service: service), GraphHandler(service: service)])], routes: RouteResolver([GraphRoutes(), EntraRoutes()]))
    }

    func send(_ method: String, _ target: String, host: String = "127.0.0.1:8443", bearer: String? = nil, form: [(String, String)]? = nil) -> HTTPResponse {
        var headers: HTTPHeaders = ["Host": host]
        if let bearer { headers.add("Authorization", "Bearer \(bearer)") }
        var body: [UInt8] = []
        if let form {
            headers.add("Content-Type", "application/x-www-form-urlencoded")
            body = Array(FormParameters(form).encoded.utf8)
        }
        return chain.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: body), context: ConnectionFacts())
    }

    func userTokens(scope: String) throws -> [String: Any] {
        let response = send("POST", "/organizations/oauth2/v2.0/token", form: [
            ("grant_type", "password"), ("client_id", Demo.client), ("username", "adele.vance@contoso.onmicrosoft.com"),
            ("password", Directory.demoPassword), ("scope", scope),
        ])
        #expect(response.status == .ok, "\(response.json["error_description"] ?? "")")
        return response.json
    }

    @Test func delegatedTokenReadsProfileCalendarAndUserInfo() throws {
        let tokens = try userTokens(scope: "User.Read Calendars.Read openid profile offline_access")
        let access = try #require(tokens["access_token"] as? String)
        let me = send("GET", "/v1.0/me", bearer: access)
        #expect(me.status == .ok)
        #expect(me.json["userPrincipalName"] as? String == "adele.vance@contoso.onmicrosoft.com")
        // The same token at graph.microsoft.com (hosts-file override) works too.
        #expect(send("GET", "/v1.0/me?$select=id", host: "graph.microsoft.com", bearer: access).json["id"] as? String == Demo.adele)
        let week = send("GET", "/v1.0/me/calendarView?startDateTime=2025-01-06T00:00:00Z&endDateTime=2025-01-13T00:00:00Z&$select=subject", bearer: access)
        #expect(week.values.count == 7)
        let info = send("GET", "/oidc/userinfo", bearer: access)
        let idToken = try #require((tokens["id_token"] as? String).flatMap(JWS.decode))
        let idClaims = try #require(try JSONSerialization.jsonObject(with: Data(idToken.payloadJSON)) as? [String: Any])
        #expect(info.json["sub"] as? String == idClaims["sub"] as? String, "UserInfo's sub is the id token's")
        #expect(info.json["name"] as? String == "Adele Vance")
        // Not in the grant: directory-wide reads are refused.
        #expect(send("GET", "/v1.0/users", bearer: access).status == .forbidden)
    }

    @Test func signInOnlyTokenServesUserInfo() throws {
        let tokens = try userTokens(scope: "openid profile email")
        let access = try #require(tokens["access_token"] as? String)
        let info = send("GET", "/oidc/userinfo", bearer: access)
        #expect(info.status == .ok, "\(info.bodyText)")
        #expect(info.json["email"] as? String == "adele.vance@contoso.onmicrosoft.com")
    }

    @Test func tokenExpiresOnThePlatformClock() throws {
        let access = try #require(try userTokens(scope: "User.Read")["access_token"] as? String)
        clock.advance(by: service.options.accessTokenLifetime + 301)
        let response = send("GET", "/v1.0/me", bearer: access)
        #expect(response.status.code == 401)
        #expect(response.errorMessage == "Lifetime validation failed, the token is expired.")
    }

    @Test func idTokenIsNotAGraphToken() throws {
        let idToken = try #require(try userTokens(scope: "User.Read openid")["id_token"] as? String)
        #expect(send("GET", "/v1.0/me", bearer: idToken).errorMessage == "Access token validation failure. Invalid audience.")
    }

    @Test func appTokenReadsUsersAndCalendarsButNotMe() throws {
        let response = send("POST", "/\(Demo.tenant)/oauth2/v2.0/token", form: [
            ("grant_type", "client_credentials"), ("client_id", Self.daemonID), ("client_secret", Self.daemonSecret),
            ("scope", "https://graph.microsoft.com/.default"),
        ])
        let access = try #require(response.json["access_token"] as? String, "\(response.bodyText)")
        #expect(send("GET", "/v1.0/users/\(Demo.alex)", bearer: access).json["displayName"] as? String == "Alex Wilber")
        #expect(send("GET", "/v1.0/users?$select=displayName", bearer: access).values.count == 2)
        #expect(send("GET", "/v1.0/users/\(Demo.alex)/events", bearer: access).values.count == 4)
        #expect(send("GET", "/v1.0/me", bearer: access).errorMessage == "/me request is only valid with delegated authentication flow.")
    }
}
