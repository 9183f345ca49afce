import FoundationGaps
import EntraHTTP

/// The OpenID Connect scopes: they shape the response (id_token, refresh token, profile claims) and are
/// never part of an access token's `scp`.
package enum ReservedScope: String, Sendable, CaseIterable {
    case openid, profile, email
    case offlineAccess = "offline_access"

    package init?(scope: String) {
        // Compared in place rather than lower-cased: every scope of every request is asked.
        guard let match = Self.allCases.first(where: { $0.rawValue.equalsIgnoringASCIICase(scope) }) else { return nil }
        self = match
    }
}

/// A `scope` (v2) or `resource` (v1) parameter understood against the directory: the reserved OIDC
/// scopes apart, and at most one resource with the permissions asked of it.
package struct ScopeRequest: Sendable, Equatable {
    /// The scopes as the client wrote them, deduplicated; what a `GrantContext` keeps and re-parses.
    package var scopes: [String]
    package var reserved: [ReservedScope]
    /// nil when only reserved scopes were asked.
    package var resource: Resource?
    /// How the client named the resource (`https://graph.microsoft.com`, `api://…`, an app id); nil for
    /// bare Graph permissions. Prefixes the granted scopes and is the `aud` of v1-format tokens.
    package var resourceName: String?
    /// Permission names as the resource spells them; `.default` is not among them.
    package var permissions: [String]
    /// `<resource>/.default`: the statically configured (or already granted) permissions.
    package var isDefault: Bool
    /// The v1 endpoint's `resource=` parameter named the resource.
    package var fromV1Resource: Bool

    package init(scopes: [String] = [], reserved: [ReservedScope] = [], resource: Resource? = nil, resourceName: String? = nil, permissions: [String] = [], isDefault: Bool = false, fromV1Resource: Bool = false) {
        self.scopes = scopes
        self.reserved = reserved
        self.resource = resource
        self.resourceName = resourceName
        self.permissions = permissions
        self.isDefault = isDefault
        self.fromV1Resource = fromV1Resource
    }

    package func includes(_ scope: ReservedScope) -> Bool { reserved.contains(scope) }
    package var wantsIDToken: Bool { includes(.openid) }
    package var wantsRefreshToken: Bool { includes(.offlineAccess) || fromV1Resource }

    /// Whether `permission` of this request's resource is named in `scopes`, bare or resource-qualified.
    package func matches(_ permission: String, any scopes: [String]) -> Bool {
        guard let resource, !scopes.isEmpty else { return false }
        return scopes.contains { scope in
            let (name, candidate) = ScopeRequest.split(scope)
            guard candidate.caseInsensitiveCompare(permission) == .orderedSame else { return false }
            return name.map(resource.isNamed) ?? (resource.appID == Resource.graphAppID)
        }
    }

    static let maximumScopeCount = 500

    /// Parses a space-separated v2 `scope` parameter.
    package static func parse(_ scope: String, directory: Directory, options: IdentityOptions = .init()) throws(IdentityError) -> ScopeRequest {
        // Split as bytes when that splits as characters would (ASCII without `\r\n`, which is one character):
        // every token request's scope comes here.
        guard scope.isPlainASCII, !scope.utf8.contains(0x0D) else {
            return try parse(scopes: scope.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init), directory: directory, options: options)
        }
        let words = scope.utf8.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A })
        return try parse(scopes: words.map { String(Substring($0)) }, directory: directory, options: options)
    }

    package static func parse(scopes raw: [String], directory: Directory, options: IdentityOptions = .init()) throws(IdentityError) -> ScopeRequest {
        // Far beyond any real request; keeps a hostile parameter from costing more than a glance.
        guard raw.count <= maximumScopeCount else { throw .invalidScope(String(raw.prefix(3).joined(separator: " ")) + " …") }
        var request = ScopeRequest()
        // One scope (every client-credentials request) has no repeats to find: no set is filled.
        let mayRepeat = raw.count > 1
        var seen = Set<String>()
        var seenPermissions = Set<String>()
        var named: (resource: Resource, name: String?)?
        for scope in raw where !scope.isEmpty && (!mayRepeat || seen.insert(scope.fastLowercased).inserted) {
            request.scopes.append(scope)
            if let reservedScope = ReservedScope(scope: scope) {
                if !request.reserved.contains(reservedScope) { request.reserved.append(reservedScope) }
                continue
            }
            let (resourceName, permission) = split(scope)
            let resource: Resource
            if let resourceName {
                guard let found = directory.resource(named: resourceName) else { throw .resourceNotFound(resourceName) }
                resource = found
            } else {
                resource = .microsoftGraph
            }
            if let previous = named {
                guard previous.resource.appID == resource.appID else { throw .multipleResources(raw.joined(separator: " ")) }
                // The first spelling of the resource names it (`aud`, prefixes), as the service does.
            } else {
                named = (resource, resourceName)
            }
            if permission.equalsIgnoringASCIICase(".default") {
                request.isDefault = true
            } else if let reservedScope = ReservedScope(scope: permission), resource.appID == Resource.graphAppID {
                // `https://graph.microsoft.com/openid` is the reserved scope under another name.
                if !request.reserved.contains(reservedScope) { request.reserved.append(reservedScope) }
            } else {
                let canonical = try canonicalPermission(permission, of: resource, scope: scope, options: options)
                if !mayRepeat || seenPermissions.insert(canonical.fastLowercased).inserted { request.permissions.append(canonical) }
            }
        }
        if let named {
            request.resource = named.resource
            request.resourceName = named.name
        }
        return request
    }

    /// Parses the v1 endpoint's `resource` parameter (plus an optional `scope`, where only reserved scopes count).
    package static func parse(v1Resource: String, scope: String?, directory: Directory) throws(IdentityError) -> ScopeRequest {
        guard let resource = directory.resource(named: v1Resource) else { throw .resourceNotFound(v1Resource) }
        var reserved: [ReservedScope] = [.openid]
        for word in (scope ?? "").split(separator: " ") {
            if let r = ReservedScope(scope: String(word)), !reserved.contains(r) { reserved.append(r) }
        }
        return ScopeRequest(
            scopes: reserved.map(\.rawValue) + [v1Resource + "/.default"], reserved: reserved, resource: resource,
            resourceName: v1Resource, permissions: [], isDefault: true, fromV1Resource: true
        )
    }

    /// Splits `resource/permission` at the last `/`; a bare word is a Graph permission.
    /// `https://x//.default` names the resource `https://x/` (trailing slash kept for the look-up, which ignores it).
    static func split(_ scope: String) -> (resource: String?, permission: String) {
        // On bytes when ASCII; otherwise as characters, where `/` followed by a combining mark is not `/`.
        guard let slash = scope.isPlainASCII ? scope.utf8.lastIndex(of: UInt8(ascii: "/")) : scope.lastIndex(of: "/") else { return (nil, scope) }
        let resource = String(scope[..<slash])
        let permission = String(scope[scope.index(after: slash)...])
        return (resource.isEmpty ? nil : resource, permission)
    }

    /// Graph has hundreds of permissions: outside strict mode any well-formed Graph permission name is
    /// accepted; an app's API exposes exactly the scopes it declares.
    static func canonicalPermission(_ permission: String, of resource: Resource, scope: String, options: IdentityOptions) throws(IdentityError) -> String {
        if let known = resource.delegatedPermission(named: permission) { return known.name }
        if resource.appID == Resource.graphAppID, !options.strict, isWellFormedPermissionName(permission) { return permission }
        if permission.isEmpty { throw .invalidScope(scope) }
        throw .scopeNotOnResource(scope: permission, resourceAppID: resource.appID)
    }

    static func isWellFormedPermissionName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy { part in !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
