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

    /// A group's transitive members: its nested groups and their members, each once (Graph's
    /// group-list-transitivemembers); cast to users, only the people.
    @Test func transitiveMembersFollowNesting() {
        let token = fixture.token(scopes: "Group.Read.All")
        let members = "/v1.0/groups/\(Self.salesAndMarketing)"
        let direct = Set(fixture.get(members + "/members", token: token).values.compactMap { $0["id"] as? String })
        let transitive = fixture.get(members + "/transitiveMembers", token: token)
        #expect(transitive.status == .ok)
        let ids = transitive.values.compactMap { $0["id"] as? String }
        #expect(Set(ids).isSuperset(of: direct) && ids.count > direct.count && Set(ids).count == ids.count, "\(ids)")
        let users = fixture.get(members + "/transitiveMembers/microsoft.graph.user", token: token)
        #expect(!users.values.isEmpty && users.values.allSatisfy { $0["userPrincipalName"] is String })
        #expect(users.values.count == ids.count - direct.count, "the nested groups' members: people only, the groups themselves direct")
    }

    /// A group's owners (group-list-owners) and the groups a user owns (user-list-ownedobjects, `User.Read`
    /// for the signed-in user): one relationship read from both ends.
    @Test func ownersAndOwnedObjectsAreTheSameRelationship() {
        let owners = fixture.get("/v1.0/groups/\(Self.salesAndMarketing)/owners", token: fixture.token(scopes: "Group.Read.All"))
        #expect(owners.status == .ok && owners.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#directoryObjects")
        #expect(owners.values.map { $0["userPrincipalName"] as? String } == ["alex.wilber@contoso.onmicrosoft.com"])
        #expect(owners.values.allSatisfy { $0["@odata.type"] as? String == "#microsoft.graph.user" })
        #expect(fixture.get("/v1.0/groups/\(Self.salesAndMarketing)/owners", token: fixture.token(scopes: "User.Read")).status == .forbidden)
        let eventual = [("ConsistencyLevel", "eventual")]
        let count = fixture.get("/v1.0/groups/\(Self.salesAndMarketing)/owners/$count", token: fixture.token(scopes: "Group.Read.All"), headers: eventual)
        #expect(String(decoding: count.body, as: UTF8.self) == "1")
        let owned = fixture.get("/v1.0/me/ownedObjects", token: fixture.token(scopes: "User.Read"))
        #expect(owned.status == .ok)
        #expect(Set(owned.values.compactMap { $0["displayName"] as? String }) == ["All Company", "Retail"])
        #expect(owned.values.allSatisfy { $0["@odata.type"] as? String == "#microsoft.graph.group" })
        #expect(fixture.get("/v1.0/me/ownedObjects/microsoft.graph.user", token: fixture.token(scopes: "User.Read")).values.isEmpty)
    }

    /// The group list's advanced queries (group-list examples 5 and 6): `$search` joining clauses with OR,
    /// sorted and counted; a filter on boolean properties, a collection's `any()` and `NOT(…)`, the last only
    /// with `ConsistencyLevel: eventual` and `$count=true`.
    @Test func groupListTakesSearchesOrderAndNegatedLambdas() {
        let token = fixture.token(scopes: "Group.Read.All")
        let eventual = [("ConsistencyLevel", "eventual")]
        let searched = fixture.get("/v1.0/groups?$search=%22displayName:ret%22%20OR%20%22description:nested%22&$orderby=displayName&$count=true", token: token, headers: eventual)
        #expect(searched.values.map { $0["displayName"] as? String } == ["Retail", "Sales and Marketing"] && searched.json["@odata.count"] as? Int == 2)
        let unified = "groupTypes/any(c:c%20eq%20%27Unified%27)"
        #expect(fixture.get("/v1.0/groups?$filter=\(unified)", token: token).values.map { $0["displayName"] as? String } == ["All Company"])
        let security = fixture.get("/v1.0/groups?$filter=mailEnabled%20eq%20false%20and%20securityEnabled%20eq%20true%20and%20NOT(\(unified))&$count=true", token: token, headers: eventual)
        #expect(security.values.compactMap { $0["displayName"] as? String } == ["Retail", "Marketing", "Sales and Marketing"] && security.json["@odata.count"] as? Int == 3)
        let refused = fixture.get("/v1.0/groups?$filter=NOT(\(unified))", token: token)
        #expect(refused.errorCode == "Request_UnsupportedQuery" && refused.errorMessage?.hasPrefix("Operator 'not' is not supported") == true)
        #expect(fixture.get("/v1.0/groups?$filter=displayName%20ne%20%27Retail%27", token: token).errorMessage?.hasPrefix("Operator 'ne'") == true)
        let others = fixture.get("/v1.0/groups?$filter=displayName%20ne%20%27Retail%27&$count=true", token: token, headers: eventual)
        #expect(others.values.count == 3 && !others.values.contains { $0["displayName"] as? String == "Retail" })
        #expect(fixture.get("/v1.0/groups?$filter=mailEnabled%20eq%20%27yes%27", token: token).errorCode == "Request_UnsupportedQuery", "a boolean compared with text")
    }

    /// A relationship's pages follow one another by `@odata.nextLink`, as Graph pages directory objects.
    @Test func relationshipsArePagedByNextLink() throws {
        let token = fixture.token(scopes: "User.Read")
        let first = fixture.get("/v1.0/me/memberOf?$top=1&$select=displayName", token: token)
        let link = try #require(first.json["@odata.nextLink"] as? String)
        #expect(first.values.count == 1 && link.contains("$skiptoken="))
        let path = try #require(URLComponents(string: link)).percentEncodedPath + "?" + (URLComponents(string: link)?.percentEncodedQuery ?? "")
        let second = fixture.get(path, token: token)
        #expect(second.values.count == 1 && second.json["@odata.nextLink"] == nil)
        #expect(Set((first.values + second.values).compactMap { $0["displayName"] as? String }) == ["All Company", "Retail"])
        #expect(fixture.get("/v1.0/me/memberOf?$top=1000", token: token).status == .badRequest)
    }

    /// Advanced queries on a relationship (Graph's group-list-members and user-list-memberof docs): a
    /// cast keeps one type, `/$count` answers a number as text, `$count=true` and `$search` need
    /// `ConsistencyLevel: eventual`.
    @Test func relationshipsTakeCastsCountsAndSearchesWithEventualConsistency() {
        let token = fixture.token(scopes: "Group.Read.All")
        let eventual = [("ConsistencyLevel", "eventual")]
        let members = "/v1.0/groups/\(Self.salesAndMarketing)/members"
        let count = fixture.get(members + "/$count", token: token, headers: eventual)
        #expect(count.status == .ok && count.headers["Content-Type"] == "text/plain" && String(decoding: count.body, as: UTF8.self) == "2")
        #expect(fixture.get(members + "/$count", token: token).errorCode == "Request_BadRequest", "an advanced query without eventual consistency")
        #expect(String(decoding: fixture.get(members + "/microsoft.graph.user/$count", token: token, headers: eventual).body, as: UTF8.self) == "0")
        let groups = fixture.get(members + "/microsoft.graph.group?$count=true&$orderby=displayName&$select=displayName,id", token: token, headers: eventual)
        #expect(groups.values.map { $0["displayName"] as? String } == ["Marketing", "Retail"])
        #expect(groups.json["@odata.count"] as? Int == 2 && groups.json["@odata.context"] as? String == "https://graph.microsoft.com/v1.0/$metadata#groups(displayName,id)")
        #expect(groups.values.allSatisfy { $0["@odata.type"] == nil && $0.count == 2 }, "a cast collection is of one type")
        let searched = fixture.get("/v1.0/me/memberOf/microsoft.graph.group?$search=%22displayName:ret%22&$count=true", token: fixture.token(scopes: "User.Read"), headers: eventual)
        #expect(searched.values.map { $0["displayName"] as? String } == ["Retail"] && searched.json["@odata.count"] as? Int == 1)
        #expect(fixture.get("/v1.0/me/memberOf?$search=%22displayName:ret%22", token: fixture.token(scopes: "User.Read")).errorCode == "Request_UnsupportedQuery")
        #expect(fixture.get("/v1.0/me/memberOf?$count=true", token: fixture.token(scopes: "User.Read")).json["@odata.count"] == nil, "ignored without eventual consistency")
        #expect(fixture.get(members + "/microsoft.graph.device", token: token).status == .badRequest, "a type FakeEntra's directory does not hold")
    }

    @Test func servicePrincipalsAreFoundTheWayAzAdSpLooksThemUp() {
        let token = fixture.token(scopes: "Application.Read.All")
        let cli = fixture.get("/v1.0/servicePrincipals?$filter=servicePrincipalNames/any(c:c%20eq%20'04b07795-8ddb-461a-bbee-02f9e1bf7b46')", token: token)
        #expect(cli.values.map { $0["displayName"] as? String } == ["Microsoft Azure CLI"])
        let none = fixture.get("/v1.0/servicePrincipals?$filter=servicePrincipalNames/any(c:c%20eq%20'non-exist-sp-name')", token: token)
        #expect(none.status == .ok && none.values.isEmpty)
    }
}
