import FoundationGaps
import ExchangeKernel
package import IdentityPlatform

/// An Azure AD B2C tenant as the config file describes it: user flows and custom policies, local
/// accounts, the web APIs whose scopes apps ask for, and the app registrations.
package struct B2CConfiguration: Codable, Sendable, Equatable {
    package struct TenantSettings: Codable, Sendable, Equatable {
        /// Tenant id (GUID): `tid`/`utid`, and the issuer's path segment.
        package var id: String
        /// The initial domain, `<name>.onmicrosoft.com`; `<name>.b2clogin.com` is its login host.
        package var domain: String
        package var displayName: String

        package init(id: String, domain: String, displayName: String) {
            self.id = id.lowercased()
            self.domain = domain.lowercased()
            self.displayName = displayName
        }

        /// `fabrikamb2c` for `fabrikamb2c.onmicrosoft.com`.
        package var shortName: String { String(domain.split(separator: ".").first ?? Substring(domain)) }
    }

    package struct Policy: Codable, Sendable, Equatable {
        package enum Kind: String, Codable, Sendable, CaseIterable {
            case susi, signin, signup, editProfile, passwordReset
            /// Resource owner password credentials: the token endpoint takes a user name and password
            /// (headless test suites use it); its authorize endpoint signs in like `signin`.
            case ropc
        }

        /// As written in the portal (`B2C_1_susi`); tokens carry it in this case as `tfp`.
        package var name: String
        package var kind: Kind
        /// Application claims the flow returns; nil means every claim FakeEntra knows (`B2CClaim`).
        package var claims: [String]?

        package init(name: String, kind: Kind, claims: [String]? = nil) {
            self.name = name
            self.kind = kind
            self.claims = claims
        }

        package func emits(_ claim: B2CClaim) -> Bool { claims.map { $0.contains(claim.rawValue) } ?? true }
    }

    package struct LocalAccount: Codable, Sendable, Equatable {
        package var objectId: String
        /// The sign-in name (local accounts sign in with their email address) and the `emails` claim.
        package var email: String
        package var password: String
        package var displayName: String
        package var givenName: String?
        package var surname: String?
        /// Set to a social provider (`facebook.com`, `google.com`) to have tokens carry `idp`; local
        /// accounts have none, as with the real service's user flows.
        package var identityProvider: String?

        package init(objectId: String, email: String, password: String, displayName: String, givenName: String? = nil, surname: String? = nil, identityProvider: String? = nil) {
            self.objectId = objectId.lowercased()
            self.email = email
            self.password = password
            self.displayName = displayName
            self.givenName = givenName
            self.surname = surname
            self.identityProvider = identityProvider
        }
    }

    /// A web API registration: its scopes are `https://<domain>/<name>/<scope>`.
    package struct API: Codable, Sendable, Equatable {
        package var name: String
        package var appId: String
        package var scopes: [String]
        /// App roles an app's own token (client credentials) carries in `scp`; none when not given.
        package var appRoles: [String]?

        package init(name: String, appId: String, scopes: [String], appRoles: [String]? = nil) {
            self.name = name
            self.appId = appId.lowercased()
            self.scopes = scopes
            self.appRoles = appRoles
        }
    }

    package struct ClientApplication: Codable, Sendable, Equatable {
        package var clientId: String
        package var displayName: String
        package var redirectUris: [String]
        /// A web app's secret; nil for public (mobile, desktop) clients.
        package var secret: String?

        package init(clientId: String, displayName: String, redirectUris: [String], secret: String? = nil) {
            self.clientId = clientId
            self.displayName = displayName
            self.redirectUris = redirectUris
            self.secret = secret
        }
    }

    package var tenant: TenantSettings
    package var policies: [Policy]
    package var localAccounts: [LocalAccount]
    package var apis: [API]
    package var applications: [ClientApplication]

    package init(tenant: TenantSettings, policies: [Policy], localAccounts: [LocalAccount] = [], apis: [API] = [], applications: [ClientApplication] = []) {
        self.tenant = tenant
        self.policies = policies
        self.localAccounts = localAccounts
        self.apis = apis
        self.applications = applications
    }

    enum CodingKeys: String, CodingKey { case tenant, policies, localAccounts, apis, applications }

    /// Every member may be left out of the file; without `tenant` the file is about the default one.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tenant = try c.decodeIfPresent(TenantSettings.self, forKey: .tenant) ?? Self.embeddedDefault.tenant
        policies = try c.decodeIfPresent([Policy].self, forKey: .policies) ?? []
        localAccounts = try c.decodeIfPresent([LocalAccount].self, forKey: .localAccounts) ?? []
        apis = try c.decodeIfPresent([API].self, forKey: .apis) ?? []
        applications = try c.decodeIfPresent([ClientApplication].self, forKey: .applications) ?? []
    }

    /// What the config file's `b2c` member means. With the defaults included, a file about the default
    /// tenant adds to it, an entry named like a default one (policy name, object id, app id, client id)
    /// replacing it; a file about another tenant stands alone. nil: no B2C tenant at all.
    package static func resolve(_ file: B2CConfiguration?, includeDefaults: Bool) -> B2CConfiguration? {
        guard let file else { return includeDefaults ? .embeddedDefault : nil }
        let base = Self.embeddedDefault
        guard includeDefaults, file.tenant.id == base.tenant.id else { return file }
        func merge<T>(_ defaults: [T], _ given: [T], key: (T) -> String) -> [T] {
            let replaced = Set(given.map { key($0).lowercased() })
            return defaults.filter { !replaced.contains(key($0).lowercased()) } + given
        }
        return B2CConfiguration(
            tenant: file.tenant,
            policies: merge(base.policies, file.policies, key: \.name),
            localAccounts: merge(base.localAccounts, file.localAccounts, key: \.objectId),
            apis: merge(base.apis, file.apis, key: \.appId),
            applications: merge(base.applications, file.applications, key: \.clientId)
        )
    }

    // MARK: - Policies

    /// `B2C_1_…` (user flow) or `B2C_1A_…` (custom policy), in any case.
    package static func isPolicyName(_ text: String) -> Bool { B2CRoute.isPolicyName(text) }

    /// The configured policy named `name` (any case). Unconfigured custom policies (`B2C_1A_…`, which
    /// FakeEntra cannot read as Identity Experience Framework XML) are sign-up-or-sign-in journeys; an
    /// unconfigured user flow does not exist, in either mode, as on the service (AADB2C90022, 404).
    package func policy(named name: String) -> Policy? {
        if let configured = policies.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) { return configured }
        guard Self.isPolicyName(name), name.lowercased().hasPrefix("b2c_1a_") else { return nil }
        return Policy(name: name, kind: .susi)
    }

    package func localAccount(objectID: String) -> LocalAccount? {
        localAccounts.first { $0.objectId == objectID.lowercased() }
    }

    /// `https://fabrikamb2c.onmicrosoft.com/helloapi`.
    package func identifierURI(of api: API) -> String { "https://\(tenant.domain)/\(api.name)" }

    /// What `serve` can print about the tenant: each policy's authority (the `/tfp/` form MSAL for iOS
    /// needs) and the local accounts by their sign-in address.
    package func bannerLines(baseURL: String) -> [String] {
        var lines = ["B2C tenant \(tenant.domain) \(tenant.id) (also reached as \(tenant.shortName).b2clogin.com)"]
        for policy in policies {
            lines.append("  \(policy.kind.rawValue) authority: \(baseURL)/tfp/\(tenant.domain)/\(policy.name)")
        }
        for account in localAccounts {
            lines.append("  local account \(account.email)")
        }
        return lines
    }

    // MARK: - Into the shared directory

    /// Adds the tenant, its accounts and apps to `directory` (idempotent: what is already there stays).
    package func install(into directory: inout Directory) {
        if directory.tenant(id: tenant.id) == nil {
            directory.tenants.append(Tenant(id: tenant.id, displayName: tenant.displayName, domains: [tenant.domain, "\(tenant.shortName).b2clogin.com"], kind: .b2c))
        }
        for account in localAccounts where directory.user(id: account.objectId) == nil {
            directory.users.append(Self.directoryUser(account, tenant: tenant))
        }
        for api in apis where !directory.hasApplication(clientID: api.appId) {
            directory.applications.append(Application(
                clientID: api.appId, displayName: api.name, tenantID: tenant.id, isPublicClient: false,
                identifierURIs: [identifierURI(of: api)], exposedScopes: api.scopes, appRoles: api.appRoles ?? []
            ))
        }
        for app in applications where !directory.hasApplication(clientID: app.clientId) {
            directory.applications.append(Application(
                clientID: app.clientId, displayName: app.displayName, tenantID: tenant.id,
                isPublicClient: app.secret == nil, secrets: app.secret.map { [.init(value: $0)] } ?? [],
                redirectURIs: app.redirectUris
            ))
        }
    }

    /// A B2C local account as the directory keeps it: the UPN is `<oid>@<domain>` as in a real B2C
    /// tenant, the email is the sign-in name.
    package static func directoryUser(_ account: LocalAccount, tenant: TenantSettings) -> DirectoryUser {
        DirectoryUser(
            id: account.objectId, tenantID: tenant.id, userPrincipalName: "\(account.objectId)@\(tenant.domain)",
            displayName: account.displayName, givenName: account.givenName, surname: account.surname,
            mail: account.email, password: account.password, otherMails: [account.email]
        )
    }
}

/// The application claims a B2C policy can return (beyond the protocol claims every token has).
package enum B2CClaim: String, Sendable, CaseIterable {
    case name, givenName = "given_name", familyName = "family_name", emails, oid, idp, newUser
}
