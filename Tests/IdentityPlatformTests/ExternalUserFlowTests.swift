import IdentityFixtures
import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import LocatedJSON
import Testing
@testable import IdentityPlatform

/// An external tenant's user flow: the email method it chooses (not the app) and the attributes sign-up
/// collects, through the native API and through the pages.
@Suite struct ExternalUserFlowTests {
    typealias N = NativeAuthTests
    static let custom = "extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_loyaltyNumber"
    static let rewards = ExternalUserFlow(attributes: [
        SignUpAttribute(name: "displayName", required: true),
        SignUpAttribute(name: "postalCode", required: true, regex: "^[1-9][0-9]{4}$"),
        SignUpAttribute(name: "city"),
        SignUpAttribute(name: custom, label: "Loyalty number", type: .int),
        SignUpAttribute(name: "extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_newsletter", label: "Send me offers", type: .boolean),
    ])

    static func directory(_ flow: ExternalUserFlow) -> Directory {
        var directory = BrowserFixtures.directory()
        if let index = directory.tenants.firstIndex(where: { $0.id == Directory.woodgroveTenantID }) { directory.tenants[index].userFlow = flow }
        return directory
    }

    static func service(_ flow: ExternalUserFlow) -> IdentityService { TokenFixtures.service(directory: directory(flow)).0 }

    static func start(_ address: String, types: String = "oob password redirect", extra: [(String, String)] = [], service: IdentityService) -> (status: Int, body: [String: Any]) {
        N.post("signup/v1.0/start", [("client_id", N.app), ("username", address), ("challenge_type", types)] + extra, to: service)
    }

    /// Start, challenge and the right code: the answer of the continue that proves the address.
    static func proveAddress(_ address: String, types: String = "oob password redirect", extra: [(String, String)] = [], service: IdentityService) throws -> (status: Int, body: [String: Any]) {
        let started = start(address, types: types, extra: extra, service: service)
        let challenged = N.challenge(started.body["continuation_token"], path: "signup/v1.0/challenge", types: types, service: service)
        let code = try #require(service.outbox.messages(to: address).last?.code)
        return N.post("signup/v1.0/continue", [("client_id", N.app), ("continuation_token", challenged.body["continuation_token"] as? String ?? ""),
                                                ("grant_type", "oob"), ("oob", code)], to: service)
    }

    // MARK: - The native API

    @Test func attributesRequiredDescribesEachMissingAttributeWithItsRule() throws {
        let service = Self.service(Self.rewards)
        let proved = try Self.proveAddress("kai@woodgrove.example", types: "oob redirect", service: service)
        #expect(proved.status == 400 && proved.body["error"] as? String == "attributes_required" && N.firstCode(proved.body) == 55106)
        let required = try #require(proved.body["required_attributes"] as? [[String: Any]])
        #expect(required.map { $0["name"] as? String } == ["displayName", "postalCode"], "only the required ones still missing, in the flow's order")
        #expect(required[1]["type"] as? String == "string" && required[1]["required"] as? Bool == true)
        #expect((required[1]["options"] as? [String: Any])?["regex"] as? String == "^[1-9][0-9]{4}$")
        #expect(required[0]["options"] == nil, "no options where the attribute has no rule")
    }

