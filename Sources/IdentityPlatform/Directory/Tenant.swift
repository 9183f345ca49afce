/// A directory: an organisation, the Microsoft consumers tenant, or an Azure AD B2C tenant.
public struct Tenant: Sendable, Codable, Equatable, Identifiable {
    public enum Kind: String, Sendable, Codable { case organization, consumers, b2c }

    /// Tenant id, a lowercase GUID.
    public var id: String
    public var displayName: String
    /// Verified domains; the first is the initial `*.onmicrosoft.com` domain.
    public var domains: [String]
    public var kind: Kind

    public init(id: String, displayName: String, domains: [String], kind: Kind) {
        self.id = id.lowercased()
        self.displayName = displayName
        self.domains = domains.map { $0.lowercased() }
        self.kind = kind
    }

    public var primaryDomain: String { domains.first ?? id }

    /// The Microsoft consumers (MSA) tenant id that personal accounts carry as `tid`/`utid`.
    public static let consumersTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"
}
