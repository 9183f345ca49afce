import EntraHTTP
import Foundation
@testable import Graph
import IdentityPlatform
import Testing

/// Groups as real tenants have them: listed, read, nested, and behind a user's memberOf.
@Suite("Groups and membership") struct GroupTests {
    let fixture = GraphFixture()
    static let salesAndMarketing = "4b2d8c3e-5f6a-4b7c-8d8e-9f0a1b2c3d4e"

    @Test func groupsAreListedAndFilteredWithGroupRead() {
        let all = fixture.get("/v1.0/groups", token: fixture.token(scopes: "Group.Read.All"))
        #expect(all.status == .ok && all.values.count == 4)
        #expect(all.headers["x-ms-resource-unit"] == "1")
        let first = all.values.first { $0["displayName"] as? String == "All Company" }
        #expect(first?["groupTypes"] as? [String] == ["Unified"] && first?["mailEnabled"] as? Bool == true && first?["securityEnabled"] as? Bool == false)
        let filtered = fixture.get("/v1.0/groups?$filter=displayName%20eq%20'Retail'", token: fixture.token(scopes: "Group.Read.All"))
        #expect(filtered.values.map { $0["displayName"] as? String } == ["Retail"])
        #expect(fixture.get("/v1.0/groups", token: fixture.token(scopes: "User.Read")).status == .forbidden)
        #expect(fixture.get("/v1.0/groups/0f0f0f0f-0000-4000-8000-000000000000", token: fixture.token(scopes: "Group.Read.All")).errorCode == "Request_ResourceNotFound")
        let members = fixture.get("/v1.0/groups/\(Self.salesAndMarketing)/members", token: fixture.token(scopes: "Group.Read.All"))
        #expect(Set(members.values.compactMap { $0["displayName"] as? String }) == ["Retail", "Marketing"])
        #expect(members.values.allSatisfy { $0["@odata.type"] as? String == "#microsoft.graph.group" })
    }

    @Test func memberOfIsDirectAndTransitiveMemberOfFollowsNesting() {
        let token = fixture.token(scopes: "User.Read")
        let direct = fixture.get("/v1.0/me/memberOf", token: token)
        #expect(Set(direct.values.compactMap { $0["displayName"] as? String }) == ["All Company", "Retail"])
        #expect(direct.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#directoryObjects")
        let transitive = fixture.get("/v1.0/me/transitiveMemberOf", token: token)
        #expect(Set(transitive.values.compactMap { $0["displayName"] as? String }) == ["All Company", "Retail", "Sales and Marketing"])
        let objects = fixture.get("/v1.0/me/getMemberObjects", token: token, method: "POST")
        #expect((objects.json["value"] as? [String])?.count == 3)
        #expect(fixture.get("/v1.0/me/getMemberObjects", token: token).status == .methodNotAllowed)
    }

    @Test func servicePrincipalsAreFoundTheWayAzAdSpLooksThemUp() {
        let token = fixture.token(scopes: "Application.Read.All")
        let cli = fixture.get("/v1.0/servicePrincipals?$filter=servicePrincipalNames/any(c:c%20eq%20'04b07795-8ddb-461a-bbee-02f9e1bf7b46')", token: token)
        #expect(cli.values.map { $0["displayName"] as? String } == ["Microsoft Azure CLI"])
        let none = fixture.get("/v1.0/servicePrincipals?$filter=servicePrincipalNames/any(c:c%20eq%20'non-exist-sp-name')", token: token)
        #expect(none.status == .ok && none.values.isEmpty)
    }
}
