import EntraHTTP
/// The tenant an authority names, once resolved against the directory.
package enum TenantSelector: Sendable, Equatable {
    /// Work, school or personal accounts.
    case common
    /// Work or school accounts only.
    case organizations
    /// Personal accounts only.
    case consumers
    case specific(Tenant)

    package init(segment: String, directory: Directory) throws(IdentityError) {
        switch segment.fastLowercased {
        case "common": self = .common
        case "organizations": self = .organizations
        case "consumers": self = .consumers
        default:
            guard let tenant = directory.tenant(matching: segment) else { throw .tenantNotFound(segment) }
            self = tenant.kind == .consumers ? .consumers : .specific(tenant)
        }
    }

    /// Whether a user of `tenant` may sign in through this authority.
    package func admits(_ tenant: Tenant) -> Bool {
        switch self {
        case .common: tenant.kind == .organization || tenant.kind == .consumers
        case .organizations: tenant.kind == .organization
        case .consumers: tenant.kind == .consumers
        case .specific(let wanted): wanted.id == tenant.id
        }
    }
}
