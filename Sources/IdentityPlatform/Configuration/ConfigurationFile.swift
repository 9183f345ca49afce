import Foundation

/// The decoded shape of a `--config` file (see `ConfigurationSchema`). Field names follow the file.
struct ConfigurationFile: Decodable {
    struct Options: Decodable {
        var strict: Bool?
        var autoLogin: Bool?
        var accessTokenLifetime: Int?
        var accessTokenExtension: Int?
        var idTokenLifetime: Int?
        var refreshTokenInactivity: Int?
        var authorizationCodeLifetime: Int?
        var deviceCodeLifetime: Int?
        var deviceCodePollingInterval: Int?
        var interactiveFlowLifetime: Int?
    }

    struct TenantEntry: Decodable {
        var id: String
        var displayName: String?
        var domains: [String]
        var kind: Tenant.Kind?
    }

    struct UserEntry: Decodable {
        var id: String?
        var tenant: String?
        var userPrincipalName: String
        var displayName: String
        var givenName: String?
        var surname: String?
        var mail: String?
        var otherMails: [String]?
        var jobTitle: String?
        var officeLocation: String?
        var mobilePhone: String?
        var businessPhones: [String]?
        var preferredLanguage: String?
        var password: String?
        var mfaRegistered: Bool?
        var mfaRequired: Bool?
        var accountEnabled: Bool?
        var locked: Bool?
        var passwordExpired: Bool?
    }

    /// A secret is a bare string or `{"value", "expiresAt"}`.
    struct SecretEntry: Decodable {
        var value: String
        var expiresAt: Date?

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                value = text
                expiresAt = nil
                return
            }
            let object = try decoder.container(keyedBy: CodingKeys.self)
            value = try object.decode(String.self, forKey: .value)
            expiresAt = try object.decodeIfPresent(Date.self, forKey: .expiresAt)
        }

        enum CodingKeys: String, CodingKey { case value, expiresAt }
    }

    struct ResourceAccessEntry: Decodable {
        var resource: String
        var scopes: [String]?
        var roles: [String]?
    }

    struct AppEntry: Decodable {
        var clientId: String
        var displayName: String?
        var tenant: String?
        var publicClient: Bool?
        var secrets: [SecretEntry]?
        var certificates: [String]?
        var redirectUris: [String]?
        var requiredResourceAccess: [ResourceAccessEntry]?
        var identifierUris: [String]?
        var exposedScopes: [String]?
        var adminConsentScopes: [String]?
        var appRoles: [String]?
        var accessTokenAcceptedVersion: Int?
        var familyId: String?
    }

    struct ConsentEntry: Decodable {
        var clientId: String
        var resource: String?
        var user: String?
        var tenant: String?
        var scopes: [String]
    }

    var includeDefaults: Bool?
    var options: Options?
    var tenants: [TenantEntry]?
    var users: [UserEntry]?
    var apps: [AppEntry]?
    var consents: [ConsentEntry]?
}
