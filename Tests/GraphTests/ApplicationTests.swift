import EntraHTTP
import Foundation
@testable import Graph
import IdentityPlatform
import Testing

/// App registrations as Graph's `/applications` shows them (application-list, application-get).
@Suite("Applications") struct ApplicationTests {
    static let webID = "7c0a5f1e-2b3d-4c4e-8f5a-6b7c8d9e0f1a", apiID = "8d1b6a2f-3c4e-4d5f-9a6b-7c8d9e0f1a2b"
    let fixture: GraphFixture = {
        var directory = Directory.embeddedDefault
        directory.applications += [
            Application(clientID: ApplicationTests.webID, displayName: "Contoso Web", tenantID: Demo.tenant, isPublicClient: false,
                        secrets: [.init(value: "abc~secret", expiresAt: Date(timeIntervalSince1970: 1_900_000_000))], redirectURIs: ["https://web.contoso.test/signin-oidc"],
                        requiredResourceAccess: [.init(resource: "https://graph.microsoft.com", scopes: ["User.Read", "Mail.Read"]),
                                                 .init(resource: "api://contoso-api", scopes: ["Orders.Read"])],
                        spaRedirectURIs: ["https://web.contoso.test/spa"]),
            Application(clientID: ApplicationTests.apiID, displayName: "Contoso API", tenantID: Demo.tenant, isPublicClient: false,
                        identifierURIs: ["api://contoso-api"], exposedScopes: ["Orders.Read"], appRoles: ["Orders.Manage"], accessTokenAcceptedVersion: 2),
            Application(clientID: "9e2c7b3a-4d5f-4e6a-8b7c-8d9e0f1a2b3c", displayName: "Other tenant's", tenantID: "aaaaaaaa-0000-4000-8000-000000000099"),
        ]
        return GraphFixture(directory: directory)
    }()

    @Test func listedWithTheirPlatformsSecretsHintsAndPermissions() throws {
        let token = fixture.token(scopes: "Application.Read.All")
        let all = fixture.get("/v1.0/applications", token: token)
        #expect(all.status == .ok && all.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#applications")
        #expect(all.values.map { $0["displayName"] as? String } == ["Contoso Web", "Contoso API"], "the token's tenant only")
        let web = try #require(all.values.first)
        #expect(web["appId"] as? String == Self.webID && web["id"] as? String != Self.webID, "an object id of its own")
        #expect(web["signInAudience"] as? String == "AzureADMyOrg" && web["publisherDomain"] as? String == "contoso.onmicrosoft.com")
        #expect((web["web"] as? [String: Any])?["redirectUris"] as? [String] == ["https://web.contoso.test/signin-oidc"])
        #expect((web["spa"] as? [String: Any])?["redirectUris"] as? [String] == ["https://web.contoso.test/spa"])
        let secret = try #require((web["passwordCredentials"] as? [[String: Any]])?.first)
        #expect(secret["hint"] as? String == "abc" && secret["secretText"] is NSNull && (secret["endDateTime"] as? String)?.hasPrefix("2030-03-17T") == true)
        let access = try #require(web["requiredResourceAccess"] as? [[String: Any]])
        #expect(access.map { $0["resourceAppId"] as? String } == [Resource.graphAppID, Self.apiID])
        let graphIDs = (access[0]["resourceAccess"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(graphIDs?.first == "e1fe6dd8-ba31-4d61-89e7-88639da4683d", "User.Read's id on Graph")
        let api = try #require(all.values.last)
        let scopes = try #require((api["api"] as? [String: Any])?["oauth2PermissionScopes"] as? [[String: Any]])
        #expect(scopes.map { $0["value"] as? String } == ["Orders.Read"] && (api["api"] as? [String: Any])?["requestedAccessTokenVersion"] as? Int == 2)
        #expect((access[1]["resourceAccess"] as? [[String: Any]])?.first?["id"] as? String == scopes.first?["id"] as? String,
                "a client's permission and the API's scope are one id")
        #expect((api["appRoles"] as? [[String: Any]])?.first?["value"] as? String == "Orders.Manage")
        #expect(fixture.get("/v1.0/applications", token: fixture.token(scopes: "User.Read")).status == .forbidden)
    }

    @Test func readByObjectIdOrAppIdAndQueried() throws {
        let token = fixture.token(scopes: "Application.Read.All")
        let byAppID = fixture.get("/v1.0/applications(appId='\(Self.apiID)')", token: token)
        #expect(byAppID.status == .ok && byAppID.json["displayName"] as? String == "Contoso API")
        #expect(byAppID.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#applications/$entity")
        let id = try #require(byAppID.json["id"] as? String)
        #expect(fixture.get("/v1.0/applications/\(id)?$select=appId", token: token).json["appId"] as? String == Self.apiID)
        #expect(fixture.get("/v1.0/applications/\(UUID().uuidString.lowercased())", token: token).errorCode == "Request_ResourceNotFound")
        let filtered = fixture.get("/v1.0/applications?$filter=identifierUris/any(x:x%20eq%20%27api://contoso-api%27)&$select=displayName", token: token)
        #expect(filtered.values.map { $0["displayName"] as? String } == ["Contoso API"])
        #expect(fixture.get("/v1.0/applications?$filter=appId%20eq%20%27\(Self.webID)%27", token: token).values.count == 1)
        let eventual = [("ConsistencyLevel", "eventual")]
        #expect(fixture.get("/v1.0/applications?$search=%22displayName:Browser%22", token: token).errorCode == "Request_UnsupportedQuery")
        let searched = fixture.get("/v1.0/applications?$search=%22displayName:api%22&$count=true", token: token, headers: eventual)
        #expect(searched.values.map { $0["displayName"] as? String } == ["Contoso API"] && searched.json["@odata.count"] as? Int == 1)
        #expect(String(decoding: fixture.get("/v1.0/applications/$count", token: token, headers: eventual).body, as: UTF8.self) == "2")
    }
}
