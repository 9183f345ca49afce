import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import LocatedJSON

/// `/groups`, `/groups/{id}`, `/groups/{id}/members`, a user's `memberOf` / `transitiveMemberOf` and
/// `getMemberObjects` (where a token's group overage points), and `/servicePrincipals`. Shapes as recorded
/// (Tests/Fidelity/recordings/graph--groups-*, graph--users-*memberof, graph--serviceprincipals-*).
extension GraphResources {
    static let groupRead = PermissionRequirement(
        delegated: ["GroupMember.Read.All", "Group.Read.All", "Group.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All", "Directory.AccessAsUser.All"],
        application: ["GroupMember.Read.All", "Group.Read.All", "Group.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"]
    )

    static let applicationRead = PermissionRequirement(
        delegated: ["Application.Read.All", "Application.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All", "Directory.AccessAsUser.All"],
        application: ["Application.Read.All", "Application.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"]
    )

    /// The properties Graph returns for a group by default, in its order.
    static let groupProperties = [
        "id", "deletedDateTime", "classification", "createdDateTime", "creationOptions", "description", "displayName",
        "expirationDateTime", "groupTypes", "isAssignableToRole", "mail", "mailEnabled", "mailNickname", "membershipRule",
        "membershipRuleProcessingState", "onPremisesDomainName", "onPremisesLastSyncDateTime", "onPremisesNetBiosName",
        "onPremisesSamAccountName", "onPremisesSecurityIdentifier", "onPremisesSyncEnabled", "preferredDataLocation",
        "preferredLanguage", "proxyAddresses", "renewedDateTime", "resourceBehaviorOptions", "resourceProvisioningOptions",
        "securityEnabled", "securityIdentifier", "theme", "visibility", "onPremisesProvisioningErrors", "serviceProvisioningErrors",
    ]

    /// The tenant's groups (group-list), with the same query options as a relationship cast to groups.
    func groupList() throws(GraphError) -> HTTPResponse {
        guard token.holds(Self.groupRead) else { throw .insufficientPrivileges }
        return try list(directory.groups.filter { $0.tenantID == token.tenantID }.map(ListedObject.group), DirectoryListing(cast: "microsoft.graph.group"))
    }

