import IdentityFixtures
import EntraHTTP
import Foundation
@testable import IdentityPlatform
import Testing

/// Microsoft's first-party apps are in every directory: the Azure CLI signs in for Azure Resource Manager
/// and Graph without a consent page and gets family refresh tokens, as in a real tenant.
@Suite struct FirstPartyAppsTests {
    typealias F = TokenFixtures

    static func ropc(_ clientID: String, scope: String, service: IdentityService, path: String = F.tokenPath) -> HTTPResponse {
        F.send(F.post(path, [("grant_type", "password"), ("client_id", clientID), ("username", "adele.vance@contoso.onmicrosoft.com"),
                             ("password", Directory.demoPassword), ("scope", scope)]), to: service)
    }

    @Test func theAzureCLIGetsAnARMTokenWithoutConsentAndAFamilyRefreshToken() throws {
        let (service, _) = F.service()
        let response = Self.ropc(MicrosoftFirstParty.azureCLI, scope: "https://management.core.windows.net//.default openid profile offline_access", service: service)
        #expect(response.status.code == 200)
        let body = F.json(response)
        #expect(body["foci"] as? String == "1" && body["refresh_token"] != nil)
        let access = try #require(F.claims(body["access_token"] as? String))
        #expect(access["aud"] as? String == "https://management.core.windows.net/")
        #expect(access["scp"] as? String == "user_impersonation")
        #expect(access["iss"] as? String == "https://sts.windows.net/\(F.contoso)/")
        #expect(access["app_displayname"] as? String == "Microsoft Azure CLI")
    }

    @Test func firstPartyClientsNeedNoConsentOnGraphButDoOnSomeoneElsesAPI() {
        let (service, _) = F.service()
        let graph = Self.ropc(MicrosoftFirstParty.azurePowerShell, scope: "https://graph.microsoft.com/.default offline_access", service: service)
        #expect(graph.status.code == 200)
        #expect(F.json(graph)["foci"] as? String == "1")
        // A client that is not Microsoft's, asking for a permission it was never granted: consent required.
        #expect(F.errorCode(Self.ropc("5a1b2c3d-0000-4000-8000-00000000abcd", scope: "openid Mail.Read", service: service)) == 65001)
    }

    @Test func armAndTheOtherResourcesAnswerToTheirNames() {
        let directory = Directory.embeddedDefault
        #expect(directory.resource(named: "https://management.azure.com/")?.appID == MicrosoftFirstParty.armAppID)
        #expect(directory.resource(named: "https://management.core.windows.net")?.appID == MicrosoftFirstParty.armAppID)
        #expect(directory.resource(named: "https://vault.azure.net")?.displayName == "Azure Key Vault")
        #expect(directory.resource(named: "https://database.windows.net/")?.appID == "022907d3-0f1b-48f7-badc-1ba6abab6d66")
        #expect(directory.application(clientID: "04B07795-8DDB-461A-BBEE-02F9E1BF7B46")?.familyID == "1")
        #expect(directory.application(clientID: "aebc6443-996d-45c2-90f0-388ff96faa56")?.familyID == nil)
    }

    @Test func aConfiguredAppWithAFirstPartyIdIsTheConfiguredOne() {
        var directory = Directory.embeddedDefault
        directory.applications.append(Application(clientID: MicrosoftFirstParty.azureCLI, displayName: "My own CLI"))
        #expect(directory.application(clientID: MicrosoftFirstParty.azureCLI)?.displayName == "My own CLI")
        #expect(directory.application(clientID: MicrosoftFirstParty.azureCLI)?.familyID == nil)
    }