    @Test func anAttributeFailingItsRuleIsRefusedByNameAndTheTokenMaySendItAgain() throws {
        let service = Self.service(Self.rewards)
        let refused = Self.start("kai@woodgrove.example", types: "oob redirect", extra: [("attributes", #"{"postalCode": "0123", "displayName": "Kai"}"#)], service: service)
        #expect(refused.status == 400 && refused.body["error"] as? String == "invalid_grant")
        #expect(refused.body["suberror"] as? String == "attribute_validation_failed")
        #expect((refused.body["invalid_attributes"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["postalCode"])
        #expect(refused.body["error_codes"] == nil && refused.body["trace_id"] is String, "the reference gives this refusal no AADSTS code, and none is made up")

        let proved = try Self.proveAddress("kai@woodgrove.example", types: "oob redirect", extra: [("attributes", #"{"displayName": "Kai"}"#)], service: service)
        let token = proved.body["continuation_token"] as? String ?? ""
        let wrongType = N.post("signup/v1.0/continue", [("client_id", N.app), ("continuation_token", token), ("grant_type", "attributes"),
                                                        ("attributes", #"{"postalCode": "98052", "\#(Self.custom)": "gold"}"#)], to: service)
        #expect(wrongType.body["suberror"] as? String == "attribute_validation_failed")
        #expect((wrongType.body["invalid_attributes"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == [Self.custom], "an int attribute takes digits only")
        let accepted = N.post("signup/v1.0/continue", [("client_id", N.app), ("continuation_token", token), ("grant_type", "attributes"),
                                                       ("attributes", #"{"postalCode": "98052", "city": "Redmond", "\#(Self.custom)": 42, "unknownToTheFlow": "x"}"#)], to: service)
        #expect(accepted.status == 200 && accepted.body["continuation_token"] is String)
        let customer = try #require(service.currentDirectory.user(signInName: "kai@woodgrove.example"))
        #expect(customer.displayName == "Kai" && customer.attribute("postalCode") == "98052" && customer.attribute("city") == "Redmond")
        #expect(customer.attribute(Self.custom) == "42" && customer.attributes?["unknownToTheFlow"] == nil, "attributes the flow does not collect are dropped")
    }

    @Test func aOneTimePasscodeFlowKeepsNoPasswordWhateverTheAppCanShow() throws {
        let service = Self.service(ExternalUserFlow(emailMethod: .emailOneTimePasscode, attributes: []))
        let withPassword = Self.start("ana@woodgrove.example", extra: [("password", "Str0ng!pass")], service: service)
        #expect(withPassword.status == 400 && withPassword.body["error"] as? String == "unsupported_auth_method" && withPassword.body["error_codes"] == nil)
        let proved = try Self.proveAddress("ana@woodgrove.example", service: service)
        #expect(proved.status == 200 && proved.body["continuation_token"] is String, "no credential_required: the flow has no password")
        #expect(service.currentDirectory.user(signInName: "ana@woodgrove.example")?.password == "")

        // Jordan has a password, but this user flow signs customers in with codes.
        let challenged = N.challenge(N.initiate(N.jordan, service: service).body["continuation_token"], service: service)
        #expect(challenged.body["challenge_type"] as? String == "oob")
        let reset = N.post("resetpassword/v1.0/start", [("client_id", N.app), ("username", N.jordan), ("challenge_type", "oob redirect")], to: service)
        #expect(reset.status == 400 && N.firstCode(reset.body) == 500222)
    }

    @Test func aPasswordFlowSendsAnAppThatCannotAskForOneToTheBrowser() {
        let service = Self.service(ExternalUserFlow(emailMethod: .emailWithPassword, attributes: []))
        let started = Self.start("lee@woodgrove.example", types: "oob redirect", service: service)
        #expect(started.status == 200 && started.body["challenge_type"] as? String == "redirect")
    }

    @Test func aRegisteredAppMustAllowPublicClientsAndEnableTheAPI() {
        var directory = Directory.embeddedDefault
        let disabled = "6a1e3c5b-7d9f-4b2a-8c4e-1f3a5c7e9b0d", enabled = "0d9b7e5c-3a1f-4e2c-9b8a-6d4c2e0a8f1b", confidential = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f"
        directory.applications.append(Application(clientID: disabled, displayName: "Not enabled", tenantID: Directory.woodgroveTenantID))
        var native = Application(clientID: enabled, displayName: "Enabled", tenantID: Directory.woodgroveTenantID)
        native.nativeAuthenticationApisEnabled = true
        directory.applications.append(native)
        var web = Application(clientID: confidential, displayName: "Web", tenantID: Directory.woodgroveTenantID, isPublicClient: false, secrets: [.init(value: "s")])
        web.nativeAuthenticationApisEnabled = true
        directory.applications.append(web)
        let service = TokenFixtures.service(directory: directory).0
        func initiate(_ app: String) -> (status: Int, body: [String: Any]) {
            N.post("oauth2/v2.0/initiate", [("client_id", app), ("username", N.jordan), ("challenge_type", "password redirect")], to: service)
        }
        let refused = initiate(disabled)
        #expect(refused.status == 400 && refused.body["error"] as? String == "invalid_client" && refused.body["suberror"] as? String == "nativeauthapi_disabled")
        #expect(refused.body["error_codes"] == nil, "the reference gives no AADSTS code for it")
        #expect(initiate(enabled).body["continuation_token"] is String)
        let web400 = initiate(confidential)
        #expect(web400.body["error"] as? String == "invalid_client" && N.firstCode(web400.body) == 550022)
    }

    // MARK: - Configuration

    @Test func aConfigurationFileDescribesTheUserFlowAndItsMistakesAreLocated() throws {
        let good = #"""
        {"tenants": [{"id": "3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1a", "domains": ["fabrikamshop.onmicrosoft.com"], "kind": "external",
          "userFlow": {"emailMethod": "emailOneTimePasscode", "attributes": [{"name": "postalCode", "required": true, "regex": "^[0-9]{5}$"},
            {"name": "extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_tier", "type": "int"}]}}],
         "apps": [{"clientId": "0d9b7e5c-3a1f-4e2c-9b8a-6d4c2e0a8f1b", "tenant": "fabrikamshop.onmicrosoft.com", "nativeAuthenticationApisEnabled": "all"},
                  {"clientId": "6a1e3c5b-7d9f-4b2a-8c4e-1f3a5c7e9b0d", "tenant": "fabrikamshop.onmicrosoft.com"}]}
        """#
        let configuration = try ConfigurationLoader.load(bytes: Array(good.utf8), file: "flow.json")
        let flow = try #require(configuration.directory.tenant(matching: "fabrikamshop.onmicrosoft.com")?.externalUserFlow)
        #expect(flow.emailMethod == .emailOneTimePasscode && flow.attributes.map(\.name) == ["postalCode", "extension_0a1b2c3d4e5f60718293a4b5c6d7e8f9_tier"])
        #expect(flow.attributes[0].required && flow.attributes[1].type == .int)
        #expect(configuration.directory.application(clientID: "0d9b7e5c-3a1f-4e2c-9b8a-6d4c2e0a8f1b")?.nativeAuthenticationApisEnabled == true)
        #expect(configuration.directory.application(clientID: "6a1e3c5b-7d9f-4b2a-8c4e-1f3a5c7e9b0d")?.nativeAuthenticationApisEnabled == false, "off until enabled")

        let badName = #"{"tenants": [{"id": "3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1a", "domains": ["fabrikam.onmicrosoft.com"], "kind": "external", "userFlow": {"attributes": [{"name": "loyalty"}]}}]}"#
        do {
            _ = try ConfigurationLoader.load(bytes: Array(badName.utf8), file: "flow.json")
            Issue.record("an attribute neither built in nor extension_… loaded")
        } catch {
            #expect(error.description.contains("flow.json:1:") && error.description.contains("\"loyalty\""), "\(error.description)")
        }
        let badPattern = #"""
        {"tenants": [{"id": "3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1a", "domains": ["fabrikam.onmicrosoft.com"], "kind": "external",
          "userFlow": {"attributes": [{"name": "postalCode", "regex": "([0-9"}]}}]}
        """#
        do {
            _ = try ConfigurationLoader.load(bytes: Array(badPattern.utf8), file: "flow.json")
            Issue.record("a pattern that does not compile loaded")
        } catch {
            #expect(error.description.contains("flow.json:2:63") && error.description.contains("invalid regular expression \"([0-9\""), "\(error.description)")
        }
        let misplaced = #"{"tenants": [{"id": "3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1a", "domains": ["fabrikam.onmicrosoft.com"], "userFlow": {"attributes": [{"name": "city"}, {"name": "city"}]}}]}"#
        do {
            _ = try ConfigurationLoader.load(bytes: Array(misplaced.utf8), file: "flow.json")
            Issue.record("a user flow on an organisation loaded")
        } catch {
            #expect(error.description.contains("only External ID tenants have user flows") && error.description.contains("collected twice"), "\(error.description)")
        }
    }
}
