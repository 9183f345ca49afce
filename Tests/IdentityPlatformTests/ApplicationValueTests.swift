import Foundation
import Testing
@testable import IdentityPlatform

/// An app keeps its fields in a shared box: it must still behave as a value, and code as it did before
/// (state files written by earlier builds keep apps in that form).
@Suite struct ApplicationValueTests {
    @Test func aChangedCopyLeavesTheAppItCameFromAlone() {
        let original = Application(clientID: "app-1", displayName: "One", tenantID: "T-1", isPublicClient: false,
                                   secrets: [.init(value: "s3cret-value")], redirectURIs: ["https://a/cb"], familyID: "1")
        var copy = original
        #expect(copy == original)
        copy.displayName = "Two"
        copy.secrets.append(.init(value: "another-secret"))
        copy.tenantID = nil
        copy.adminConsentScopes = ["Admin.Only"]
        #expect(original.displayName == "One" && original.secrets.count == 1 && original.tenantID == "t-1" && original.adminConsentScopes.isEmpty)
        #expect(copy.displayName == "Two" && copy.secrets.count == 2 && copy.tenantID == nil && copy != original)
        let rebuilt = Application(clientID: "app-1", displayName: "One", tenantID: "T-1", isPublicClient: false,
                                  secrets: [.init(value: "s3cret-value")], redirectURIs: ["https://a/cb"], familyID: "1")
        #expect(rebuilt == original, "equal apps in different boxes are equal")
    }

    /// JSON as the synthesized coding wrote it: every key named after its property, the optional ones
    /// left out when nil.
    @Test func decodesTheFormEarlierBuildsWroteAndRoundTrips() throws {
        let written = #"""
        {"clientID":"c","displayName":"d","isPublicClient":true,"secrets":[{"value":"v1-secret"}],"certificates":[],
         "redirectURIs":["msauth.x://auth"],"requiredResourceAccess":[{"resource":"https://graph.microsoft.com","scopes":["User.Read"],"roles":[]}],
         "identifierURIs":["api://c"],"exposedScopes":["access_as_user"],"appRoles":["Task.Read"],"accessTokenAcceptedVersion":2,
         "adminConsentScopes":["x"],"tenantID":"t","familyID":"1"}
        """#
        let app = try JSONDecoder().decode(Application.self, from: Data(written.utf8))
        #expect(app.clientID == "c" && app.tenantID == "t" && app.familyID == "1" && app.accessTokenAcceptedVersion == 2)
        #expect(app.requiredResourceAccess.first?.scopes == ["User.Read"] && app.adminConsentScopes == ["x"])
        let encoded = try JSONEncoder().encode(app)
        let keys = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any]).keys
        #expect(Set(keys) == ["clientID", "displayName", "isPublicClient", "secrets", "certificates", "redirectURIs", "requiredResourceAccess",
                              "identifierURIs", "exposedScopes", "appRoles", "accessTokenAcceptedVersion", "adminConsentScopes", "tenantID", "familyID"])
        #expect(try JSONDecoder().decode(Application.self, from: encoded) == app)

        // Every key but the three optional ones is required, as the synthesized decoding required it.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
        for key in object.keys {
            var missing = object
            missing[key] = nil
            let bytes = try JSONSerialization.data(withJSONObject: missing)
            let optional: [String: (Application) -> Bool] = [
                "accessTokenAcceptedVersion": { $0.accessTokenAcceptedVersion == nil && $0.tenantID == "t" && $0.familyID == "1" },
                "tenantID": { $0.tenantID == nil && $0.accessTokenAcceptedVersion == 2 && $0.familyID == "1" },
                "familyID": { $0.familyID == nil && $0.accessTokenAcceptedVersion == 2 && $0.tenantID == "t" },
            ]
            if let onlyThatOneIsNil = optional[key] {
                #expect(onlyThatOneIsNil(try JSONDecoder().decode(Application.self, from: bytes)), "\(key)")
            } else {
                #expect(throws: DecodingError.self, "\(key)") { try JSONDecoder().decode(Application.self, from: bytes) }
            }
        }
    }

    /// Equality compares every field: an app changed in any one of them differs from its original.
    @Test func anAppChangedInAnyOneFieldIsNotEqual() {
        let original = Application(clientID: "c", displayName: "d")
        let changes: [(String, (inout Application) -> Void)] = [
            ("clientID", { $0.clientID = "c2" }), ("displayName", { $0.displayName = "d2" }), ("tenantID", { $0.tenantID = "t" }),
            ("isPublicClient", { $0.isPublicClient = false }), ("secrets", { $0.secrets = [.init(value: "v")] }),
            ("certificates", { $0.certificates = ["pem"] }), ("redirectURIs", { $0.redirectURIs = ["u"] }),
            ("requiredResourceAccess", { $0.requiredResourceAccess = [.init(resource: "r")] }), ("identifierURIs", { $0.identifierURIs = ["api://c"] }),
            ("exposedScopes", { $0.exposedScopes = ["s"] }), ("appRoles", { $0.appRoles = ["r"] }),
            ("accessTokenAcceptedVersion", { $0.accessTokenAcceptedVersion = 2 }), ("familyID", { $0.familyID = "1" }),
            ("adminConsentScopes", { $0.adminConsentScopes = ["a"] }), ("groupMembershipClaims", { $0.groupMembershipClaims = .securityGroup }),
            ("federatedCredentials", { $0.federatedCredentials = [.init(issuer: "i", subject: "s", certificates: [])] }),
            ("nativeAuthenticationApisEnabled", { $0.nativeAuthenticationApisEnabled = true }), ("spaRedirectURIs", { $0.spaRedirectURIs = ["http://localhost:3000"] }),
        ]
        // One change per stored field: the box's fields, counted by reflection, so a field added later is noticed.
        let fields = Mirror(reflecting: Mirror(reflecting: original).descendant("storage", "box", "fields")!).children.count
        #expect(changes.count == fields)
        for (field, change) in changes {
            var changed = original
            change(&changed)
            #expect(changed != original, "\(field)")
        }
    }
}
