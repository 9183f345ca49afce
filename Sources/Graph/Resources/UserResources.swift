import EntraCrypto
import EntraHTTP
import FoundationGaps
import LocatedJSON
import ExchangeKernel
import IdentityPlatform

/// `/me`, `/users/{id}`, `/users`, the service root and UserInfo.
extension GraphResources {
    func user(_ subject: GraphSubject) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select", "$expand"])
        if exchange.query.options["$expand"] != nil { throw .unsupportedQueryOption("$expand") }
        let user = try resolve(subject, access: .profile)
        let tenant = directory.tenant(id: user.tenantID)
        let selected = try exchange.query.selected(from: GraphUserView.selectableProperties(in: tenant), type: "user")
        // Mailbox settings live in Exchange, which wants its own permission even through the user.
        if selected?.contains("mailboxSettings") == true, !token.holds(MailboxSettingsView.permission) { throw .accessDenied }
        let context = "\(exchange.metadataURL)#\(GraphUserView.entitySet(selected: selected))/$entity"
        let members = GraphUserView.members(user, tenant: tenant, content: dataset.content(for: user), properties: selected ?? GraphUserView.defaultProperties)
        return exchange.ok(.object([("@odata.context", .string(context))] + members), extraHeaders: Self.directoryHeaders)
    }

    /// The directory's answers count against its throttling budget in resource units (recorded users and
    /// groups answers: `x-ms-resource-unit: 1`).
    static let directoryHeaders: HTTPHeaders = ["x-ms-resource-unit": "1"]

    func userList() throws(GraphError) -> HTTPResponse {
        // The directory words an option it does not take its own way (recorded `$skip` on /users).
        if let refused = exchange.query.options.keys.sorted().first(where: { !["$select", "$top", "$filter", "$orderby", "$skiptoken", "$search", "$count"].contains($0) }) {
            throw GraphError(status: .badRequest, code: "Request_BadRequest", message: "'\(refused)' is not supported by the service.")
        }
        guard token.holds(.anyProfile) else { throw .insufficientPrivileges }
        // Advanced queries ($search, $count) need the client to accept eventual consistency; without it
        // `$count=true` is ignored (learn.microsoft.com, "Advanced query capabilities on directory objects").
        let counted = isAdvancedQuery
        let selected = try exchange.query.selected(from: GraphUserView.selectableProperties(in: directory.tenant(id: token.tenantID)), type: "user")
        if selected?.contains("mailboxSettings") == true, !token.holds(MailboxSettingsView.permission) { throw .accessDenied }
        let pageSize = try pageSize(default: exchange.options.userPageSize)
        var users = try filteredUsers()
        for key in exchange.query.orderBy.reversed() {
            guard let property = ["displayName", "userPrincipalName"].first(where: { $0.caseInsensitiveCompare(key.property) == .orderedSame }) else {
                throw .unsupportedQuery
            }
            users = users.sortedStably { a, b in
                let (x, y) = property == "displayName" ? (a.displayName, b.displayName) : (a.userPrincipalName, b.userPrincipalName)
                let order = x.localizedCaseInsensitiveCompare(y)
                return key.descending ? order == .orderedDescending : order == .orderedAscending
            }
        }
        let (page, nextLink) = try self.page(users, size: pageSize)
        var body: [(String, JSONValue)] = [("@odata.context", .string("\(exchange.metadataURL)#\(GraphUserView.entitySet(selected: selected))"))]
        if counted { body.append(("@odata.count", .int(users.count))) }
        if let nextLink { body.append(("@odata.nextLink", .string(nextLink))) }
        let items = page.map { user in
            JSONValue.object(GraphUserView.members(
                user, tenant: directory.tenant(id: user.tenantID), content: dataset.content(for: user), properties: selected ?? GraphUserView.defaultProperties
            ))
        }
        body.append(("value", .array(items)))
        return exchange.ok(.object(body), extraHeaders: Self.directoryHeaders)
    }

    /// `GET /users/$count`: how many users the filter and search leave, as plain text; an advanced query,
    /// refused without `ConsistencyLevel: eventual` (both recorded in Graph's advanced-query docs).
    func userCount() throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$filter", "$search"])
        guard token.holds(.anyProfile) else { throw .insufficientPrivileges }
        guard acceptsEventualConsistency else {
            throw GraphError(status: .badRequest, code: "Request_BadRequest", message: "$count is not currently supported.")
        }
        return countText(try filteredUsers().count)
    }

    var acceptsEventualConsistency: Bool { exchange.request.headers["ConsistencyLevel"]?.lowercased() == "eventual" }

    /// An advanced query's `$count=true`: counted only with `ConsistencyLevel: eventual`.
    var isAdvancedQuery: Bool { acceptsEventualConsistency && exchange.query.options["$count"]?.lowercased() == "true" }

    /// `$top`, 1 to 999, or `fallback`.
    func pageSize(default fallback: Int) throws(GraphError) -> Int {
        let size = try exchange.query.top ?? fallback
        guard (1...999).contains(size) else { throw .invalidPageSize(size) }
        return size
    }

    /// The page of `all` `$skiptoken` points at, and the link to the next one while objects remain.
    func page<Item>(_ all: [Item], size: Int) throws(GraphError) -> (items: ArraySlice<Item>, nextLink: String?) {
        let offset = try exchange.query.options["$skiptoken"].map { raw throws(GraphError) in try SkipToken.offset(raw) } ?? 0
        guard all.count - offset > size else { return (all.dropFirst(offset).prefix(size), nil) }
        return (all.dropFirst(offset).prefix(size),
                NextLink.url(origin: exchange.origin, request: exchange.request, setting: "$skiptoken", to: SkipToken.make(offset + size)))
    }

    /// A collection's `/$count`: the number as plain text.
    func countText(_ count: Int) -> HTTPResponse {
        var response = exchange.ok(.object([]), extraHeaders: Self.directoryHeaders)
        response.headers.set("Content-Type", "text/plain")
        response.body = Array(String(count).utf8)
        return response
    }

    /// The caller's tenant's users that `$filter` and `$search` leave.
    private func filteredUsers() throws(GraphError) -> [DirectoryUser] {
        var users = directory.users(inTenant: token.tenantID)
        if let filter = exchange.query.options["$filter"] {
            let clause = try DirectoryFilter(parsing: filter, properties: DirectoryFilter<DirectoryUser>.userProperties, resource: "User", advancedQuery: isAdvancedQuery)
            users = users.filter(clause.matches)
        }
        if let search = exchange.query.options["$search"] {
            guard acceptsEventualConsistency else { throw DirectorySearch<DirectoryUser>.needsConsistencyLevel }
            let parsed = try DirectorySearch(parsing: search, properties: DirectoryFilter<DirectoryUser>.userProperties)
            users = users.filter(parsed.matches)
        }
        return users
    }

    /// `GET /v1.0`: the OData service document, listing what this fake serves.
    func serviceRoot() throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly([])
        let sets: [(String, String)] = [("users", "EntitySet"), ("me", "Singleton")]
        return exchange.ok(.object([
            ("@odata.context", .string(exchange.metadataURL)),
            ("value", .array(sets.map { name, kind in
                .object([("name", .string(name)), ("kind", .string(kind)), ("url", .string(name))])
            })),
        ]))
    }

    /// The OpenID Connect UserInfo endpoint: `sub` (the token's pairwise subject), name claims, picture, email.
    /// Real Graph also demands `openid` in `scp`; this fake accepts any delegated Graph token because its
    /// tokens keep OIDC scopes out of `scp` (see PROTOCOL.md §4).
    func userInfo() throws(GraphError) -> HTTPResponse {
        guard token.kind == .delegated else { throw .insufficientPrivileges }
        guard let user = directory.user(id: token.objectID), user.tenantID == token.tenantID else {
            throw .resourceNotFound(token.objectID)
        }
        var members: [(String, JSONValue)] = [("sub", .string(token.subject ?? user.id)), ("name", .string(user.displayName))]
        if let surname = user.surname { members.append(("family_name", .string(surname))) }
        if let given = user.givenName { members.append(("given_name", .string(given))) }
        members.append(("picture", .string("https://graph.microsoft.com/v1.0/me/photo/$value")))
        if let email = user.mail ?? (user.userPrincipalName.contains("@") ? user.userPrincipalName : nil) {
            members.append(("email", .string(email)))
        }
        var response = exchange.ok(.object(members))
        response.headers.set("Content-Type", "application/json; charset=utf-8")
        response.headers.remove("OData-Version")
        return response
    }
}

/// `$skiptoken` for the users list: opaque to clients, an offset to us.
enum SkipToken {
    static func make(_ offset: Int) -> String { "RFNwdAoA" + Base64URL.encode(Array("offset:\(offset)".utf8)) }

    static func offset(_ token: String) throws(GraphError) -> Int {
        guard token.hasPrefix("RFNwdAoA"), let bytes = Base64URL.decode(String(token.dropFirst(8))),
              let text = String(validating: bytes, as: UTF8.self), text.hasPrefix("offset:"), let value = Int(text.dropFirst(7)), value >= 0
        else {
            throw GraphError(
                status: .badRequest, code: "Directory_ExpiredPageToken",
                message: "The specified page token value has expired and can no longer be included in your request."
            )
        }
        return value
    }
}

extension Array {
    /// A stable sort (Swift's `sorted` is not guaranteed stable), so multi-key `$orderby` composes.
    func sortedStably(by areInIncreasingOrder: (Element, Element) -> Bool) -> [Element] {
        enumerated().sorted { a, b in
            if areInIncreasingOrder(a.element, b.element) { return true }
            if areInIncreasingOrder(b.element, a.element) { return false }
            return a.offset < b.offset
        }.map(\.element)
    }
}
