/// The B2C tenant FakeEntra serves with no configuration: the names of Microsoft's B2C samples
/// (the iOS Swift sample of seed 002 runs unchanged but for its host), listed in the README.
extension B2CConfiguration {
    public static let defaultTenantID = "5d8f1b2e-3c4a-4e6f-9a1b-7c2d3e4f5a6b"
    public static let defaultDomain = "fabrikamb2c.onmicrosoft.com"
    /// The client id of Microsoft's B2C mobile samples (`active-directory-b2c-ios-swift-native-msal`).
    public static let sampleClientID = "90c0fe63-bcf2-44d5-8fb7-b8bbc0b29dc6"
    public static let sampleAPIAppID = "e2b4a6c8-1d3f-4a5b-8c7d-9e0f1a2b3c4d"

    public static var embeddedDefault: B2CConfiguration {
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
            apis: [API(name: "helloapi", appId: sampleAPIAppID, scopes: ["demo.read", "demo.write"])],
            applications: [
                ClientApplication(clientId: sampleClientID, displayName: "MSAL iOS B2C sample",
                                  redirectUris: ["msauth.com.microsoft.identitysample.MSALiOS://auth"]),
            ]
        )
    }

    /// The `b2c` member of the config file, as a JSON Schema fragment (draft 2020-12 subset).
    public static let jsonSchemaFragment = #"""
    {
      "type": "object",
      "description": "An Azure AD B2C tenant: user flows or custom policies, local accounts, web APIs and apps. Without 'tenant' (or with the default tenant's id) and with includeDefaults, the lists add to the embedded fabrikamb2c.onmicrosoft.com tenant, an entry named like a default one replacing it.",
      "additionalProperties": false,
      "properties": {
        "tenant": {
          "type": "object",
          "required": ["id", "domain", "displayName"],
          "additionalProperties": false,
          "properties": {
            "id": {"type": "string", "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"},
            "domain": {"type": "string", "pattern": "^[A-Za-z0-9-]+\\.onmicrosoft\\.com$"},
            "displayName": {"type": "string"}
          }
        },
        "policies": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["name", "kind"],
            "additionalProperties": false,
            "properties": {
              "name": {"type": "string", "pattern": "^[Bb]2[Cc]_1[Aa]?_.+$"},
              "kind": {"enum": ["susi", "signin", "signup", "editProfile", "passwordReset", "ropc"]},
              "claims": {"type": "array", "items": {"enum": ["name", "given_name", "family_name", "emails", "oid", "idp", "newUser"]}}
            }
          }
        },
        "localAccounts": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["objectId", "email", "password", "displayName"],
            "additionalProperties": false,
            "properties": {
              "objectId": {"type": "string", "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"},
              "email": {"type": "string", "pattern": "^[^@\\s]+@[^@\\s]+$"},
              "password": {"type": "string", "minLength": 1},
              "displayName": {"type": "string"},
              "givenName": {"type": "string"},
              "surname": {"type": "string"},
              "identityProvider": {"type": "string"}
            }
          }
        },
        "apis": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["name", "appId", "scopes"],
            "additionalProperties": false,
            "properties": {
              "name": {"type": "string", "pattern": "^[A-Za-z0-9._-]+$"},
              "appId": {"type": "string"},
              "scopes": {"type": "array", "items": {"type": "string"}}
            }
          }
        },
        "applications": {
          "type": "array",
          "items": {
            "type": "object",
            "required": ["clientId", "displayName", "redirectUris"],
            "additionalProperties": false,
            "properties": {
              "clientId": {"type": "string"},
              "displayName": {"type": "string"},
              "redirectUris": {"type": "array", "items": {"type": "string"}},
              "secret": {"type": "string"}
            }
          }
        }
      }
    }
    """#
}
