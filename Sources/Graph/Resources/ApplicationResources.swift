import EntraHTTP
import FoundationGaps
import IdentityPlatform
import LocatedJSON

/// `/applications`: the tenant's app registrations (application-list, application-get), with the
/// directory's query options; `Application.Read.All` or a directory permission.
extension GraphResources {
    func applicationList(countOnly: Bool) throws(GraphError) -> HTTPResponse {
        guard token.holds(Self.applicationRead) else { throw .insufficientPrivileges }
        return try list(registrations.map(ListedObject.application), DirectoryListing(cast: "microsoft.graph.application", countOnly: countOnly))
    }

    func application(_ key: ApplicationKey) throws(GraphError) -> HTTPResponse {
        try exchange.query.requireOnly(["$select"])
        guard token.holds(Self.applicationRead) else { throw .insufficientPrivileges }
        let found = switch key {
        case .objectID(let id): registrations.first { ApplicationView.objectID(of: $0) == id.lowercased() }
        case .appID(let appID): registrations.first { $0.clientID.caseInsensitiveCompare(appID) == .orderedSame }
        }
        guard let app = found else {
            switch key {
            case .objectID(let id): throw .resourceNotFound(id)
            case .appID(let appID): throw .resourceNotFound(appID)
            }
        }
        let selected = try exchange.query.selected(from: ApplicationView.properties, type: "application")
        return exchange.ok(.object([("@odata.context", .string("\(exchange.metadataURL)#applications/$entity"))]
                                   + ApplicationView.members(app, directory: directory, properties: selected ?? ApplicationView.properties)),
                           extraHeaders: Self.directoryHeaders)
    }

    /// The registrations of the token's tenant, and those of no tenant (which any tenant's authority accepts).
    var registrations: [Application] {
        directory.applications.filter { $0.tenantID == nil || $0.tenantID == token.tenantID }
    }
}
