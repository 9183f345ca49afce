/// A directory: an organisation, the Microsoft consumers tenant, or an Azure AD B2C tenant.
package struct Tenant: Sendable, Codable, Equatable, Identifiable {
    package enum Kind: String, Sendable, Codable { case organization, consumers, b2c }

    /// Tenant id, a lowercase GUID.
    package var id: String
    package var displayName: String
    /// Verified domains; the first is the initial `*.onmicrosoft.com` domain.
    package var domains: [String]
    package var kind: Kind
    /// Azure subscriptions as configured; nil for the default (`azureSubscriptions`).
    package var subscriptions: [AzureSubscription]?

    package init(id: String, displayName: String, domains: [String], kind: Kind, subscriptions: [AzureSubscription]? = nil) {
        self.id = id.lowercased()
        self.displayName = displayName
        self.domains = domains.map { $0.lowercased() }
        self.kind = kind
        self.subscriptions = subscriptions
    }

    package var primaryDomain: String { domains.first ?? id }

    /// The Microsoft consumers (MSA) tenant id that personal accounts carry as `tid`/`utid`.
    package static let consumersTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"
}
