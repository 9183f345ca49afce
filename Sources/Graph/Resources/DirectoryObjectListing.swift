import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import LocatedJSON

/// An object a directory collection lists: a relationship's members and owners, or a whole entity set.
enum ListedObject {
    case user(DirectoryUser)
    case group(DirectoryGroup)
    case application(Application)

    var displayName: String {
        switch self {
        case .user(let user): user.displayName
        case .group(let group): group.displayName
        case .application(let app): app.displayName
        }
    }

    /// The cast that keeps only this kind (`microsoft.graph.user`), and its `@odata.type` in a mixed collection.
    var cast: String {
        switch self {
        case .user: "microsoft.graph.user"
        case .group: "microsoft.graph.group"
        case .application: "microsoft.graph.application"
        }
    }

    var odataType: String { "#" + cast }
}

/// How each kind of directory object is filtered, searched and selected, read once per listing: a kind that
/// cannot take the query is a refusal only when the listing is of that kind alone.
private struct ListingQuery {
    var users: Result<(DirectoryUser) -> Bool, GraphError>
    var groups: Result<(DirectoryGroup) -> Bool, GraphError>
    var applications: Result<(Application) -> Bool, GraphError>

    /// The refusal of a listing cast to one kind, or of a mixed one (users and groups) that neither can take.
    func refusal(cast: String?) -> GraphError? {
        switch (cast, users, groups, applications) {
        case ("microsoft.graph.user", .failure(let error), _, _), ("microsoft.graph.group", _, .failure(let error), _),
             ("microsoft.graph.application", _, _, .failure(let error)), (nil, .failure(let error), .failure, _): error
        default: nil
        }
    }

    func matches(_ object: ListedObject) -> Bool {
        switch object {
        case .user(let user): (try? users.get())?(user) ?? false
        case .group(let group): (try? groups.get())?(group) ?? false
        case .application(let app): (try? applications.get())?(app) ?? false
        }
    }
}

extension GraphResources {
    /// A directory collection as Graph lists it (recorded in Graph's group-list-members, user-list-memberof
    /// and group-list docs): cast to one type, filtered, searched and ordered, counted with `$count=true` or
    /// as the text of `/$count`, paged with `@odata.nextLink` (100 objects a page unless `$top` says).
    /// `$search` and `$count` are advanced queries that need `ConsistencyLevel: eventual`; `ne` and `NOT(…)`
    /// need `$count=true` as well.
    func list(_ objects: [ListedObject], _ listing: DirectoryListing) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(listing.countOnly ? ["$filter", "$search"] : ["$select", "$top", "$filter", "$count", "$search", "$orderby", "$skiptoken"])
        let eventual = acceptsEventualConsistency
        let advanced = isAdvancedQuery
        var objects = objects
        let entitySet: String
        switch listing.cast {
        case nil: entitySet = "directoryObjects"
        case "microsoft.graph.user": entitySet = "users"
        case "microsoft.graph.group": entitySet = "groups"
        case "microsoft.graph.application": entitySet = "applications"
        case let other?: throw .segmentNotFound(other)
        }
        if let cast = listing.cast { objects = objects.filter { $0.cast == cast } }
        if let filter = exchange.query.options["$filter"] {
            let query = ListingQuery(
                users: Result { () throws(GraphError) in
                    try DirectoryFilter(parsing: filter, properties: DirectoryFilter<DirectoryUser>.userProperties, resource: "User", advancedQuery: advanced).matches
                },
                groups: Result { () throws(GraphError) in
                    try DirectoryFilter(parsing: filter, properties: DirectoryFilter<DirectoryGroup>.groupProperties, flags: DirectoryFilter<DirectoryGroup>.groupFlags,
                                        lists: DirectoryFilter<DirectoryGroup>.groupLists, resource: "Group", advancedQuery: advanced).matches
                },
                applications: Result { () throws(GraphError) in
                    try DirectoryFilter(parsing: filter, properties: DirectoryFilter<Application>.applicationProperties,
                                        lists: DirectoryFilter<Application>.applicationLists, resource: "Application", advancedQuery: advanced).matches
                })
            if let refusal = query.refusal(cast: listing.cast) { throw refusal }
            objects = objects.filter(query.matches)
        }
        if let search = exchange.query.options["$search"] {
            guard eventual else { throw DirectorySearch<DirectoryUser>.needsConsistencyLevel }
            let query = ListingQuery(
                users: Result { () throws(GraphError) in try DirectorySearch(parsing: search, properties: DirectoryFilter<DirectoryUser>.userProperties).matches },
                groups: Result { () throws(GraphError) in try DirectorySearch(parsing: search, properties: DirectoryFilter<DirectoryGroup>.groupProperties).matches },
                applications: Result { () throws(GraphError) in try DirectorySearch(parsing: search, properties: DirectoryFilter<Application>.applicationProperties).matches })
            if let refusal = query.refusal(cast: listing.cast) { throw refusal }
            objects = objects.filter(query.matches)
        }
        if listing.countOnly {
            guard eventual else { throw GraphError(status: .badRequest, code: "Request_BadRequest", message: "$count is not currently supported.") }
            return countText(objects.count)
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
        case "microsoft.graph.application": try exchange.query.selected(from: ApplicationView.properties, type: "application")
        default: try exchange.query.selected(from: userProperties + Self.groupProperties.filter { !userProperties.contains($0) }, type: "directoryObject")
        }
        let (page, nextLink) = try self.page(objects, size: try pageSize(default: 100))
        // The same for every object of a kind.
        let userSelection = selected.map { $0.filter(userProperties.contains) } ?? GraphUserView.defaultProperties
        let groupSelection = selected.map { $0.filter(Self.groupProperties.contains) } ?? Self.groupProperties
        let items: [JSONValue] = page.map { object in
            // A cast collection is of one type; a collection of directory objects names each one's.
            let type: [(String, JSONValue)] = listing.cast == nil ? [("@odata.type", .string(object.odataType))] : []
            switch object {
            case .user(let user):
                return .object(type + GraphUserView.members(user, tenant: directory.tenant(id: user.tenantID), content: dataset.content(for: user), properties: userSelection))
            case .group(let group):
                return .object(type + groupMembers(group, properties: groupSelection))
            case .application(let app):
                return .object(type + ApplicationView.members(app, directory: directory, properties: selected ?? ApplicationView.properties))
            }
        }
        var body: [(String, JSONValue)] = [("@odata.context", .string("\(exchange.metadataURL)#\(entitySet)" + (selected.map { "(\($0.joined(separator: ",")))" } ?? "")))]
        if advanced { body.append(("@odata.count", .int(objects.count))) }
        if let nextLink { body.append(("@odata.nextLink", .string(nextLink))) }
        body.append(("value", .array(items)))
        return exchange.ok(.object(body), extraHeaders: Self.directoryHeaders)
    }
}