    @Test func v1MetadataIsV1sOwnDocument() {
        let (service, _) = F.service()
        let response = F.send(F.get("/common/.well-known/openid-configuration"), to: service)
        let m = F.json(response)
        #expect(m["issuer"] as? String == "https://sts.windows.net/{tenantid}/")
        #expect(m["response_types_supported"] as? [String] == ["code", "id_token", "code id_token", "token id_token", "token"])
        #expect(m["scopes_supported"] as? [String] == ["openid"])
        #expect(m["code_challenge_methods_supported"] as? [String] == ["plain", "S256"])
        #expect((m["userinfo_endpoint"] as? String)?.hasSuffix("/common/openid/userinfo") == true)
        #expect(m["request_uri_parameter_supported"] == nil)
        #expect(response.headers["Access-Control-Allow-Methods"] == "GET, OPTIONS")
        #expect(response.headers["x-ms-ests-server"] != nil)
        let keys = F.json(F.send(F.get("/common/discovery/v2.0/keys"), to: service))["keys"] as? [[String: Any]]
        #expect(keys?.first?["cloud_instance_name"] as? String == "microsoftonline.com")
    }

    @Test func aMalformedCodeAndAV1DeviceGrantWithoutItsCode() {
        let (service, _) = F.service()
        let malformed = F.send(F.post(F.tokenPath, [("grant_type", "authorization_code"), ("client_id", F.nativeAppID), ("code", "0.AQ%2Fabc")]), to: service)
        #expect(F.errorCode(malformed) == 9002313 && F.json(malformed)["error"] as? String == "invalid_grant")
        let v1 = F.send(F.post("/\(F.contoso)/oauth2/token", [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("client_id", F.nativeAppID)]), to: service)
        #expect(F.errorCode(v1) == 900144 && (F.json(v1)["error_description"] as? String)?.contains("parameter: 'code'") == true)
        #expect(v1.headers["x-ms-clitelem"] == "1,900144,0,," && v1.headers["Expires"] == "-1")
    }
}

/// An app's `groupMembershipClaims` puts the user's groups in its tokens; past 200 the overage form.
@Suite struct GroupClaimTests {
    typealias F = TokenFixtures

    static func tokens(directory: Directory, setting: GroupMembershipClaims) throws -> [String: Any] {
        var directory = directory
        var app = Application(clientID: "6a1b2c3d-0000-4000-8000-0000000000ee", displayName: "Groups app")
        app.groupMembershipClaims = setting
        directory.applications.append(app)
        directory.consents.append(ConsentGrant(clientID: app.clientID, resourceAppID: Resource.graphAppID, userID: nil, tenantID: Directory.contosoTenantID, scopes: ["User.Read"]))
        let (service, _) = F.service(directory: directory)
        let response = F.send(F.post(F.tokenPath, [("grant_type", "password"), ("client_id", app.clientID), ("username", "adele.vance@contoso.onmicrosoft.com"),
                                                   ("password", Directory.demoPassword), ("scope", "openid User.Read")]), to: service)
        return try #require(F.claims(F.json(response)["access_token"] as? String))
    }

    @Test func securityGroupsNestedOnesIncluded() throws {
        let claims = try Self.tokens(directory: .embeddedDefault, setting: .securityGroup)
        #expect(Set(claims["groups"] as? [String] ?? []) == ["2f0b6a1c-3d4e-4f5a-8b6c-7d8e9f0a1b2c", "4b2d8c3e-5f6a-4b7c-8d8e-9f0a1b2c3d4e"])
        let all = try Self.tokens(directory: .embeddedDefault, setting: .all)
        #expect((all["groups"] as? [String])?.count == 3)
    }

    @Test func pastTwoHundredTheOverageFormPointsAtGetMemberObjects() throws {
        var directory = Directory.embeddedDefault
        let adele = "6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51"
        for index in 0..<201 {
            directory.groups.append(DirectoryGroup(id: String(format: "00000000-0000-4000-8000-%012d", index), tenantID: Directory.contosoTenantID,
                                                   displayName: "Group \(index)", members: [adele]))
        }
        let claims = try Self.tokens(directory: directory, setting: .securityGroup)
        #expect(claims["groups"] == nil)
        #expect(claims["_claim_names"] as? [String: String] == ["groups": "src1"])
        let sources = claims["_claim_sources"] as? [String: [String: String]]
        #expect(sources?["src1"]?["endpoint"] == "https://graph.microsoft.com/v1.0/users/\(adele)/getMemberObjects")
        #expect(try Self.tokens(directory: .embeddedDefault, setting: .none)["groups"] == nil)
    }
}
