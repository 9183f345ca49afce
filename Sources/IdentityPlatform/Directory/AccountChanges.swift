package import FoundationGaps
import EntraCrypto

/// The changes a person makes to their own account, from whichever page or API they make them.
extension Directory {
    /// A new password, as after a change or a reset: no longer expired, and refresh tokens issued before
    /// `now` stop working (AADSTS50173). Returns the changed user; nil for an unknown id.
    @discardableResult
    package mutating func changePassword(userID: String, to password: String, now: Date) -> DirectoryUser? {
        guard let index = users.firstIndex(where: { $0.id == userID }) else { return nil }
        users[index].password = password
        users[index].passwordExpired = false
        users[index].tokensValidFrom = now
        // The password is the account's own now: the legacy system's must never replace it.
        for flag in tenant(id: users[index].tenantID)?.migrationFlags ?? [] where users[index].attributes?[flag] != nil {
            users[index].attributes?[flag] = "false"
        }
        return users[index]
    }

    /// Marks a user migrated (`flag` false) and makes `change`; nil for an unknown id or a user no longer
    /// to migrate.
    package mutating func migrate(userID: String, flag: String, _ change: (inout DirectoryUser) -> Void) -> DirectoryUser? {
        guard let index = users.firstIndex(where: { $0.id == userID }), users[index].attributes?[flag]?.lowercased() == "true" else { return nil }
        users[index].attributes?[flag] = "false"
        change(&users[index])
        return users[index]
    }

    /// A second factor registered in native authentication: the user has one now (a phone registered
    /// becomes their mobile phone).
    package mutating func registerSecondFactor(userID: String, phone: String?) {
        guard let index = users.firstIndex(where: { $0.id == userID }) else { return }
        users[index].mfaRegistered = true
        if let phone { users[index].mobilePhone = phone }
    }

    /// An External ID customer: a local account signing in with `email`, its user principal name the
    /// tenant's own (`{id}@{tenant}.onmicrosoft.com`), with what sign-up collected (`attributes`, without empty values: `ExternalUserFlow.collected`; the display
    /// name defaults to the address's local part). nil when the tenant already has an account with that
    /// email. An empty password makes a customer who signs in with codes only.
    package mutating func addCustomer(email: String, attributes: [String: String], password: String, tenant: Tenant) -> DirectoryUser? {
        guard user(signInName: email, tenantID: tenant.id) == nil else { return nil }
        let id = SecureRandom.guid()
        var customer = DirectoryUser(id: id, tenantID: tenant.id, userPrincipalName: "\(id)@\(tenant.primaryDomain)",
                                     displayName: String(email.prefix { $0 != "@" }), mail: email, password: password)
        customer.setAttributes(attributes)
        users.append(customer)
        return customer
    }
}
