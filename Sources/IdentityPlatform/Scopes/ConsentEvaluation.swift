import FoundationGaps

/// Where a user stands with the delegated permissions a request asks of one resource: shared by
/// /authorize (which pages to show) and /token (consent_required for silent scope changes).
package struct ConsentEvaluation: Sendable, Equatable {
    package var resource: Resource?
    /// The permissions the request amounts to (`.default` expanded), as the resource spells them.
    package var permissions: [String]
    package var alreadyGranted: [String]
    /// Not yet granted, and a user may grant them on the consent page.
    package var needingUserConsent: [String]
    /// Not yet granted, and only an administrator may (AADSTS90094).
    package var needingAdminConsent: [String]

    package var isSatisfied: Bool { needingUserConsent.isEmpty && needingAdminConsent.isEmpty }
}

extension Directory {
    /// The delegated permissions `request` amounts to for `client` and one user: explicit permissions,
    /// or for `.default` the app's configured permissions plus whatever was already granted.
    package func delegatedPermissions(for request: ScopeRequest, client: Application, userID: String?, tenantID: String) -> [String] {
        guard let resource = request.resource else { return [] }
        var permissions = request.permissions
        if request.isDefault {
            let granted = grantedScopes(clientID: client.clientID, resourceAppID: resource.appID, userID: userID, tenantID: tenantID)
            let configured = client.requiredResourceAccess.filter { resource.isNamed($0.resource) }.flatMap(\.scopes)
            for name in configured + granted.sorted() where ReservedScope(scope: name) == nil
                && !permissions.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                permissions.append(resource.delegatedPermission(named: name)?.name ?? name)
            }
        }
        return permissions
    }

    /// Which of the request's delegated permissions `user` has yet to consent to for `client`.
    package func evaluateConsent(_ request: ScopeRequest, client: Application, user: DirectoryUser) -> ConsentEvaluation {
        guard let resource = request.resource else {
            return ConsentEvaluation(resource: nil, permissions: [], alreadyGranted: [], needingUserConsent: [], needingAdminConsent: [])
        }
        let permissions = delegatedPermissions(for: request, client: client, userID: user.id, tenantID: user.tenantID)
        // Microsoft pre-authorizes its own clients on its own resources: no consent page, in every tenant.
        if !hasApplication(clientID: client.clientID), MicrosoftFirstParty.isPreAuthorized(clientID: client.clientID, resourceAppID: resource.appID) {
            return ConsentEvaluation(resource: resource, permissions: permissions, alreadyGranted: permissions, needingUserConsent: [], needingAdminConsent: [])
        }
        let granted = grantedScopes(clientID: client.clientID, resourceAppID: resource.appID, userID: user.id, tenantID: user.tenantID)
        var evaluation = ConsentEvaluation(resource: resource, permissions: permissions, alreadyGranted: [], needingUserConsent: [], needingAdminConsent: [])
        for permission in permissions {
            if granted.contains(permission.lowercased()) {
                evaluation.alreadyGranted.append(permission)
            } else if resource.delegatedPermission(named: permission)?.adminConsentRequired == true {
                evaluation.needingAdminConsent.append(permission)
            } else {
                evaluation.needingUserConsent.append(permission)
            }
        }
        return evaluation
    }

    /// Records that `user` (or, with `forWholeTenant`, an administrator for every user) granted `permissions`.
    package mutating func recordConsent(client: Application, resource: Resource, permissions: [String], user: DirectoryUser, forWholeTenant: Bool = false) {
        guard !permissions.isEmpty else { return }
        grantConsent(ConsentGrant(
            clientID: client.clientID, resourceAppID: resource.appID, userID: forWholeTenant ? nil : user.id,
            tenantID: user.tenantID, scopes: permissions
        ))
    }

    /// The application permissions (app roles) a client-credentials `.default` request yields: the roles
    /// the app is configured with on that resource. When it names none, every role of the resource, unless
    /// `strict`: then none, as the service grants only the roles an administrator consented to.
    package func applicationPermissions(for request: ScopeRequest, client: Application, strict: Bool = false) -> [String] {
        guard let resource = request.resource else { return [] }
        return applicationPermissions(on: resource, client: client, strict: strict)
    }

    /// The same for a resource already known (B2C's `.default` scope, read by B2C's own scope rules).
    package func applicationPermissions(on resource: Resource, client: Application, strict: Bool = false) -> [String] {
        // One array built (every app-only token asks): not a filter, a flattening and a mapping.
        var configured: [String] = []
        for access in client.requiredResourceAccess where resource.isNamed(access.resource) {
            for role in access.roles { configured.append(resource.applicationPermission(named: role) ?? role) }
        }
        return configured.isEmpty && !strict ? resource.applicationPermissions : configured
    }
}

extension ScopeRequest {
    /// The scopes a grant holds: the permissions granted, named the way the client named the resource
    /// (bare for bare Graph permissions), then the `.default` scope if asked, then the reserved scopes asked.
    package func responseScopes(granted permissions: [String]) -> [String] {
        // A v1 resource exactly as the client named it, then `/`: `https://management.core.windows.net/`
        // gives `…//user_impersonation`, which names the same resource again when a grant's scopes are read
        // back (a device code's approval, a refresh token's), so the audience keeps its slash. Graph's
        // tokens name it by app id whatever the spelling: one slash.
        let keepsSpelling = resource.map { $0.accessTokenVersion == 1 && $0.appID != Resource.graphAppID } ?? false
        let prefix = resourceName.map { keepsSpelling || !$0.hasSuffix("/") ? $0 + "/" : $0 }
        var scopes = permissions.map { (prefix ?? "") + $0 }
        if isDefault, let asked = self.scopes.first(where: { $0.lowercased().hasSuffix(".default") }) {
            scopes.append(asked)
        }
        scopes += reserved.map(\.rawValue)
        return scopes
    }
}
