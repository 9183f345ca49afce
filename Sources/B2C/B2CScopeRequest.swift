import IdentityPlatform
import FoundationGaps

/// A B2C `scope` parameter: the OpenID Connect scopes, the client's own id (an access token for the app
/// itself) and the scopes of at most one web API (`https://<domain>/<api>/<scope>`). B2C has no user
/// consent: an API's scopes are granted when the tenant's admin granted them, which FakeEntra assumes.
struct B2CScopeRequest: Sendable, Equatable {
    /// As the client wrote them, deduplicated: echoed as the token response's `scope`.
    var scopes: [String]
    var reserved: [ReservedScope]
    /// The client id was asked for: the access token is for the app itself.
    var asksForClientItself: Bool
    var resource: Resource?
    var permissions: [String]

    var wantsIDToken: Bool { reserved.contains(.openid) }
    var wantsRefreshToken: Bool { reserved.contains(.offlineAccess) }

    /// The access token's audience, or nil when only OIDC scopes were asked (no access token then).
    func accessTokenAudience(clientID: String) -> String? {
        resource?.appID ?? (asksForClientItself ? clientID : nil)
    }

    static func parse(_ text: String, clientID: String, directory: Directory, strict: Bool) throws(IdentityError) -> B2CScopeRequest {
        try parse(text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init),
                  clientID: clientID, directory: directory, strict: strict)
    }

    static func parse(_ raw: [String], clientID: String, directory: Directory, strict: Bool) throws(IdentityError) -> B2CScopeRequest {
        var request = B2CScopeRequest(scopes: [], reserved: [], asksForClientItself: false, resource: nil, permissions: [])
        var seen = Set<String>()
        for scope in raw where !scope.isEmpty && seen.insert(scope.lowercased()).inserted {
            request.scopes.append(scope)
            if let reserved = ReservedScope(scope: scope) {
                request.reserved.append(reserved)
                continue
            }
            if scope.caseInsensitiveCompare(clientID) == .orderedSame {
                guard request.resource == nil else { throw .b2cMultipleResources(raw.joined(separator: " ")) }
                request.asksForClientItself = true
                continue
            }
            guard let slash = scope.lastIndex(of: "/"), slash != scope.startIndex else { throw .b2cScopeNeedsResource(scope) }
            let resourceName = String(scope[..<slash])
            let permission = String(scope[scope.index(after: slash)...])
            let resource = try Self.resource(named: resourceName, scope: scope, directory: directory, strict: strict)
            if let previous = request.resource, previous.appID != resource.appID { throw .b2cMultipleResources(raw.joined(separator: " ")) }
            if request.asksForClientItself { throw .b2cMultipleResources(raw.joined(separator: " ")) }
            request.resource = resource
            let canonical: String
            if let known = resource.delegatedPermission(named: permission) {
                canonical = known.name
            } else if !strict, !permission.isEmpty {
                canonical = permission
            } else {
                throw .b2cUnsupportedScope(scope)
            }
            if !request.permissions.contains(where: { $0.caseInsensitiveCompare(canonical) == .orderedSame }) {
                request.permissions.append(canonical)
            }
        }
        return request
    }

    /// A registered web API, or (outside strict mode) one FakeEntra stands in for with a stable app id,
    /// so that `https://<domain>/<any api>/<any scope>` works without configuration. Microsoft Graph is
    /// not a B2C resource.
    static func resource(named name: String, scope: String, directory: Directory, strict: Bool) throws(IdentityError) -> Resource {
        if let found = directory.resource(named: name) {
            guard found.appID != Resource.graphAppID else { throw .b2cUnsupportedScope(scope) }
            return found
        }
        guard !strict, name.lowercased().hasPrefix("https://") || name.lowercased().hasPrefix("api://") else {
            throw .b2cUnsupportedScope(scope)
        }
        let trimmed = name.hasSuffix("/") ? String(name.dropLast()) : name
        return Resource(
            appID: TokenIdentifiers.guid(from: "b2c-api|" + trimmed.lowercased()), identifierURI: trimmed,
            displayName: String(trimmed.split(separator: "/").last ?? Substring(trimmed)),
            delegatedPermissions: [], applicationPermissions: [], accessTokenVersion: 1
        )
    }
}
