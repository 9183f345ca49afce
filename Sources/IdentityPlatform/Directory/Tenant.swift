/// A directory: an organisation, the Microsoft consumers tenant, an Azure AD B2C tenant, or a Microsoft
/// Entra External ID (external) tenant, whose customers sign in at `{subdomain}.ciamlogin.com`.
package struct Tenant: Sendable, Codable, Equatable, Identifiable {
    package enum Kind: String, Sendable, Codable { case organization, consumers, b2c, external }

    /// Tenant id, a lowercase GUID.
    package var id: String
    package var displayName: String
    /// Verified domains; the first is the initial `*.onmicrosoft.com` domain.
    package var domains: [String]
    package var kind: Kind
    /// Azure subscriptions as configured; nil for the default (`azureSubscriptions`).
    package var subscriptions: [AzureSubscription]?
    /// An external tenant's user flow as configured; nil for the standard one (`externalUserFlow`).
    package var userFlow: ExternalUserFlow?
    /// The custom banned password list of Password Protection: terms no new password may lean on.
    package var bannedPasswords: [String]?
    /// The REST endpoints the service calls during this tenant's sign-ins and sign-ups.
    package var customAuthenticationExtensions: [CustomAuthenticationExtension]?

    package init(id: String, displayName: String, domains: [String], kind: Kind, subscriptions: [AzureSubscription]? = nil, userFlow: ExternalUserFlow? = nil) {
        self.id = id.lowercased()
        self.displayName = displayName
        self.domains = domains.map { $0.lowercased() }
        self.kind = kind
        self.subscriptions = subscriptions
        self.userFlow = userFlow
    }

    package var primaryDomain: String { domains.first ?? id }

    /// The v2.0 issuer of this tenant's tokens and discovery document, answering at `origin`: an External
    /// ID tenant's own ciamlogin host on a ciamlogin origin; on FakeEntra's own host, as every tenant, the origin.
    package func issuerV2(origin: String) -> String {
        if kind == .external, Self.isCIAMLoginOrigin(origin) { return Issuer.externalID(tenantID: id) }
        return Issuer.v2(origin: origin, tenant: id)
    }

    /// Whether `origin` (`https://host[:port]`) is a `*.ciamlogin.com` host.
    package static func isCIAMLoginOrigin(_ origin: String) -> Bool {
        let afterScheme = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""
        let host = afterScheme.split(separator: ":").first.map(String.init) ?? ""
        return host.lowercased().hasSuffix(".ciamlogin.com")
    }

    /// The Microsoft consumers (MSA) tenant id that personal accounts carry as `tid`/`utid`.
    package static let consumersTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"
}