    func group(id: String) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select"])
        guard token.holds(Self.groupRead) else { throw .insufficientPrivileges }
        let group = try tenantGroup(id)
        let selected = try exchange.query.selected(from: Self.groupProperties, type: "group")
        return exchange.ok(.object([("@odata.context", .string("\(exchange.metadataURL)#groups/$entity"))]
                                   + groupMembers(group, properties: selected ?? Self.groupProperties)), extraHeaders: Self.directoryHeaders)
    }

    /// A group's members: direct, or (`transitive`) with the members of its nested groups, each once.
    func groupMembers(id: String, transitive: Bool, _ listing: DirectoryListing) throws(GraphError) -> HTTPResponse {
        guard token.holds(Self.groupRead) else { throw .insufficientPrivileges }
        let group = try tenantGroup(id)
        let memberIDs = transitive ? directory.transitiveMembers(of: group) : group.members
        let members: [ListedObject] = memberIDs.compactMap { memberID in
            directory.user(id: memberID).map(ListedObject.user) ?? directory.group(id: memberID).map(ListedObject.group)
        }
        return try list(members, listing)
    }

    /// A group's owners (group-list-owners: a collection of directory objects, each naming its type).
    func groupOwners(id: String, _ listing: DirectoryListing) throws(GraphError) -> HTTPResponse {
        guard token.holds(Self.groupRead) else { throw .insufficientPrivileges }
        let group = try tenantGroup(id)
        return try list(group.owners.compactMap { directory.user(id: $0).map(ListedObject.user) }, listing)
    }

    /// The directory objects a user owns (user-list-ownedobjects, `User.Read` for the signed-in user):
    /// the groups naming them owner.
    func ownedObjects(_ subject: GraphSubject, _ listing: DirectoryListing) throws(GraphError) -> HTTPResponse {
        let user = try resolve(subject, access: .profile)
        let owned = directory.groups.filter { $0.tenantID == user.tenantID && $0.owners.contains(user.id) }
        return try list(owned.map(ListedObject.group), listing)
    }

    /// The groups a user belongs to: directly, or (`transitive`) through nested groups as well.
    func memberOf(_ subject: GraphSubject, transitive: Bool, _ listing: DirectoryListing) throws(GraphError) -> HTTPResponse {
        let user = try resolve(subject, access: .profile)
        let groups = transitive ? directory.transitiveGroups(of: user.id) : directory.directGroups(of: user.id)
        return try list(groups.map(ListedObject.group), listing)
    }

    /// `POST …/getMemberObjects {"securityEnabledOnly": bool}`: the ids of every group the user belongs to.
    func memberObjects(_ subject: GraphSubject) throws(GraphError) -> HTTPResponse {
        let user = try resolve(subject, access: .profile)
        var securityOnly = false
        if !exchange.request.body.isEmpty {
            guard let body = try? LocatedJSON.parse(exchange.request.body, file: "request body"), case .object = body.kind else {
                throw GraphError(status: .badRequest, code: "Request_BadRequest", message: "Invalid request body: expected {\"securityEnabledOnly\": true|false}.")
            }
            securityOnly = body["securityEnabledOnly"]?.bool ?? false
        }
        let groups = directory.transitiveGroups(of: user.id).filter { !securityOnly || $0.securityEnabled }
        return exchange.ok(.object([
            ("@odata.context", .string("\(exchange.metadataURL)#Collection(Edm.String)")), ("value", .strings(groups.map(\.id))),
        ]), extraHeaders: Self.directoryHeaders)
    }

    /// The tenant's service principals: its registered apps and Microsoft's first-party ones, filtered by
    /// `appId`, `displayName` or `servicePrincipalNames/any(c:c eq '…')` (how `az ad sp show` looks one up).
    func servicePrincipalList() throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select", "$top", "$filter"])
        guard token.holds(Self.applicationRead) else { throw .insufficientPrivileges }
        var apps = registrations + MicrosoftFirstParty.applications
        if let filter = exchange.query.options["$filter"] {
            apps = try apps.filter(Self.servicePrincipalMatcher(filter))
        }
        let items: [JSONValue] = apps.map { app in
            .object([
                ("id", .string(TokenIdentifiers.servicePrincipalID(clientID: app.clientID, tenantID: token.tenantID))),
                ("accountEnabled", .bool(true)), ("appDisplayName", .string(app.displayName)), ("appId", .string(app.clientID)),
                ("appOwnerOrganizationId", app.tenantID.map { .string($0) } ?? .null), ("displayName", .string(app.displayName)),
                ("servicePrincipalNames", .strings([app.clientID] + app.identifierURIs)), ("servicePrincipalType", .string("Application")),
                ("signInAudience", .string(app.tenantID == nil ? "AzureADMultipleOrgs" : "AzureADMyOrg")), ("tags", .strings([])),
            ])
        }
        return exchange.ok(.object([
            ("@odata.context", .string("\(exchange.metadataURL)#servicePrincipals")), ("value", .array(items)),
        ]), extraHeaders: Self.directoryHeaders)
    }

    static func servicePrincipalMatcher(_ filter: String) throws(GraphError) -> (Application) -> Bool {
        try DirectoryFilter<Application>(parsing: filter, properties: [("appId", \.clientID), ("displayName", \.displayName)],
                                         lists: [("servicePrincipalNames", { [$0.clientID] + $0.identifierURIs })], resource: "ServicePrincipal").matches
    }

    private func tenantGroup(_ id: String) throws(GraphError) -> DirectoryGroup {
        guard let group = directory.group(id: id), group.tenantID == token.tenantID else { throw .resourceNotFound(id) }
        return group
    }

    func groupMembers(_ group: DirectoryGroup, properties: [String]) -> [(String, JSONValue)] {
        let mail: JSONValue = group.mailEnabled ? .string("\(group.mailNickname)@\(directory.tenant(id: group.tenantID)?.primaryDomain ?? "contoso.onmicrosoft.com")") : .null
        return properties.map { property in
            let value: JSONValue = switch property {
            case "id": .string(group.id)
            case "displayName": .string(group.displayName)
            case "description": group.description.map { .string($0) } ?? .null
            case "groupTypes": .strings(group.groupTypes)
            case "mail": mail
            case "mailEnabled": .bool(group.mailEnabled)
            case "mailNickname": .string(group.mailNickname)
            case "securityEnabled": .bool(group.securityEnabled)
            case "createdDateTime", "renewedDateTime": .string("2024-01-01T00:00:00Z")
            case "proxyAddresses": group.mailEnabled ? .strings(["SMTP:\(group.mailNickname)@\(directory.tenant(id: group.tenantID)?.primaryDomain ?? "")"]) : .strings([])
            case "creationOptions", "resourceBehaviorOptions", "resourceProvisioningOptions", "onPremisesProvisioningErrors", "serviceProvisioningErrors": .strings([])
            case "securityIdentifier": .string("S-1-12-1-" + group.id.replacingOccurrences(of: "-", with: "").prefix(8).compactMap { $0.hexDigitValue }.map(String.init).joined())
            case "visibility": group.groupTypes.contains("Unified") ? .string("Public") : .null
            default: .null
            }
            return (property, value)
        }
    }
}
