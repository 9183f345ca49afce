import ExchangeKernel
import EntraHTTP
import Foundation
import IdentityPlatform
import Testing
@testable import Scenarios

/// One rule for every control-API write — unique keys, 409 on conflict, 200 on
/// update, 201 on create, duplicate JSON keys refused — and one error shape.
@Suite struct DirectoryIntegrityTests {
    private func call(_ harness: Harness, _ method: String, _ path: String, _ body: String = "") -> (status: Int, error: [String: Any]?, json: [String: Any]) {
        let response = harness.send(Harness.json(method, path, body))
        let json = Harness.body(response)
        return (response.status.code, json["error"] as? [String: Any], json)
    }

    private static let lee = #"{"userPrincipalName": "lee.gu@contoso.onmicrosoft.com", "password": "Start123!"}"#

    @Test func usersKeepUniqueNamesAndIDs() {
        let harness = Harness()
        #expect(call(harness, "POST", "/_fakeentra/users", Self.lee).status == 201)
        let again = call(harness, "POST", "/_fakeentra/users", #"{"userPrincipalName": "LEE.GU@contoso.onmicrosoft.com", "displayName": "Impostor"}"#)
        #expect(again.status == 409)
        #expect(again.error?["code"] as? String == "conflict")
        #expect(harness.service.currentDirectory.user(signInName: "lee.gu@contoso.onmicrosoft.com")?.displayName != "Impostor", "not silently replaced")
        // PATCH giving Lee Adele's UPN, or Adele's id.
        let stolenName = call(harness, "PATCH", "/_fakeentra/users/lee.gu@contoso.onmicrosoft.com", #"{"userPrincipalName": "\#(Harness.adele)"}"#)
        #expect(stolenName.status == 409)
        let adeleID = harness.service.currentDirectory.user(signInName: Harness.adele)!.id
        #expect(call(harness, "PATCH", "/_fakeentra/users/lee.gu@contoso.onmicrosoft.com", #"{"id": "\#(adeleID)"}"#).status == 409)
        #expect(harness.service.currentDirectory.users.filter { $0.userPrincipalName.lowercased() == Harness.adele }.count == 1)
        let renamed = call(harness, "PATCH", "/_fakeentra/users/lee.gu@contoso.onmicrosoft.com", #"{"userPrincipalName": "lee@contoso.onmicrosoft.com"}"#)
        #expect(renamed.status == 200)
        #expect(harness.service.currentDirectory.users.map(\.userPrincipalName).filter { $0.hasPrefix("lee") } == ["lee@contoso.onmicrosoft.com"])
        #expect(call(harness, "PATCH", "/_fakeentra/users/lee@contoso.onmicrosoft.com", #"{"jobTitle": "Dev"}"#).status == 200, "a PATCH keeping its own key")
    }

    @Test func appsAndConsentsKeepUniqueKeys() {
        let harness = Harness()
        let app = #"{"clientId": "c0ffee00-0000-4000-8000-000000000001", "redirectUris": ["http://localhost"]}"#
        #expect(call(harness, "POST", "/_fakeentra/apps", app).status == 201)
        #expect(call(harness, "POST", "/_fakeentra/apps", app).status == 409)
        #expect(call(harness, "PATCH", "/_fakeentra/apps/c0ffee00-0000-4000-8000-000000000001", #"{"clientId": "\#(Harness.nativeApp)"}"#).status == 409)
        #expect(call(harness, "PATCH", "/_fakeentra/apps/c0ffee00-0000-4000-8000-000000000001", #"{"displayName": "Renamed"}"#).status == 200)
        let consent = #"{"clientId": "c0ffee00-0000-4000-8000-000000000001", "user": "\#(Harness.adele)", "scopes": ["User.Read"]}"#
        #expect(call(harness, "POST", "/_fakeentra/consents", consent).status == 201)
        #expect(call(harness, "POST", "/_fakeentra/consents", consent).status == 409)
    }

    @Test func duplicateJSONKeysAreRefusedEverywhere() {
        let harness = Harness()
        _ = call(harness, "POST", "/_fakeentra/scenarios", ControlAPITests.slow)
        let bodies: [(String, String, String)] = [
            ("POST", "/_fakeentra/bindings", #"{"scenario": "slow-everything", "clientId": "a", "clientId": "b"}"#),
            ("POST", "/_fakeentra/users", #"{"userPrincipalName": "x@contoso.onmicrosoft.com", "userPrincipalName": "y@contoso.onmicrosoft.com"}"#),
            ("PATCH", "/_fakeentra/users/\(Harness.adele)", #"{"jobTitle": "a", "jobTitle": "b"}"#),
            ("POST", "/_fakeentra/clock/advance", #"{"seconds": 1, "seconds": 2}"#),
            ("POST", "/_fakeentra/reset", #"{"binding": "b1", "binding": "default"}"#),
            ("POST", "/_fakeentra/scenarios", #"{"name": "a", "name": "b", "description": "d", "rules": []}"#),
        ]
        for (method, path, body) in bodies {
            let refused = call(harness, method, path, body)
            #expect(refused.status == 422, "\(method) \(path)")
            #expect(refused.error?["code"] as? String == "invalid_body", "\(method) \(path)")
            let problem = (refused.error?["problems"] as? [[String: Any]])?.first
            #expect((problem?["message"] as? String)?.hasPrefix("duplicate key") == true, "\(method) \(path): \(refused.json)")
        }
        #expect(harness.engine.bindings.isEmpty)
        #expect(harness.service.clock.now() == Harness.start)
    }
}
