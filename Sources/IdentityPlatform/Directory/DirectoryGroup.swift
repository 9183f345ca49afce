import EntraHTTP

/// A group of the directory: security groups and Microsoft 365 (`Unified`) groups, whose members are
/// users or other groups (nested). Membership is what Graph's `memberOf`/`transitiveMemberOf` list and
/// what a token's `groups` claim carries for an app that asks for it.
package struct DirectoryGroup: Sendable, Codable, Equatable {
    package var id: String
    package var tenantID: String
    package var displayName: String
    package var description: String?
    package var mailNickname: String
    package var securityEnabled: Bool
    package var mailEnabled: Bool
    /// `["Unified"]` for a Microsoft 365 group, `[]` for a security group.
    package var groupTypes: [String]
    /// Object ids of the members: users and groups.
    package var members: [String]
    /// Object ids of the users who own the group (`/groups/{id}/owners`, a user's `ownedObjects`).
    package var owners: [String]

    package init(id: String, tenantID: String, displayName: String, description: String? = nil, mailNickname: String? = nil,
                 securityEnabled: Bool = true, mailEnabled: Bool = false, groupTypes: [String] = [], members: [String] = [],
                 owners: [String] = []) {
        self.id = id.lowercased()
        self.tenantID = tenantID.lowercased()
        self.displayName = displayName
        self.description = description
        self.mailNickname = mailNickname ?? String(displayName.filter { $0.isLetter || $0.isNumber }).lowercased()
        self.securityEnabled = securityEnabled
        self.mailEnabled = mailEnabled
        self.groupTypes = groupTypes
        self.members = members.map { $0.lowercased() }
        self.owners = owners.map { $0.lowercased() }
    }

    /// The demo organisation's groups: a Microsoft 365 group of everyone, two security groups, and one
    /// nested in another (so transitive membership differs from direct). Adele owns the first two, Alex
    /// the others.
    package static func demo(tenantID: String, adele: String, alex: String) -> [DirectoryGroup] {
        let retail = "2f0b6a1c-3d4e-4f5a-8b6c-7d8e9f0a1b2c", marketing = "3a1c7b2d-4e5f-4a6b-9c7d-8e9f0a1b2c3d"
        return [
            DirectoryGroup(id: "1e9a5f0b-2c3d-4e4f-9a5b-6c7d8e9f0a1b", tenantID: tenantID, displayName: "All Company",
                           description: "Everyone at Contoso", mailNickname: "allcompany", securityEnabled: false, mailEnabled: true,
                           groupTypes: ["Unified"], members: [adele, alex], owners: [adele]),
            DirectoryGroup(id: retail, tenantID: tenantID, displayName: "Retail", description: "Store managers and staff", members: [adele], owners: [adele]),
            DirectoryGroup(id: marketing, tenantID: tenantID, displayName: "Marketing", description: "Marketing team", members: [alex], owners: [alex]),
            DirectoryGroup(id: "4b2d8c3e-5f6a-4b7c-8d8e-9f0a1b2c3d4e", tenantID: tenantID, displayName: "Sales and Marketing",
                           description: "Retail and Marketing, nested", members: [retail, marketing], owners: [alex]),
        ]
    }
}

extension Directory {
    package func group(id: String) -> DirectoryGroup? {
        let wanted = id.fastLowercased
        return groups.first { $0.id == wanted }
    }

    /// The groups `objectID` is a direct member of.
    package func directGroups(of objectID: String) -> [DirectoryGroup] {
        let member = objectID.fastLowercased
        return groups.filter { $0.members.contains(member) }
    }

    /// The object ids of `group`'s members and of its nested groups' members, in breadth-first order, each once.
    package func transitiveMembers(of group: DirectoryGroup) -> [String] {
        var found: [String] = []
        var seen: Set<String> = [group.id.fastLowercased]
        var pending = [group]
        while !pending.isEmpty {
            let current = pending.removeFirst()
            for memberID in current.members where seen.insert(memberID.fastLowercased).inserted {
                found.append(memberID)
                if let nested = self.group(id: memberID) { pending.append(nested) }
            }
        }
        return found
    }

    /// The groups `objectID` belongs to directly or through nested groups, each once (cycles end).
    package func transitiveGroups(of objectID: String) -> [DirectoryGroup] {
        var found: [DirectoryGroup] = []
        var seen = Set<String>()
        var pending = [objectID.fastLowercased]
        while let next = pending.popLast() {
            for group in directGroups(of: next) where seen.insert(group.id).inserted {
                found.append(group)
                pending.append(group.id)
            }
        }
        return found
    }
}

/// An app registration's `groupMembershipClaims`: which groups its tokens name.
package enum GroupMembershipClaims: String, Sendable, Codable {
    /// No `groups` claim (the default).
    case none = "None"
    /// Security groups the user belongs to, nested ones included.
    case securityGroup = "SecurityGroup"
    /// Security groups, Microsoft 365 groups and directory roles.
    case all = "All"
}
