import Foundation
import LocatedJSON
import Testing
@testable import B2C
import IdentityPlatform

@Suite struct B2CConfigurationTests {
    static let sample = #"""
    {
      "tenant": {"id": "11111111-2222-4333-8444-555555555555", "domain": "contosob2c.onmicrosoft.com", "displayName": "Contoso B2C"},
      "policies": [
        {"name": "B2C_1_SignUpSignIn", "kind": "susi", "claims": ["emails", "name", "newUser"]},
        {"name": "B2C_1A_PasswordReset", "kind": "passwordReset"}
      ],
      "localAccounts": [
        {"objectId": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "email": "zoe@contoso.test", "password": "Passw0rd!", "displayName": "Zoe"}
      ],
      "apis": [{"name": "tasks", "appId": "99999999-8888-4777-8666-555555555555", "scopes": ["tasks.read"]}]
    }
    """#

    @Test func decodesAndValidatesAgainstItsSchemaFragment() throws {
        let schema = try JSONSchema(json: Array(B2CConfiguration.jsonSchemaFragment.utf8), file: "b2c.schema.json")
        let configuration = try LocatedJSON.decode(B2CConfiguration.self, from: Array(Self.sample.utf8), file: "b2c.json", schema: schema)
        #expect(configuration.tenant.shortName == "contosob2c")
        #expect(configuration.policies.count == 2)
        #expect(configuration.applications.isEmpty)
        #expect(configuration.policy(named: "b2c_1_signupsignin")?.claims == ["emails", "name", "newUser"])
    }

    @Test func theEmbeddedDefaultPassesTheSchema() throws {
        let schema = try JSONSchema(json: Array(B2CConfiguration.jsonSchemaFragment.utf8), file: "b2c.schema.json")
        let encoded = try JSONEncoder().encode(B2CConfiguration.embeddedDefault)
        let decoded = try LocatedJSON.decode(B2CConfiguration.self, from: Array(encoded), file: "default.json", schema: schema)
        #expect(decoded == .embeddedDefault)
    }

    @Test func schemaRefusesUnknownKindsAndPolicyNames() throws {
        let schema = try JSONSchema(json: Array(B2CConfiguration.jsonSchemaFragment.utf8), file: "b2c.schema.json")
        let bad = Self.sample.replacingOccurrences(of: "\"passwordReset\"", with: "\"reset\"").replacingOccurrences(of: "B2C_1_SignUpSignIn", with: "SignUpSignIn")
        #expect(throws: JSONProblems.self) { _ = try LocatedJSON.validate(Array(bad.utf8), file: "b2c.json", schema: schema) }
    }

    @Test func policiesResolveIgnoringCase() {
        let configuration = B2CConfiguration.embeddedDefault
        #expect(configuration.policy(named: "b2c_1_EDIT_PROFILE")?.name == "B2C_1_edit_profile")
        #expect(configuration.policy(named: "b2c_1_reset")?.kind == .passwordReset)
        #expect(configuration.policy(named: "B2C_1A_anything")?.kind == .susi)
        #expect(configuration.policy(named: "B2C_1_other") == nil)
        #expect(configuration.policy(named: "susi") == nil)
        #expect(B2CConfiguration.isPolicyName("b2c_1a_x") && !B2CConfiguration.isPolicyName("b2c_1_") && !B2CConfiguration.isPolicyName("b2c_2_x"))
    }

    @Test func installIsIdempotentAndShapesAccountsLikeB2C() throws {
        var directory = Directory.embeddedDefault
        let configuration = B2CConfiguration.embeddedDefault
        configuration.install(into: &directory)
        configuration.install(into: &directory)
        #expect(directory.tenants.filter { $0.kind == .b2c }.count == 1)
        let ben = try #require(directory.user(signInName: "ben@fabrikam.test"))
        #expect(ben.userPrincipalName == "\(ben.id)@fabrikamb2c.onmicrosoft.com")
        #expect(ben.tenantID == B2CConfiguration.defaultTenantID)
        #expect(directory.resource(named: "https://fabrikamb2c.onmicrosoft.com/helloapi")?.appID == B2CConfiguration.sampleAPIAppID)
        #expect(directory.application(clientID: B2CConfiguration.sampleClientID)?.isPublicClient == true)
        #expect(directory.users.filter { $0.id == ben.id }.count == 1)
    }
}

@Suite struct B2CConfigurationMergeTests {
    @Test func aFileWithoutTenantAddsToTheDefaultTenant() throws {
        let json = #"{"policies": [{"name": "B2C_1_SiUpIn", "kind": "susi"}, {"name": "b2c_1_reset", "kind": "passwordReset", "claims": ["emails"]}]}"#
        let file = try JSONDecoder().decode(B2CConfiguration.self, from: Data(json.utf8))
        let resolved = try #require(B2CConfiguration.resolve(file, includeDefaults: true))
        #expect(resolved.tenant == B2CConfiguration.embeddedDefault.tenant)
        #expect(resolved.policy(named: "B2C_1_SiUpIn") != nil)
        #expect(resolved.policy(named: "B2C_1_edit_profile") != nil)
        #expect(resolved.policies.filter { $0.name.lowercased() == "b2c_1_reset" }.map(\.claims) == [["emails"]])
        #expect(resolved.localAccounts == B2CConfiguration.embeddedDefault.localAccounts)
    }

    @Test func anotherTenantOrNoDefaultsStandsAlone() throws {
        let file = try LocatedJSON.decode(B2CConfiguration.self, from: Array(B2CConfigurationTests.sample.utf8), file: "b2c.json")
        #expect(B2CConfiguration.resolve(file, includeDefaults: true) == file)
        #expect(B2CConfiguration.resolve(nil, includeDefaults: true) == .embeddedDefault)
        #expect(B2CConfiguration.resolve(nil, includeDefaults: false) == nil)
        var sameTenant = B2CConfiguration.embeddedDefault
        sameTenant.policies = [.init(name: "B2C_1_only", kind: .signin)]
        #expect(B2CConfiguration.resolve(sameTenant, includeDefaults: false)?.policies.map(\.name) == ["B2C_1_only"])
    }
}

@Suite struct B2CConfigurationLoaderTests {
    /// A whole config file whose `b2c` section is at `/b2c`, as the application loads it.
    func section(_ text: String) throws -> JSONValue {
        let tree = try LocatedJSON.parse(Array("{\n  \"b2c\": \(text)\n}".utf8), file: "config.json")
        return try #require(tree.member("b2c")?.value)
    }

    @Test func loadsAndResolvesASection() throws {
        let loaded = try B2CConfiguration.load(section: try section(B2CConfigurationTests.sample), file: "config.json")
        #expect(loaded?.tenant.domain == "contosob2c.onmicrosoft.com")
        #expect(try B2CConfiguration.load(section: nil, file: "config.json") == .embeddedDefault)
        #expect(try B2CConfiguration.load(section: nil, file: "config.json", includeDefaults: false) == nil)
    }

    @Test func schemaProblemsPointIntoTheFile() throws {
        let text = #"{"policies": [{"name": "B2C_1_x", "kind": "nope"}]}"#
        let value = try section(text)
        do throws(JSONProblems) {
            _ = try B2CConfiguration.load(section: value, file: "config.json")
            Issue.record("expected a problem")
        } catch {
            let problem = try #require(error.problems.first)
            #expect(problem.path.hasPrefix("/b2c/policies/0"))
            #expect(problem.location.line == 2)
            #expect(problem.file == "config.json")
        }
    }

    @Test func namesUsedTwiceAreReported() throws {
        let text = #"{"policies": [{"name": "B2C_1_a", "kind": "susi"}, {"name": "b2c_1_A", "kind": "signin"}],"#
            + #" "localAccounts": [{"objectId": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "email": "a@x.test", "password": "p", "displayName": "A"},"#
            + #" {"objectId": "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeef", "email": "A@x.test", "password": "p", "displayName": "B"}]}"#
        let value = try section(text)
        do throws(JSONProblems) {
            _ = try B2CConfiguration.load(section: value, file: "config.json")
            Issue.record("expected problems")
        } catch {
            #expect(error.problems.map(\.path) == ["/b2c/policies/1/name", "/b2c/localAccounts/1/email"])
            #expect(error.problems.first?.message == "policy 'b2c_1_A' is already defined at /policies/0")
        }
    }
}

extension B2CConfigurationMergeTests {
    @Test func bannerListsAuthoritiesAndSignInAddresses() {
        let lines = B2CConfiguration.embeddedDefault.bannerLines(baseURL: "https://127.0.0.1:8443")
        #expect(lines.contains("  susi authority: https://127.0.0.1:8443/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi"))
        #expect(lines.contains("  local account ben@fabrikam.test"))
    }
}
