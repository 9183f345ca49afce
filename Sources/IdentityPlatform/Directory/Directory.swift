import ExchangeKernel
import EntraHTTP
import FoundationGaps

/// Everything the identity platform knows about tenants, users, apps and consents.
/// A value: the service keeps one behind a lock, scenarios copy and extend it.
package struct Directory: Sendable, Equatable {
    package var tenants: [Tenant]
    package var users: [DirectoryUser]
    package var applications: [Application]
    package var consents: [ConsentGrant]
    package var managedIdentities: [ManagedIdentity]
    package var groups: [DirectoryGroup]

    package init(tenants: [Tenant] = [], users: [DirectoryUser] = [], applications: [Application] = [], consents: [ConsentGrant] = [],
                 managedIdentities: [ManagedIdentity] = [], groups: [DirectoryGroup] = []) {
        self.tenants = tenants
        self.users = users
        self.applications = applications
        self.consents = consents
        self.managedIdentities = managedIdentities
        self.groups = groups
    }

    /// A tenant by GUID or by any of its domains, ignoring case.
    package func tenant(matching segment: String) -> Tenant? {
        let wanted = segment.fastLowercased
        return tenants.first { $0.id == wanted || $0.domains.contains(wanted) }
    }

    package func tenant(id: String) -> Tenant? {
        let wanted = id.fastLowercased
        return tenants.first { $0.id == wanted }
    }

    package func user(id: String) -> DirectoryUser? {
        let wanted = id.fastLowercased
        return users.first { $0.id == wanted }
    }

    /// A user by sign-in name, optionally within one tenant.
    package func user(signInName: String, tenantID: String? = nil) -> DirectoryUser? {
        let tenant = tenantID?.fastLowercased
        return users.first { $0.answers(to: signInName) && (tenant == nil || $0.tenantID == tenant) }
    }

    /// A user named as a configuration or a request names one: by object id or by any sign-in name.
    package func user(named name: String) -> DirectoryUser? {
        user(id: name) ?? user(signInName: name)
    }

    package func users(inTenant tenantID: String) -> [DirectoryUser] {
        let tenant = tenantID.fastLowercased
        return users.filter { $0.tenantID == tenant }
    }

    /// A registered app, else one of Microsoft's first-party clients every tenant holds.
    package func application(clientID: String) -> Application? {
        applications.first(where: Self.named(clientID)) ?? MicrosoftFirstParty.application(clientID: clientID)
    }

    /// Whether `application(clientID:)` finds an app, without making an optional copy of it.
    package func hasApplication(clientID: String) -> Bool {
        applications.contains(where: Self.named(clientID))
    }

    private static func named(_ clientID: String) -> (Application) -> Bool {
        { $0.clientID.equalsIgnoringCase(clientID) }
    }

    /// Graph, a registered app that exposes an API, or a Microsoft first-party resource (ARM, Key Vault…),
    /// named by app id or identifier URI.
    package func resource(named identifier: String) -> Resource? {
        if Resource.microsoftGraph.isNamed(identifier) { return .microsoftGraph }
        let wanted = identifier.trimmingSuffix("/")
        guard let app = applications.first(where: { app in
            app.clientID.equalsWhenLowercased(wanted) || app.identifierURIs.contains { $0.namesSameResource(as: identifier) }
        }) else { return MicrosoftFirstParty.resource(named: identifier) }
        return Resource(
            appID: app.clientID,
            identifierURI: app.identifierURIs.first ?? "api://\(app.clientID)",
            displayName: app.displayName,
            delegatedPermissions: app.exposedScopes.map { scope in
                .init(scope, adminConsentRequired: app.adminConsentScopes.contains { $0.equalsIgnoringCase(scope) })
            },
            applicationPermissions: app.appRoles,
            accessTokenVersion: app.accessTokenAcceptedVersion ?? 1
        )
    }

    /// Scopes a user (or an admin for everyone in the tenant) has granted `clientID` on `resourceAppID`.
    package func grantedScopes(clientID: String, resourceAppID: String, userID: String?, tenantID: String) -> Set<String> {
        var granted = Set<String>()
        let resource = resourceAppID.fastLowercased, tenant = tenantID.fastLowercased, user = userID?.fastLowercased
        for grant in consents where grant.clientID.caseInsensitiveCompare(clientID) == .orderedSame
            && grant.resourceAppID == resource && grant.tenantID == tenant && (grant.userID == nil || grant.userID == user) {
            granted.formUnion(grant.scopes.map { $0.fastLowercased })
        }
        return granted
    }

    /// Records consent, merging with an existing grant for the same user, client and resource.
    package mutating func grantConsent(_ grant: ConsentGrant) {
        if let index = consents.firstIndex(where: {
            $0.clientID == grant.clientID && $0.resourceAppID == grant.resourceAppID && $0.userID == grant.userID && $0.tenantID == grant.tenantID
        }) {
            let known = Set(consents[index].scopes.map { $0.fastLowercased })
            consents[index].scopes += grant.scopes.filter { !known.contains($0.fastLowercased) }
        } else {
            consents.append(grant)
        }
    }
}
