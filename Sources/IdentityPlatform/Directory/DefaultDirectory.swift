/// The directory FakeEntra serves with no configuration at all: listed at start-up and in the README.
extension Directory {
    package static let demoPassword = "Passw0rd!"
    package static let contosoTenantID = "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"
    /// Woodgrove, the external tenant customers of a consumer app sign up and in to (`woodgrove.ciamlogin.com`).
    package static let woodgroveTenantID = "8b3f2a6e-1c4d-4f7a-9e25-6d0c1b7a4f93"

    package static var embeddedDefault: Directory {
        let contoso = Tenant(id: contosoTenantID, displayName: "Contoso", domains: ["contoso.onmicrosoft.com", "contoso.com"], kind: .organization)
        let consumers = Tenant(id: Tenant.consumersTenantID, displayName: "Microsoft Accounts", domains: ["live.com", "outlook.com", "hotmail.com"], kind: .consumers)
        let woodgrove = Tenant(id: woodgroveTenantID, displayName: "Woodgrove Groceries", domains: ["woodgrove.onmicrosoft.com"], kind: .external)
        let users = [
            DirectoryUser(
                id: "6e7b1f23-5c1a-4a8e-9b0d-2f4c8a1e3d51", tenantID: contoso.id,
                userPrincipalName: "adele.vance@contoso.onmicrosoft.com", displayName: "Adele Vance",
                givenName: "Adele", surname: "Vance", mail: "adele.vance@contoso.onmicrosoft.com",
                jobTitle: "Retail Manager", officeLocation: "18/2111", mobilePhone: nil, businessPhones: ["+1 425 555 0109"],
                preferredLanguage: "en-US", password: demoPassword, mfaRegistered: true
            ),
            DirectoryUser(
                id: "b8c5e1d2-7f3a-4b6c-8d9e-0a1b2c3d4e5f", tenantID: contoso.id,
                userPrincipalName: "alex.wilber@contoso.onmicrosoft.com", displayName: "Alex Wilber",
                givenName: "Alex", surname: "Wilber", mail: "alex.wilber@contoso.onmicrosoft.com",
                jobTitle: "Marketing Assistant", officeLocation: "131/1104", businessPhones: ["+1 858 555 0110"],
                preferredLanguage: "en-US", password: demoPassword
            ),
            DirectoryUser(
                id: "00000000-0000-0000-66f3-3332eca7ea81", tenantID: consumers.id,
                userPrincipalName: "megan@outlook.com", displayName: "Megan Bowen",
                givenName: "Megan", surname: "Bowen", mail: "megan@outlook.com",
                preferredLanguage: "en-US", password: demoPassword
            ),
            // An External ID customer: a local account signing in with an email address, its user principal
            // name the tenant's own, as External ID makes it.
            DirectoryUser(
                id: "4a7c9e21-3b5d-4f8a-b6c0-2e1d9f8a7b63", tenantID: woodgrove.id,
                userPrincipalName: "4a7c9e21-3b5d-4f8a-b6c0-2e1d9f8a7b63@woodgrove.onmicrosoft.com", displayName: "Jordan Lee",
                givenName: "Jordan", surname: "Lee", mail: "jordan@woodgrove.example",
                preferredLanguage: "en-US", password: demoPassword
            ),
        ]
        return Directory(tenants: [contoso, consumers, woodgrove], users: users, managedIdentities: ManagedIdentity.demo(in: contoso),
                         groups: DirectoryGroup.demo(tenantID: contoso.id, adele: users[0].id, alex: users[1].id))
    }
}
