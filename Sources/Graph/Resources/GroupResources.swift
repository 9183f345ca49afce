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
        var apps = directory.applications.filter { $0.tenantID == nil || $0.tenantID == token.tenantID } + MicrosoftFirstParty.applications
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
        if let match = filter.firstMatch(of: #/^\s*servicePrincipalNames/any\(\s*(\w+)\s*:\s*\1\s+eq\s+'([^']*)'\s*\)\s*$/#.ignoresCase()) {
            let name = String(match.2)
            return { app in app.clientID.caseInsensitiveCompare(name) == .orderedSame || app.identifierURIs.contains { $0.caseInsensitiveCompare(name) == .orderedSame } }
        }
        let parsed = try DirectoryFilter<Application>(parsing: filter, properties: [("appId", \.clientID), ("displayName", \.displayName)], resource: "ServicePrincipal")
        return parsed.matches
    }

    private func tenantGroup(_ id: String) throws(GraphError) -> DirectoryGroup {
        guard let group = directory.group(id: id), group.tenantID == token.tenantID else {
            throw GraphError(status: .notFound, code: "Request_ResourceNotFound",
                             message: "Resource '\(id)' does not exist or one of its queried reference-property objects are not present.")
        }
        return group
    }

    private func groupMembers(_ group: DirectoryGroup, properties: [String]) -> [(String, JSONValue)] {
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

    /// A relationship's objects as the directory lists them (recorded in Graph's group-list-members and
    /// user-list-memberof docs): cast to one type, filtered, searched and ordered, counted with
    /// `$count=true` or as the text of `/$count`. `$search` and `$count` are advanced queries that need
    /// `ConsistencyLevel: eventual`.
    func list(_ objects: [ListedObject], _ listing: DirectoryListing) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(listing.countOnly ? ["$filter", "$search"] : ["$select", "$top", "$filter", "$count", "$search", "$orderby"])
        let eventual = acceptsEventualConsistency
        let advanced = eventual && exchange.query.options["$count"]?.lowercased() == "true"
        var objects = objects
        let entitySet: String
        switch listing.cast {
        case nil: entitySet = "directoryObjects"
        case "microsoft.graph.user": entitySet = "users"; objects = objects.filter(\.isUser)
        case "microsoft.graph.group": entitySet = "groups"; objects = objects.filter { !$0.isUser }
        case let other?: throw .segmentNotFound(other)
        }
        if let filter = exchange.query.options["$filter"] {
            let users = Result<DirectoryFilter<DirectoryUser>, GraphError> { () throws(GraphError) in
                try DirectoryFilter(parsing: filter, properties: DirectoryFilter<DirectoryUser>.userProperties, resource: "User", advancedQuery: advanced)
            }
            let groups = Result<DirectoryFilter<DirectoryGroup>, GraphError> { () throws(GraphError) in
                try DirectoryFilter(parsing: filter, properties: DirectoryFilter<DirectoryGroup>.groupProperties, flags: DirectoryFilter<DirectoryGroup>.groupFlags,
                                    lists: DirectoryFilter<DirectoryGroup>.groupLists, resource: "Group", advancedQuery: advanced)
            }
            // A cast collection refuses what its type cannot filter on; a mixed one what neither type can.
            switch (listing.cast, users, groups) {
            case ("microsoft.graph.user", .failure(let error), _), ("microsoft.graph.group", _, .failure(let error)), (nil, .failure(let error), .failure): throw error
            default: break
            }
            objects = objects.filter { object in
                switch object {
                case .user(let user): (try? users.get())?.matches(user) ?? false
                case .group(let group): (try? groups.get())?.matches(group) ?? false
                }
            }
        }
        if let search = exchange.query.options["$search"] {
            guard eventual else { throw DirectorySearch<DirectoryUser>.needsConsistencyLevel }
            let users = Result<DirectorySearch<DirectoryUser>, GraphError> { () throws(GraphError) in
                try DirectorySearch(parsing: search, properties: DirectoryFilter<DirectoryUser>.userProperties)
            }
            let groups = Result<DirectorySearch<DirectoryGroup>, GraphError> { () throws(GraphError) in
                try DirectorySearch(parsing: search, properties: DirectoryFilter<DirectoryGroup>.groupProperties)
            }
            // As with a filter: a cast collection refuses what its type cannot search, a mixed one what neither can.
            switch (listing.cast, users, groups) {
            case ("microsoft.graph.user", .failure(let error), _), ("microsoft.graph.group", _, .failure(let error)), (nil, .failure(let error), .failure): throw error
            default: break
            }
            objects = objects.filter { object in
                switch object {
                case .user(let user): (try? users.get())?.matches(user) ?? false
                case .group(let group): (try? groups.get())?.matches(group) ?? false
                }
            }
        }
        if listing.countOnly {
            guard eventual else { throw GraphError(status: .badRequest, code: "Request_BadRequest", message: "$count is not currently supported.") }
            var response = exchange.ok(.object([]), extraHeaders: Self.directoryHeaders)
            response.headers.set("Content-Type", "text/plain")
            response.body = Array(String(objects.count).utf8)
            return response
        }
        for key in exchange.query.orderBy.reversed() {
            guard key.property.caseInsensitiveCompare("displayName") == .orderedSame else { throw .unsupportedQuery }
            objects = objects.sortedStably { a, b in
                let order = a.displayName.localizedCaseInsensitiveCompare(b.displayName)
                return key.descending ? order == .orderedDescending : order == .orderedAscending
            }
        }
        let userProperties = GraphUserView.selectableProperties(in: directory.tenant(id: token.tenantID))
        let selected: [String]? = switch listing.cast {
        case "microsoft.graph.user": try exchange.query.selected(from: userProperties, type: "user")
        case "microsoft.graph.group": try exchange.query.selected(from: Self.groupProperties, type: "group")
        default: try exchange.query.selected(from: userProperties + Self.groupProperties.filter { !userProperties.contains($0) }, type: "directoryObject")
        }
        let page = objects.prefix(try exchange.query.top ?? 100)
        let items: [JSONValue] = page.map { object in
            // A cast collection is of one type; a collection of directory objects names each one's.
            let type: [(String, JSONValue)] = listing.cast == nil ? [("@odata.type", .string(object.odataType))] : []
            switch object {
            case .user(let user):
                let properties = selected.map { $0.filter(userProperties.contains) } ?? GraphUserView.defaultProperties
                return .object(type + GraphUserView.members(user, tenant: directory.tenant(id: user.tenantID), content: dataset.content(for: user), properties: properties))
            case .group(let group):
                return .object(type + groupMembers(group, properties: selected.map { $0.filter(Self.groupProperties.contains) } ?? Self.groupProperties))
            }
        }
        var body: [(String, JSONValue)] = [("@odata.context", .string("\(exchange.metadataURL)#\(entitySet)" + (selected.map { "(\($0.joined(separator: ",")))" } ?? "")))]
        if advanced { body.append(("@odata.count", .int(objects.count))) }
        body.append(("value", .array(items)))
        return exchange.ok(.object(body), extraHeaders: Self.directoryHeaders)
    }
}

/// An object a directory relationship lists.
enum ListedObject {
    case user(DirectoryUser)
    case group(DirectoryGroup)

    var isUser: Bool {
        if case .user = self { return true }
        return false
    }

    var displayName: String {
        switch self {
        case .user(let user): user.displayName
        case .group(let group): group.displayName
        }
    }

    var odataType: String { isUser ? "#microsoft.graph.user" : "#microsoft.graph.group" }
}
