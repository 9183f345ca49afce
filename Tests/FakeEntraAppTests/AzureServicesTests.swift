import EntraCrypto
import EntraHTTP
import FakeEntraTesting
import Foundation
import IdentityPlatform
import Testing

/// Azure Resource Manager (what `az login` reads) and the managed-identity endpoints, through
/// FakeEntraTesting: in process, and over TLS where a request needs no other host name than the listener's.
@Suite struct AzureServicesTests {
    static let modes: [FakeEntraTestingMode] = [.router, .live]

    static let frozen = Date(timeIntervalSince1970: 1_900_000_000)

    /// A fresh server on a frozen clock, reached in `mode`.
    func onServer(_ mode: FakeEntraTestingMode = .router, _ body: (FakeEntraClient) async throws -> Void) async throws {
        try await onFakeEntra(mode, frozenAt: Self.frozen, body)
    }

    static func json(_ response: FakeEntraResponse) -> [String: Any] { (try? response.json()) ?? [:] }

    static func claims(_ token: String?) -> [String: Any]? {
        guard let token, let decoded = JWS.decode(token) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(decoded.payloadJSON)) as? [String: Any]
    }

    static func azureCLIToken(_ client: FakeEntraClient, user: String = "adele.vance@contoso.onmicrosoft.com", authority: String = "organizations",
                              scope: String = "https://management.core.windows.net//.default") async throws -> String? {
        json(try await client.execute(.post, "/\(authority)/oauth2/v2.0/token", form: [
            "grant_type": "password", "client_id": MicrosoftFirstParty.azureCLI, "username": user, "password": Directory.demoPassword, "scope": scope,
        ]))["access_token"] as? String
    }

    static func imds(_ client: FakeEntraClient, _ query: String = "resource=https://management.azure.com") async throws -> FakeEntraResponse {
        try await client.execute(.get, "/metadata/identity/oauth2/token?api-version=2018-02-01&\(query)", headers: ["Metadata": "true"])
    }

    @Test func azLoginsTenantsAndSubscriptions() async throws {
        try await onServer { client in
            let token = try #require(try await Self.azureCLIToken(client))
            let tenants = try await client.execute(.get, "/arm/tenants?api-version=2022-12-01", headers: ["Authorization": "Bearer \(token)"])
            #expect(tenants.status == 200)
            let tenant = try #require((Self.json(tenants)["value"] as? [[String: Any]])?.first)
            #expect(tenant["tenantId"] as? String == Directory.contosoTenantID && tenant["displayName"] as? String == "Contoso")
            #expect(tenant["defaultDomain"] as? String == "contoso.onmicrosoft.com")
            let subscriptions = Self.json(try await client.execute(.get, "/arm/subscriptions?api-version=2019-11-01", headers: ["Authorization": "Bearer \(token)"]))
            let subscription = try #require((subscriptions["value"] as? [[String: Any]])?.first)
            #expect(subscription["tenantId"] as? String == Directory.contosoTenantID && subscription["state"] as? String == "Enabled")
            let id = try #require(subscription["subscriptionId"] as? String)
            #expect(try await client.execute(.get, "/arm/subscriptions/\(id)?api-version=2019-11-01", headers: ["Authorization": "Bearer \(token)"]).status == 200)
            // On ARM's own host name every path is ARM's.
            let onARMHost = try await client.execute(.get, "/subscriptions?api-version=2019-11-01",
                                                     headers: ["Authorization": "Bearer \(token)", "Host": "management.azure.com"])
            #expect(onARMHost.status == 200)
        }
    }

    @Test func armRefusesAsARMDoes() async throws {
        try await onServer { client in
            let token = try #require(try await Self.azureCLIToken(client))
            #expect(nestedErrorCode(try await client.execute(.get, "/arm/subscriptions", headers: ["Authorization": "Bearer \(token)"])) == "MissingApiVersionParameter")
            #expect(nestedErrorCode(try await client.execute(.get, "/arm/subscriptions?api-version=2019-11-01")) == "AuthenticationFailed")
            let graph = try #require(try await Self.azureCLIToken(client, scope: "https://graph.microsoft.com/.default"))
            let wrongAudience = try await client.execute(.get, "/arm/tenants?api-version=2022-12-01", headers: ["Authorization": "Bearer \(graph)"])
            #expect(wrongAudience.status == 401 && nestedErrorCode(wrongAudience) == "InvalidAuthenticationTokenAudience")
            // A personal account's token for the organisation's subscription: the wrong tenant.
            let contosoSubscription = try #require(Directory.embeddedDefault.tenant(id: Directory.contosoTenantID)?.azureSubscriptions.first?.subscriptionId)
            let personal = try #require(try await Self.azureCLIToken(client, user: "megan@outlook.com", authority: "consumers"))
            #expect(nestedErrorCode(try await client.execute(.get, "/arm/subscriptions/\(contosoSubscription)?api-version=2019-11-01",
                                                        headers: ["Authorization": "Bearer \(personal)"])) == "InvalidAuthenticationTokenTenant")
            #expect(nestedErrorCode(try await client.execute(.get, "/arm/resourcegroups?api-version=2021-04-01", headers: ["Authorization": "Bearer \(token)"])) == "InvalidResourceType")
            let metadata = Self.json(try await client.execute(.get, "/arm/metadata/endpoints?api-version=2015-01-01"))
            #expect((metadata["authentication"] as? [String: Any])?["loginEndpoint"] as? String == "\(client.baseURL)/")
            // Read on ARM's own host name, where every path is ARM's: sign-in is at the listener itself.
            let onARMHost = Self.json(try await client.execute(.get, "/metadata/endpoints?api-version=2022-09-01", headers: ["Host": "management.azure.com"]))
            #expect((onARMHost["authentication"] as? [String: Any])?["loginEndpoint"] as? String == "https://localhost:443")
            #expect(onARMHost["resourceManager"] as? String == "https://management.azure.com/")
        }
    }

    @Test(arguments: modes) func imdsIssuesTheIdentitysTokenWithEveryMemberAString(mode: FakeEntraTestingMode) async throws {
        try await onServer(mode) { client in
            let response = try await Self.imds(client)
            #expect(response.status == 200)
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
            let user = Self.json(try await Self.imds(client, "resource=https://vault.azure.net&client_id=\(ManagedIdentity.demoUserAssignedClientID)"))
            #expect(user["client_id"] as? String == ManagedIdentity.demoUserAssignedClientID)
        }
    }

    /// Azure Arc's agent: a 401 naming its key file, then a token for whoever sends the file's content back
    /// (recorded 2020); a user-assigned identity's selector echoed, as MSAL requires.
    @Test(arguments: modes) func azureArcChallengesWithItsKeyFileThenAnswersTheStringsItRecorded(mode: FakeEntraTestingMode) async throws {
        try await onServer(mode) { client in
            let target = "/azurearc/metadata/identity/oauth2/token?api-version=2020-06-01&resource=https://vault.azure.net"
            let challenge = try await client.execute(.get, target, headers: ["Metadata": "true"])
            if challenge.status == 500 {
                // A user who may not create /var/opt/azcmagent/tokens: the endpoint says so instead of naming a file no client reads.
                #expect((Self.json(challenge)["error_description"] as? String)?.contains("could not write the Azure Arc key file /var/opt/azcmagent/tokens/") == true)
                return
            }
            #expect(challenge.status == 401)
            let header = try #require(challenge.header("WWW-Authenticate"))
            let realm = try #require(header.split(separator: "=", maxSplits: 1).last.map(String.init))
            #expect(header == "Basic realm=" + realm && realm.hasPrefix("/var/opt/azcmagent/tokens/") && realm.hasSuffix(".key"))
            let refusal = Self.json(challenge)
            #expect(refusal["error"] as? String == "unauthorized_client" && refusal["error_codes"] as? [Int] == [401] && refusal["trace_id"] as? String == "")
            #expect((refusal["timestamp"] as? String)?.contains(" +0000 UTC m=+") == true)
            let key = try String(contentsOfFile: realm, encoding: .utf8)
            #expect(key.utf8.count <= 4096)
            #expect(try await client.execute(.get, target, headers: ["Metadata": "true", "Authorization": "Basic not-the-key"]).status == 401)
            let body = Self.json(try await client.execute(.get, target, headers: ["Metadata": "true", "Authorization": "Basic \(key)"]))
            for member in ["expires_in", "expires_on", "not_before"] { #expect(body[member] is String, "\(member)") }
            #expect(body["resource"] as? String == "" && body["token_type"] as? String == "Bearer" && body["client_id"] == nil)
            #expect(Self.claims(body["access_token"] as? String)?["aud"] as? String == "https://vault.azure.net")
            let user = Self.json(try await client.execute(.get, target + "&client_id=\(ManagedIdentity.demoUserAssignedClientID)",
                                                          headers: ["Metadata": "true", "Authorization": "Basic \(key)"]))
            #expect(user["client_id"] as? String == ManagedIdentity.demoUserAssignedClientID, "the identity used, echoed")
        }
    }

    /// Cloud Shell's endpoint answers for the person signed in to the shell, every member a string and the
    /// time left of the token it keeps (recorded 2020); an identity's id is ignored; an audience it does not
    /// serve is refused in the nested shape, with the code the journal's receipt notes.
    @Test(arguments: modes) func cloudShellAnswersForThePersonSignedInToIt(mode: FakeEntraTestingMode) async throws {
        try await onServer(mode) { client in
            let first = try await client.execute(.post, "/cloudshell/oauth2/token", headers: ["Metadata": "true"], form: ["resource": "https://management.core.windows.net/"])
            #expect(first.status == 200)
            let body = Self.json(first)
            #expect(Array(body.keys).sorted() == ["access_token", "expires_in", "expires_on", "not_before", "refresh_token", "resource", "token_type"])
            for member in ["expires_in", "expires_on", "not_before", "refresh_token"] { #expect(body[member] is String, "\(member)") }
            #expect(body["refresh_token"] as? String == "" && body["resource"] as? String == "https://management.core.windows.net/")
            let claims = try #require(Self.claims(body["access_token"] as? String))
            #expect(claims["upn"] as? String == "adele.vance@contoso.onmicrosoft.com" && claims["idtyp"] as? String == "user")
            #expect(claims["appid"] as? String == "b677c290-cf4b-4a8e-a60e-91ba650a4abe" && claims["app_displayname"] as? String == "AzurePortal Console App")
            #expect(claims["aud"] as? String == "https://management.core.windows.net/")

            try await client.advanceClock(by: 600)
            let kept = Self.json(try await client.execute(.get, "/cloudshell/oauth2/token?resource=https://management.core.windows.net/&client_id=\(ManagedIdentity.demoUserAssignedClientID)"))
            #expect(kept["access_token"] as? String == body["access_token"] as? String, "the kept token, a user-assigned identity's id ignored")
            #expect(Int(kept["expires_in"] as? String ?? "") == Int(body["expires_in"] as? String ?? "")! - 600, "the time left of it")

            let refused = try await client.execute(.get, "/cloudshell/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://azconfig.io/", headers: ["Metadata": "true"])
            #expect(refused.status == 400)
            #expect((Self.json(refused)["error"] as? [String: String]) == ["code": "AudienceNotSupported", "message": "Audience https://azconfig.io/ is not a supported MSI token audience."])
            let entries = Self.json(try await client.execute(.get, "/_fakeentra/journal?status=400"))["entries"] as? [[String: Any]]
            #expect((entries?.last?["receipt"] as? [String: Any])?["error"] as? String == "AudienceNotSupported")
            let put = try await client.execute(.put, "/cloudshell/oauth2/token?resource=https://management.core.windows.net/")
            #expect(put.status == 405 && (Self.json(put)["error"] as? [String: String])?["code"] == "MethodNotAllowed")
        }
    }

    /// The endpoint hands out the token it issued until five minutes before its expiry, then a new one; a
    /// signing key rolled away from at once (a scenario's `rollSigningKey`) ends the kept token too.
    @Test func imdsKeepsItsTokenUntilItIsAboutToExpire() async throws {
        try await onServer { client in
            func token() async throws -> String? { Self.json(try await Self.imds(client))["access_token"] as? String }
            let first = try #require(try await token())
            #expect(try await token() == first)
            let lifetime = try #require(Self.claims(first)?["exp"] as? Int) - Int(try await client.now().timeIntervalSince1970)
            try await client.advanceClock(by: TimeInterval(lifetime - 301))
            #expect(try await token() == first, "still more than five minutes to go")
            try await client.advanceClock(by: 2)
            #expect(try await token() != first, "renewed within five minutes of its expiry")
            // A world whose key rolls away at its second token request: the kept token would no longer validate.
            try await client.bind(scenario: "signing-key-rollover", to: .server)
            let kept = try #require(try await token())
            #expect(try await token() == kept)
            _ = try await Self.azureCLIToken(client)
            _ = try await Self.azureCLIToken(client)
            let renewed = try #require(try await token())
            #expect(renewed != kept && Self.kid(renewed) != Self.kid(kept), "a new token, signed with the new key")
        }
    }

    static func kid(_ token: String) -> String? { JWS.decode(token)?.keyID }

    @Test(arguments: modes) func imdsAndAppServiceRefuseAsRecorded(mode: FakeEntraTestingMode) async throws {
        try await onServer(mode) { client in
            let noHeader = try await client.execute(.get, "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com")
            #expect(noHeader.status == 400 && Self.json(noHeader)["error_description"] as? String == "Required metadata header not specified")
            let forwarded = try await client.execute(.get, "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com",
                                                     headers: ["Metadata": "true", "X-Forwarded-For": "203.0.113.7"])
            #expect(forwarded.status == 400 && Self.json(forwarded)["access_token"] == nil, "IMDS rejects a request relayed by a proxy")
            let unknown = try await Self.imds(client, "resource=https://management.azure.com&client_id=0d0d0d0d-0000-4000-8000-000000000000")
            #expect(Self.json(unknown)["error_description"] as? String == "Identity not found")
            #expect(unknown.header("x-ms-request-id")?.count == 36 && noHeader.header("x-ms-request-id") != unknown.header("x-ms-request-id"), "IMDS names each answer (2025)")
            let appService = try await client.execute(.get, "/msi/token?api-version=2019-08-01&resource=https://vault.azure.net", headers: ["X-IDENTITY-HEADER": "fakeentra-identity-header"])
            let body = Self.json(appService)
            #expect(appService.status == 200 && body["expires_in"] == nil && body["expires_on"] is String && body["resource"] as? String == "https://vault.azure.net")
            let wrongSecret = try await client.execute(.get, "/msi/token?api-version=2019-08-01&resource=https://vault.azure.net", headers: ["X-IDENTITY-HEADER": "guess"])
            #expect(wrongSecret.status == 401 && Self.json(wrongSecret)["statusCode"] as? Int == 401)
        }
    }

    /// Both endpoints ask Entra for the token, so a resource Entra does not know is never minted: IMDS relays
    /// Entra's AADSTS500011 as the token endpoint words it, App Service answers its own generic 500 (as
    /// recorded from both).
    @Test(arguments: ["https://nonexistent.invalid", "https://" + String(repeating: "a", count: 2000) + ".example"])
    func managedIdentityRefusesAnUnknownResource(resource: String) async throws {
        try await onServer { client in
            let encoded = FormCoding.encodeComponent(resource)
            let imds = try await Self.imds(client, "resource=\(encoded)")
            let imdsBody = Self.json(imds)
            #expect(imds.status == 400 && imdsBody["error"] as? String == "invalid_resource" && imdsBody["access_token"] == nil)
            #expect((imdsBody["error_description"] as? String)?.hasPrefix("AADSTS500011: The resource principal named https://") == true)
            #expect(imdsBody["error_codes"] as? [Int] == [500011] && imdsBody["correlation_id"] is String)
            let appService = try await client.execute(.get, "/msi/token?api-version=2019-08-01&resource=\(encoded)", headers: ["X-IDENTITY-HEADER": "fakeentra-identity-header"])
            let appServiceBody = Self.json(appService)
            #expect(appService.status == 500 && appServiceBody["access_token"] == nil && appServiceBody["statusCode"] as? Int == 500)
            #expect(appServiceBody["message"] as? String == "An unexpected error occured while fetching the AAD Token." && appServiceBody["correlationId"] is String)
        }
    }

    /// The journal keeps what a managed-identity request needs to be replayed (`Metadata: true`), and App
    /// Service's identity secret only redacted, as the control API hands the journal out.
    @Test(arguments: modes) func theJournalKeepsManagedIdentityHeaders(mode: FakeEntraTestingMode) async throws {
        try await onServer(mode) { client in
            _ = try await Self.imds(client)
            _ = try await client.execute(.get, "/msi/token?api-version=2019-08-01&resource=https://vault.azure.net", headers: ["X-IDENTITY-HEADER": "fakeentra-identity-header"])
            let journal = try await client.execute(.get, "/_fakeentra/journal")
            let entries = try #require(Self.json(journal)["entries"] as? [[String: Any]])
            func requestHeaders(_ entry: [String: Any]?) -> [String: Any] { ((entry?["request"] as? [String: Any])?["headers"] as? [String: Any]) ?? [:] }
            let imds = requestHeaders(entries.first { ($0["path"] as? String)?.hasPrefix("/metadata/identity") == true })
            #expect(imds.contains { $0.key.lowercased() == "metadata" && "\($0.value)".contains("true") }, "\(imds)")
            let appService = requestHeaders(entries.first { $0["path"] as? String == "/msi/token" })
            let secret = try #require(appService.first { $0.key.lowercased() == "x-identity-header" }.map { "\($0.value)" })
            #expect(secret.contains("[redacted") && !secret.contains("fakeentra-identity-header"))
            #expect(!journal.text.contains("fakeentra-identity-header"), "nowhere in the journal")
        }
    }
}
