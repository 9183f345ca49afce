/// The B2C tenant FakeEntra serves with no configuration: the names of Microsoft's B2C samples
/// (Microsoft's B2C iOS Swift sample runs unchanged but for its host), listed in the README.
extension B2CConfiguration {
    package static let defaultTenantID = "5d8f1b2e-3c4a-4e6f-9a1b-7c2d3e4f5a6b"
    package static let defaultDomain = "fabrikamb2c.onmicrosoft.com"
    /// The client id of Microsoft's B2C mobile samples (`active-directory-b2c-ios-swift-native-msal`).
    package static let sampleClientID = "90c0fe63-bcf2-44d5-8fb7-b8bbc0b29dc6"
    package static let sampleAPIAppID = "e2b4a6c8-1d3f-4a5b-8c7d-9e0f1a2b3c4d"

    package static var embeddedDefault: B2CConfiguration {
        B2CConfiguration(
            tenant: TenantSettings(id: defaultTenantID, domain: defaultDomain, displayName: "Fabrikam B2C"),
            policies: [
                Policy(name: "B2C_1_susi", kind: .susi),
                Policy(name: "B2C_1_signin", kind: .signin),
                Policy(name: "B2C_1_signup", kind: .signup),
                Policy(name: "B2C_1_edit_profile", kind: .editProfile),
                Policy(name: "B2C_1_reset", kind: .passwordReset),
                Policy(name: "B2C_1_ropc", kind: .ropc),
            ],
            localAccounts: [
                LocalAccount(objectId: "3f2a9c1e-8b7d-4e6a-a5c4-1d2e3f4a5b6c", email: "ben@fabrikam.test", password: "Passw0rd!",
                             displayName: "Ben Smith", givenName: "Ben", surname: "Smith"),
            ],
            // App roles named as Microsoft's B2C client-credentials guide names them.
            apis: [API(name: "helloapi", appId: sampleAPIAppID, scopes: ["demo.read", "demo.write"], appRoles: ["app.read", "app.write"])],
            applications: [
                ClientApplication(clientId: sampleClientID, displayName: "MSAL iOS B2C sample",
                                  redirectUris: ["msauth.com.microsoft.identitysample.MSALiOS://auth"]),
            ]
        )
    }

    // The `b2c` member of the config file's JSON Schema fragment, `jsonSchemaFragment`, is compiled in from
    // docs/schemas/b2c.schema.json by the EmbedResources plugin.
}
