@testable import Journal
import LocatedJSON
import EntraCrypto
import EntraHTTP
import FakeEntraApp
import Foundation
import ExchangeKernel
import IdentityPlatform
import Testing

/// Azure Resource Manager (what `az login` reads) and the managed-identity endpoints, through the whole
/// application as `serve` assembles it.
@Suite struct AzureServicesTests {
    let application: FakeEntraApplication
    static let host = "login.fake.test"

    init() throws {
        let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: try SigningCredential.generate()),
                                      clock: VirtualClock(frozenAt: Date(timeIntervalSince1970: 1_900_000_000)))
        application = FakeEntraApplication(service: service)
    }

    func send(_ target: String, method: String = "GET", headers: HTTPHeaders = [:], form: [(String, String)]? = nil, host: String = host) -> HTTPResponse {
        var h = headers
        h.set("Host", host)
        var body: [UInt8] = []
        if let form {
            h.set("Content-Type", "application/x-www-form-urlencoded")
            body = Array(FormParameters(form).encoded.utf8)
        }
        return application.responder.respond(to: HTTPRequest(method: method, target: target, headers: h, body: body),
                                             context: RequestContext(remoteAddress: "127.0.0.1", isSecure: true, localPort: 443))
    }

    static func json(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    static func claims(_ token: String?) -> [String: Any]? {
        guard let token, let decoded = JWS.decode(token) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(decoded.payloadJSON)) as? [String: Any]
    }

    func azureCLIToken(user: String = "adele.vance@contoso.onmicrosoft.com", authority: String = "organizations") -> String? {
        Self.json(send("/\(authority)/oauth2/v2.0/token", method: "POST", form: [
            ("grant_type", "password"), ("client_id", MicrosoftFirstParty.azureCLI), ("username", user),
            ("password", Directory.demoPassword), ("scope", "https://management.core.windows.net//.default"),
        ]))["access_token"] as? String
    }

    @Test func azLoginsTenantsAndSubscriptions() throws {
        let token = try #require(azureCLIToken())
        let bearer: HTTPHeaders = ["Authorization": "Bearer \(token)"]
        let tenants = send("/arm/tenants?api-version=2022-12-01", headers: bearer)
        #expect(tenants.status.code == 200)
        let tenant = try #require((Self.json(tenants)["value"] as? [[String: Any]])?.first)
        #expect(tenant["tenantId"] as? String == Directory.contosoTenantID && tenant["displayName"] as? String == "Contoso")
        #expect(tenant["defaultDomain"] as? String == "contoso.onmicrosoft.com")
        let subscriptions = Self.json(send("/arm/subscriptions?api-version=2019-11-01", headers: bearer))
        let subscription = try #require((subscriptions["value"] as? [[String: Any]])?.first)
        #expect(subscription["tenantId"] as? String == Directory.contosoTenantID && subscription["state"] as? String == "Enabled")
        let id = try #require(subscription["subscriptionId"] as? String)
        #expect(send("/arm/subscriptions/\(id)?api-version=2019-11-01", headers: bearer).status.code == 200)
        // On ARM's own host name every path is ARM's.
        #expect(send("/subscriptions?api-version=2019-11-01", headers: bearer, host: "management.azure.com").status.code == 200)
    }

    @Test func armRefusesAsARMDoes() throws {
        let token = try #require(azureCLIToken())
        #expect(Self.error(send("/arm/subscriptions", headers: ["Authorization": "Bearer \(token)"])) == "MissingApiVersionParameter")
        #expect(Self.error(send("/arm/subscriptions?api-version=2019-11-01")) == "AuthenticationFailed")
        let graph = try #require(Self.json(send("/organizations/oauth2/v2.0/token", method: "POST", form: [
            ("grant_type", "password"), ("client_id", MicrosoftFirstParty.azureCLI), ("username", "adele.vance@contoso.onmicrosoft.com"),
            ("password", Directory.demoPassword), ("scope", "https://graph.microsoft.com/.default"),
        ]))["access_token"] as? String)
        let wrongAudience = send("/arm/tenants?api-version=2022-12-01", headers: ["Authorization": "Bearer \(graph)"])
        #expect(wrongAudience.status.code == 401 && Self.error(wrongAudience) == "InvalidAuthenticationTokenAudience")
        // A personal account's token for the organisation's subscription: the wrong tenant.
        let contosoSubscription = try #require(Directory.embeddedDefault.tenant(id: Directory.contosoTenantID)?.azureSubscriptions.first?.subscriptionId)
        let personal = try #require(azureCLIToken(user: "megan@outlook.com", authority: "consumers"))
        #expect(Self.error(send("/arm/subscriptions/\(contosoSubscription)?api-version=2019-11-01", headers: ["Authorization": "Bearer \(personal)"])) == "InvalidAuthenticationTokenTenant")
        #expect(Self.error(send("/arm/resourcegroups?api-version=2021-04-01", headers: ["Authorization": "Bearer \(token)"])) == "InvalidResourceType")
        let metadata = Self.json(send("/arm/metadata/endpoints?api-version=2015-01-01"))
        #expect((metadata["authentication"] as? [String: Any])?["loginEndpoint"] as? String == "https://\(Self.host)/")
        // Read on ARM's own host name, where every path is ARM's: sign-in is at the listener itself.
        let onARMHost = Self.json(send("/metadata/endpoints?api-version=2022-09-01", host: "management.azure.com"))
        #expect((onARMHost["authentication"] as? [String: Any])?["loginEndpoint"] as? String == "https://localhost:443")
        #expect(onARMHost["resourceManager"] as? String == "https://management.azure.com/")
    }

    static func error(_ response: HTTPResponse) -> String? {
        (json(response)["error"] as? [String: Any])?["code"] as? String
    }

    @Test func imdsIssuesTheIdentitysTokenWithEveryMemberAString() throws {
        let response = send("/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com", headers: ["Metadata": "true"])
        #expect(response.status.code == 200)
        let body = Self.json(response)
        for member in ["expires_in", "expires_on", "ext_expires_in", "not_before", "resource", "token_type", "client_id"] {
            #expect(body[member] is String, "\(member)")
        }
        #expect(body["client_id"] as? String == ManagedIdentity.demoSystemClientID && body["resource"] as? String == "https://management.azure.com")
        let claims = try #require(Self.claims(body["access_token"] as? String))
        #expect(claims["aud"] as? String == "https://management.azure.com" && claims["idtyp"] as? String == "app" && claims["appidacr"] as? String == "2")
        #expect(claims["oid"] as? String == "a1b2c3d4-5e6f-4a8b-9c0d-1e2f3a4b5c6d" && claims["sub"] as? String == claims["oid"] as? String)
        #expect((claims["xms_mirid"] as? String)?.hasSuffix("/Microsoft.Compute/virtualMachines/demo-vm") == true)
        #expect(claims["iss"] as? String == "https://sts.windows.net/\(Directory.contosoTenantID)/")
        let user = Self.json(send("/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://vault.azure.net&client_id=\(ManagedIdentity.demoUserAssignedClientID)", headers: ["Metadata": "true"]))
        #expect(user["client_id"] as? String == ManagedIdentity.demoUserAssignedClientID)
    }

    /// Azure Arc's agent: a 401 naming its key file, then a token for whoever sends the file's content back
    /// (recorded 2020); a user-assigned identity's selector echoed, as MSAL requires.
    @Test func azureArcChallengesWithItsKeyFileThenAnswersTheStringsItRecorded() throws {
        let target = "/azurearc/metadata/identity/oauth2/token?api-version=2020-06-01&resource=https://vault.azure.net"
        let challenge = send(target, headers: ["Metadata": "true"])
        if challenge.status.code == 500 {
            // A user who may not create /var/opt/azcmagent/tokens: the endpoint says so instead of naming a file no client reads.
            #expect((Self.json(challenge)["error_description"] as? String)?.contains("could not write the Azure Arc key file /var/opt/azcmagent/tokens/") == true)
            return
        }
        #expect(challenge.status.code == 401)
        let realm = try #require(challenge.headers["WWW-Authenticate"]?.split(separator: "=", maxSplits: 1).last.map(String.init))
        #expect(challenge.headers["WWW-Authenticate"] == "Basic realm=" + realm && realm.hasPrefix("/var/opt/azcmagent/tokens/") && realm.hasSuffix(".key"))
        let refusal = Self.json(challenge)
        #expect(refusal["error"] as? String == "unauthorized_client" && refusal["error_codes"] as? [Int] == [401] && refusal["trace_id"] as? String == "")
        #expect((refusal["timestamp"] as? String)?.contains(" +0000 UTC m=+") == true)
        let key = try String(contentsOfFile: realm, encoding: .utf8)
        #expect(key.utf8.count <= 4096)
        #expect(send(target, headers: ["Metadata": "true", "Authorization": "Basic not-the-key"]).status.code == 401)
        let body = Self.json(send(target, headers: ["Metadata": "true", "Authorization": "Basic \(key)"]))
        for member in ["expires_in", "expires_on", "not_before"] { #expect(body[member] is String, "\(member)") }
        #expect(body["resource"] as? String == "" && body["token_type"] as? String == "Bearer" && body["client_id"] == nil)
        #expect(Self.claims(body["access_token"] as? String)?["aud"] as? String == "https://vault.azure.net")
        let user = Self.json(send(target + "&client_id=\(ManagedIdentity.demoUserAssignedClientID)", headers: ["Metadata": "true", "Authorization": "Basic \(key)"]))
        #expect(user["client_id"] as? String == ManagedIdentity.demoUserAssignedClientID, "the identity used, echoed")
    }

    /// Cloud Shell's endpoint answers for the person signed in to the shell, every member a string and the
    /// time left of the token it keeps (recorded 2020); an identity's id is ignored; an audience it does not
    /// serve is refused in the nested shape, with the code the receipt notes.
    @Test func cloudShellAnswersForThePersonSignedInToIt() throws {
        let first = send("/cloudshell/oauth2/token", method: "POST", headers: ["Metadata": "true"], form: [("resource", "https://management.core.windows.net/")])
        #expect(first.status.code == 200)
        let body = Self.json(first)
        #expect(Array(body.keys).sorted() == ["access_token", "expires_in", "expires_on", "not_before", "refresh_token", "resource", "token_type"])
        for member in ["expires_in", "expires_on", "not_before", "refresh_token"] { #expect(body[member] is String, "\(member)") }
        #expect(body["refresh_token"] as? String == "" && body["resource"] as? String == "https://management.core.windows.net/")
        let claims = try #require(Self.claims(body["access_token"] as? String))
        #expect(claims["upn"] as? String == "adele.vance@contoso.onmicrosoft.com" && claims["idtyp"] as? String == "user")
        #expect(claims["appid"] as? String == "b677c290-cf4b-4a8e-a60e-91ba650a4abe" && claims["app_displayname"] as? String == "AzurePortal Console App")
        #expect(claims["aud"] as? String == "https://management.core.windows.net/")

        let clock = try #require(application.service.clock as? VirtualClock)
        clock.advance(by: 600)
        let kept = Self.json(send("/cloudshell/oauth2/token?resource=https://management.core.windows.net/&client_id=\(ManagedIdentity.demoUserAssignedClientID)"))
        #expect(kept["access_token"] as? String == body["access_token"] as? String, "the kept token, a user-assigned identity's id ignored")
        #expect(Int(kept["expires_in"] as? String ?? "") == Int(body["expires_in"] as? String ?? "")! - 600, "the time left of it")

        let refused = send("/cloudshell/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://azconfig.io/", headers: ["Metadata": "true"])
        #expect(refused.status.code == 400)
        #expect((Self.json(refused)["error"] as? [String: String]) == ["code": "AudienceNotSupported", "message": "Audience https://azconfig.io/ is not a supported MSI token audience."])
        #expect(refused.statedError?.code == "AudienceNotSupported")
        let put = send("/cloudshell/oauth2/token?resource=https://management.core.windows.net/", method: "PUT")
        #expect(put.status.code == 405 && (Self.json(put)["error"] as? [String: String])?["code"] == "MethodNotAllowed")
    }

    /// The endpoint hands out the token it issued until five minutes before its expiry, then a new one.
    @Test func imdsKeepsItsTokenUntilItIsAboutToExpire() throws {
        let target = "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com"
        func token() -> String? { Self.json(send(target, headers: ["Metadata": "true"]))["access_token"] as? String }
        let first = try #require(token())
        #expect(token() == first)
        let clock = try #require(application.service.clock as? VirtualClock)
        let lifetime = try #require(Self.claims(first)?["exp"] as? Int) - Int(clock.now().timeIntervalSince1970)
        clock.advance(by: TimeInterval(lifetime - 301))
        #expect(token() == first, "still more than five minutes to go")
        clock.advance(by: 2)
        #expect(token() != first, "renewed within five minutes of its expiry")
        // A key rolled away from at once: the kept token would no longer validate, so a new one comes.
        let kept = try #require(token())
        #expect(token() == kept)
        application.service.keys.roll(to: try SigningCredential.generate())
        #expect(token() != kept)
    }

    @Test func imdsAndAppServiceRefuseAsRecorded() {
        let noHeader = send("/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com")
        #expect(noHeader.status.code == 400 && Self.json(noHeader)["error_description"] as? String == "Required metadata header not specified")
        let forwarded = send("/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com", headers: ["Metadata": "true", "X-Forwarded-For": "203.0.113.7"])
        #expect(forwarded.status.code == 400 && Self.json(forwarded)["access_token"] == nil, "IMDS rejects a request relayed by a proxy")
        let unknown = send("/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com&client_id=0d0d0d0d-0000-4000-8000-000000000000", headers: ["Metadata": "true"])
        #expect(Self.json(unknown)["error_description"] as? String == "Identity not found")
        #expect(unknown.headers["x-ms-request-id"]?.count == 36 && noHeader.headers["x-ms-request-id"] != unknown.headers["x-ms-request-id"], "IMDS names each answer (2025)")
        let appService = send("/msi/token?api-version=2019-08-01&resource=https://vault.azure.net", headers: ["X-IDENTITY-HEADER": "fakeentra-identity-header"])
        let body = Self.json(appService)
        #expect(appService.status.code == 200 && body["expires_in"] == nil && body["expires_on"] is String && body["resource"] as? String == "https://vault.azure.net")
        let wrongSecret = send("/msi/token?api-version=2019-08-01&resource=https://vault.azure.net", headers: ["X-IDENTITY-HEADER": "guess"])
        #expect(wrongSecret.status.code == 401 && Self.json(wrongSecret)["statusCode"] as? Int == 401)
    }

    /// Both endpoints ask Entra for the token, so a resource Entra does not know is never minted: IMDS relays
    /// Entra's AADSTS500011 as the token endpoint words it, App Service answers its own generic 500 (as
    /// recorded from both).
    @Test(arguments: ["https://nonexistent.invalid", "https://" + String(repeating: "a", count: 2000) + ".example"])
    func managedIdentityRefusesAnUnknownResource(resource: String) {
        let encoded = FormCoding.encodeComponent(resource)
        let imds = send("/metadata/identity/oauth2/token?api-version=2018-02-01&resource=\(encoded)", headers: ["Metadata": "true"])
        let imdsBody = Self.json(imds)
        #expect(imds.status.code == 400 && imdsBody["error"] as? String == "invalid_resource" && imdsBody["access_token"] == nil)
        #expect((imdsBody["error_description"] as? String)?.hasPrefix("AADSTS500011: The resource principal named https://") == true)
        #expect(imdsBody["error_codes"] as? [Int] == [500011] && imdsBody["correlation_id"] is String)
        let appService = send("/msi/token?api-version=2019-08-01&resource=\(encoded)", headers: ["X-IDENTITY-HEADER": "fakeentra-identity-header"])
        let appServiceBody = Self.json(appService)
        #expect(appService.status.code == 500 && appServiceBody["access_token"] == nil && appServiceBody["statusCode"] as? Int == 500)
        #expect(appServiceBody["message"] as? String == "An unexpected error occured while fetching the AAD Token." && appServiceBody["correlationId"] is String)
    }

    /// The journal keeps what a managed-identity request needs to be replayed (`Metadata: true`), and App
    /// Service's identity secret only redacted.
    @Test func theJournalKeepsManagedIdentityHeaders() throws {
        _ = send("/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com", headers: ["Metadata": "true"])
        _ = send("/msi/token?api-version=2019-08-01&resource=https://vault.azure.net", headers: ["X-IDENTITY-HEADER": "fakeentra-identity-header"])
        let entries = application.journal.entries()
        let imds = try #require(entries.first { $0.path.hasPrefix("/metadata/identity") })
        #expect(imds.requestHeaders.contains { $0.0.lowercased() == "metadata" && $0.1 == "true" })
        let appService = try #require(entries.first { $0.path == "/msi/token" })
        let secret = try #require(appService.requestHeaders.first { $0.0.lowercased() == "x-identity-header" }?.1)
        #expect(secret.hasPrefix("[redacted") && !secret.contains("fakeentra-identity-header"))
        #expect(!entries.map(\.value.compactText).joined().contains("fakeentra-identity-header"), "nowhere in the journal")
    }
}
