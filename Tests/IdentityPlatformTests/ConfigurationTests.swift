import IdentityFixtures
import EntraCrypto
import Foundation
import LocatedJSON
import Testing
@testable import IdentityPlatform

@Suite struct ConfigurationTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func load(_ text: String, file: String = "config.json") throws(JSONProblems) -> IdentityConfiguration {
        try ConfigurationLoader.load(bytes: Array(text.utf8), file: file)
    }

    /// The problems a text yields, as `line:column: message`.
    func problems(_ text: String) -> [String] {
        do {
            _ = try load(text)
            return []
        } catch {
            return error.problems.map { "\($0.location.line):\($0.location.column): \($0.message)" }
        }
    }

    /// A redirect URI that would run script where the sign-in's answer lands stops the file at its place.
    @Test func scriptRedirectURIsAreRefusedWithTheirPlace() {
        let found = problems("""
        {"apps": [{"clientId": "web", "redirectUris": ["https://ok.example/cb",
                                                        "javascript:alert(1)"]}]}
        """)
        #expect(found.count == 1 && found.first?.hasPrefix("2:49: a javascript: redirect URI") == true, "\(found)")
    }

    /// Single-page apps' redirect URIs are their own platform, checked as the others are.
    @Test func spaRedirectURIsAreTheirOwnPlatform() throws {
        let config = try load("""
        {"apps": [{"clientId": "spa", "redirectUris": ["https://web.example/cb"], "spaRedirectUris": ["http://localhost:3000"]}]}
        """)
        let app = try #require(config.directory.application(clientID: "spa"))
        #expect(app.platform(ofRedirectURI: "http://localhost:3000") == .spa && app.platform(ofRedirectURI: "https://web.example/cb") == .webOrPublicClient)
        #expect(app.platform(ofRedirectURI: "http://localhost:3001") == .spa, "loopback on any port")
        let found = problems("""
        {"apps": [{"clientId": "spa", "spaRedirectUris": ["data:text/html,x"]}]}
        """)
        #expect(found.count == 1 && found.first?.hasPrefix("1:51: a data: redirect URI") == true, "\(found.first ?? "")")
    }

    /// Groups with nested members, managed identities and tenants' subscriptions, from the file.
    @Test func groupsIdentitiesAndSubscriptions() throws {
        let config = try load("""
        {"includeDefaults": false,
         "tenants": [{"id": "aaaaaaaa-0000-4000-8000-000000000001", "domains": ["fabrikam.onmicrosoft.com"],
                      "subscriptions": [{"subscriptionId": "bbbbbbbb-0000-4000-8000-000000000002", "displayName": "Prod"}]}],
         "users": [{"userPrincipalName": "kim@fabrikam.onmicrosoft.com", "displayName": "Kim"}],
         "groups": [{"displayName": "Team", "members": ["kim@fabrikam.onmicrosoft.com"], "owners": ["kim@fabrikam.onmicrosoft.com"]}, {"displayName": "Org", "members": ["Team"]}],
         "managedIdentities": [{"name": "vm", "clientId": "cccccccc-0000-4000-8000-000000000003", "kind": "system"}]}
        """)
        let directory = config.directory
        #expect(directory.tenants.first?.azureSubscriptions.map(\.displayName) == ["Prod"] && directory.tenants.first?.azureSubscriptions.first?.state == "Enabled")
        let kim = try #require(directory.user(signInName: "kim@fabrikam.onmicrosoft.com"))
        #expect(directory.transitiveGroups(of: kim.id).map(\.displayName).sorted() == ["Org", "Team"])
        #expect(directory.groups.filter { $0.owners == [kim.id] }.map(\.displayName) == ["Team"])
        #expect(directory.managedIdentity(.system)?.resourceID == "/subscriptions/bbbbbbbb-0000-4000-8000-000000000002/resourcegroups/demo/providers/Microsoft.Compute/virtualMachines/vm")
        #expect(problems(#"{"groups": [{"displayName": "G", "members": ["nobody@x.test"]}]}"#).first?.contains("no user or group \"nobody@x.test\"") == true)
        #expect(problems(#"{"groups": [{"displayName": "G", "owners": ["nobody@x.test"]}]}"#).first?.contains("no user \"nobody@x.test\" in the group's tenant") == true)
        #expect(problems(#"{"options": {"cloudShellUser": "nobody@x.test"}}"#).first?.contains("1:32: no user \"nobody@x.test\" of an organization; expected") == true)
        let shell = try ConfigurationLoader.load(bytes: Array(#"{"options": {"cloudShellUser": "alex.wilber@contoso.onmicrosoft.com"}}"#.utf8), file: "c.json")
        #expect(shell.options.cloudShellUser == "alex.wilber@contoso.onmicrosoft.com")
    }

    @Test func publishedSchemaIsTheEmbeddedOne() throws {
        let published = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("docs/schemas/config.schema.json"), encoding: .utf8)
        #expect(published == ConfigurationSchema.text)
        _ = ConfigurationSchema.schema
    }

    @Test func fullConfigurationBuildsTheDirectory() throws {
        let config = try load("""
        {
          "options": { "strict": true, "accessTokenLifetime": 600, "deviceCodePollingInterval": 2 },
          "tenants": [ { "id": "aaaaaaaa-0000-4000-8000-000000000001", "displayName": "Fabrikam", "domains": ["fabrikam.onmicrosoft.com"] } ],
          "users": [
            { "userPrincipalName": "kim@fabrikam.onmicrosoft.com", "displayName": "Kim", "password": "pw", "mfaRequired": true },
            { "userPrincipalName": "lee@elsewhere.test", "tenant": "fabrikam.onmicrosoft.com", "displayName": "Lee" }
          ],
          "apps": [
            { "clientId": "web", "tenant": "aaaaaaaa-0000-4000-8000-000000000001", "secrets": ["s1", { "value": "s2", "expiresAt": "2030-01-01T00:00:00Z" }],
              "redirectUris": ["https://web.example/cb"],
              "requiredResourceAccess": [ { "resource": "https://graph.microsoft.com", "scopes": ["User.Read"], "roles": ["User.Read.All"] },
                                          { "resource": "api://api", "scopes": ["read"] } ] },
            { "clientId": "api", "identifierUris": ["api://api"], "exposedScopes": ["read", "admin"], "adminConsentScopes": ["admin"], "appRoles": ["Job.Run"], "accessTokenAcceptedVersion": 2 }
          ],
          "consents": [ { "clientId": "web", "scopes": ["User.Read"], "user": "kim@fabrikam.onmicrosoft.com" },
                        { "clientId": "web", "resource": "api://api", "scopes": ["read"] } ],
          "graph": { "anything": 1 }
        }
        """)
        #expect(config.options.strict && config.options.accessTokenLifetime == 600 && config.options.deviceCodePollingInterval == 2)
        let d = config.directory
        #expect(d.tenant(matching: "fabrikam.onmicrosoft.com")?.displayName == "Fabrikam")
        #expect(d.tenant(id: Directory.contosoTenantID) != nil, "defaults are merged")
        let kim = try #require(d.user(signInName: "kim@fabrikam.onmicrosoft.com"))
        #expect(kim.password == "pw" && kim.mfaRequired && kim.tenantID == "aaaaaaaa-0000-4000-8000-000000000001")
        #expect(kim.id == TokenIdentifiers.guid(from: "user|kim@fabrikam.onmicrosoft.com"))
        #expect(d.user(signInName: "lee@elsewhere.test")?.password == Directory.demoPassword)
        let web = try #require(d.application(clientID: "web"))
        #expect(!web.isPublicClient && web.secrets.count == 2 && web.secrets[1].expiresAt == Date(timeIntervalSince1970: 1_893_456_000))
        #expect(d.application(clientID: "api")?.isPublicClient == true)
        #expect(d.resource(named: "api://api")?.accessTokenVersion == 2)
        #expect(d.resource(named: "api://api")?.delegatedPermission(named: "admin")?.adminConsentRequired == true)
        #expect(d.resource(named: "api://api")?.delegatedPermission(named: "read")?.adminConsentRequired == false)
        #expect(d.grantedScopes(clientID: "web", resourceAppID: Resource.graphAppID, userID: kim.id, tenantID: kim.tenantID) == ["user.read"])
        #expect(d.grantedScopes(clientID: "web", resourceAppID: "api", userID: "anyone", tenantID: kim.tenantID) == ["read"])
        #expect(config.sections["graph"]?["anything"] != nil)
    }

    @Test func includeDefaultsFalseStartsEmpty() throws {
        let config = try load(#"{"includeDefaults": false, "tenants": [{"id": "aaaaaaaa-0000-4000-8000-000000000001", "domains": ["f.test"]}]}"#)
        #expect(config.directory.tenants.map(\.id) == ["aaaaaaaa-0000-4000-8000-000000000001"] && config.directory.users.isEmpty)
    }

    @Test func schemaErrorsNameLineAndColumn() {
        let found = problems("""
        {
          "options": { "strict": "yes" },
          "users": [ { "displayName": "No UPN" } ],
          "colour": 1
        }
        """)
        #expect(found.count == 3)
        #expect(found.contains { $0.hasPrefix("2:26: ") && $0.contains("boolean") })
        #expect(found.contains { $0.hasPrefix("3:14: ") && $0.contains("userPrincipalName") })
        #expect(found.contains { $0.hasPrefix("4:3: ") && $0.contains("colour") })
    }

    @Test func syntaxErrorsNameLineAndColumn() {
        let found = problems("{\n  \"tenants\": [\n    {\"id\": 1,}\n  ]\n}")
        #expect(found.count == 1 && found[0].hasPrefix("3:"))
    }

    @Test func crossReferenceErrorsPointAtTheEntry() {
        let found = problems("""
        {
          "users": [
            { "userPrincipalName": "a@nowhere.test", "displayName": "A" },
            { "userPrincipalName": "b@contoso.com", "displayName": "B", "tenant": "ghost.test" },
            { "userPrincipalName": "c@contoso.com", "displayName": "C" },
            { "userPrincipalName": "C@contoso.com", "displayName": "C again" }
          ],
          "apps": [ { "clientId": "x", "requiredResourceAccess": [ { "resource": "api://missing" } ] },
                    { "clientId": "g", "requiredResourceAccess": [ { "resource": "https://graph.microsoft.com", "scopes": ["not a permission"] } ] },
                    { "clientId": "x" } ],
          "consents": [ { "clientId": "nobody", "scopes": ["User.Read"] },
                        { "clientId": "g", "scopes": ["User.Read"], "user": "ghost@contoso.com" } ]
        }
        """)
        #expect(found.contains { $0.hasPrefix("3:28: no tenant owns the domain \"nowhere.test\"") })
        #expect(found.contains { $0.hasPrefix("4:75: no tenant \"ghost.test\"") })
        #expect(found.contains { $0.hasPrefix("6:28: user principal name \"C@contoso.com\" is already used by /users/2; expected a unique user principal name") })
        #expect(found.contains { $0.hasPrefix("8:74: no resource \"api://missing\"") })
        #expect(found.contains { $0.hasPrefix("9:116: \"not a permission\" is not a delegated permission of Microsoft Graph") })
        #expect(found.contains { $0.hasPrefix("10:27: client id \"x\" is already used by /apps/0") })
        #expect(found.contains { $0.hasPrefix("11:31: no app with client id \"nobody\"") })
        #expect(found.contains { $0.hasPrefix("12:69: no user \"ghost@contoso.com\"") })
        #expect(found.count == 8)
    }

    @Test func certificatesInlineOrByRelativePath() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fakeentra-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = TokenFixtures.clientCertificate.certificate.pem
        try pem.write(to: directory.appendingPathComponent("client.pem"), atomically: true, encoding: .utf8)
        let configPath = directory.appendingPathComponent("config.json").path
        let text = """
        {"apps": [{"clientId": "daemon", "certificates": ["client.pem", \(JSONValue.quoted(pem))]},
                  {"clientId": "broken", "certificates": ["missing.pem"]}]}
        """
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
        do {
            _ = try ConfigurationLoader.load(file: configPath)
            Issue.record("a missing certificate file must be reported")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems[0].location.line == 2 && error.problems[0].message.contains("cannot read certificate file"))
            #expect(error.problems[0].file == configPath)
        }
        try text.replacingOccurrences(of: ",\n          {\"clientId\": \"broken\", \"certificates\": [\"missing.pem\"]}", with: "").write(toFile: configPath, atomically: true, encoding: .utf8)
        let config = try ConfigurationLoader.load(file: configPath)
        #expect(config.directory.application(clientID: "daemon")?.certificates.count == 2)
        #expect(config.directory.application(clientID: "daemon")?.isPublicClient == false)
    }
}
