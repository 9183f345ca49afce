import FoundationGaps
import LocatedJSON

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
        var managedIdentityHeader: String?
        var cloudShellUser: String?
    }

    struct GroupEntry: Decodable {
        var id: String?
        var tenant: String?
        var displayName: String
        var description: String?
        var mailNickname: String?
        var securityEnabled: Bool?
        var mailEnabled: Bool?
        var groupTypes: [String]?
        var members: [String]?
        var owners: [String]?
    }

    struct ManagedIdentityEntry: Decodable {
        var name: String
        var clientId: String
        var objectId: String?
        var tenant: String?
        var kind: ManagedIdentity.Kind?
        var resourceId: String?
    }

    struct TenantEntry: Decodable {
        var id: String
        var displayName: String?
        var domains: [String]
        var kind: Tenant.Kind?
        var subscriptions: [AzureSubscription]?
        var userFlow: UserFlowEntry?
        var bannedPasswords: [String]?
        var customAuthenticationExtensions: [ExtensionEntry]?
    }

    struct ExtensionEntry: Decodable {
        var id: String?
        var listenerId: String?
        var displayName: String?
        var event: CustomAuthenticationExtension.Event
        var targetUrl: String
        var resourceId: String
        var timeoutInMilliseconds: Int?
        var maximumRetries: Int?
        var applications: [String]?
        var claimsMapping: [CustomAuthenticationExtension.ClaimMapping]?
        var migrationPropertyId: String?
        var encryptionCertificate: String?
    }

    struct UserFlowEntry: Decodable {
        var emailMethod: ExternalUserFlow.EmailMethod?
        var attributes: [SignUpAttributeEntry]?
    }

    struct SignUpAttributeEntry: Decodable {
        var name: String
        var label: String?
        var type: SignUpAttribute.ValueType?
        var required: Bool?
        var regex: String?
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
        /// Directory extension values (`extension_{app id}_{name}`): strings, numbers or Booleans.
        var attributes: [String: AttributeValue]?
    }

    /// One directory extension value, kept as its text (`true`, `42`, `gold`).
    struct AttributeValue: Decodable {
        var text: String

        init(text: String) { self.text = text }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) { text = flag ? "true" : "false" }
            else if let number = try? container.decode(Int.self) { text = String(number) }
            else { text = try container.decode(String.self) }
        }
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
        /// The single-page application platform's redirect URIs (Graph's `spa.redirectUris`).
        var spaRedirectUris: [String]?
        var requiredResourceAccess: [ResourceAccessEntry]?
        var identifierUris: [String]?
        var exposedScopes: [String]?
        var adminConsentScopes: [String]?
        var appRoles: [String]?
        var accessTokenAcceptedVersion: Int?
        var familyId: String?
        var groupMembershipClaims: GroupMembershipClaims?
        var federatedCredentials: [FederatedCredentialEntry]?
        var nativeAuthenticationApisEnabled: NativeAuthenticationApis?
    }

    /// Graph's `nativeAuthenticationApisEnabled` values.
    enum NativeAuthenticationApis: String, Decodable { case none, all }

    struct FederatedCredentialEntry: Decodable {
        var issuer: String
        var subject: String
        var audiences: [String]?
        var certificates: [String]
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
    var managedIdentities: [ManagedIdentityEntry]?
    var groups: [GroupEntry]?

    private enum CodingKeys: String, CodingKey {
        case includeDefaults, options, tenants, users, apps, consents, managedIdentities, groups
    }

    /// Where the loader puts `users` it already read from the validated tree (`UserEntry.entries(validated:)`);
    /// the document it then decodes leaves them out.
    static let prebuiltUsersKey = CodingUserInfoKey(rawValue: "fakeentra.prebuiltUsers")!

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        includeDefaults = try container.decodeIfPresent(Bool.self, forKey: .includeDefaults)
        options = try container.decodeIfPresent(Options.self, forKey: .options)
        tenants = try container.decodeIfPresent([TenantEntry].self, forKey: .tenants)
        if let prebuilt = decoder.userInfo[Self.prebuiltUsersKey] as? [UserEntry] {
            users = prebuilt
        } else {
            users = try container.decodeIfPresent([UserEntry].self, forKey: .users)
        }
        apps = try container.decodeIfPresent([AppEntry].self, forKey: .apps)
        consents = try container.decodeIfPresent([ConsentEntry].self, forKey: .consents)
        managedIdentities = try container.decodeIfPresent([ManagedIdentityEntry].self, forKey: .managedIdentities)
        groups = try container.decodeIfPresent([GroupEntry].self, forKey: .groups)
    }
}

extension ConfigurationFile.UserEntry {
    /// The `users` of a schema-valid tree, read straight from it: through JSONDecoder (a keyed container
    /// with a hashed lookup per declared field, present or not) they were a quarter of the start-up of
    /// a 100,000-user config. The schema fixes each member's type; nil when anything differs from what
    /// this reader expects, and the file then goes through JSONDecoder and its errors as before.
    static func entries(validated tree: JSONValue) -> [Self]? {
        guard let list = tree["users"]?.array else { return nil }
        var entries: [Self] = []
        entries.reserveCapacity(list.count)
        for value in list {
            guard let entry = Self(validated: value) else { return nil }
            entries.append(entry)
        }
        return entries
    }

    private init?(validated value: JSONValue) {
        guard case .object(let members) = value.kind else { return nil }
        var upn: String?
        var name: String?
        /// A member whose JSON type is not the one this reader expects: the file takes the JSONDecoder path.
        struct Unexpected: Error {}
        func text(_ value: JSONValue) throws(Unexpected) -> String {
            guard let text = value.string else { throw Unexpected() }
            return text
        }
        func flag(_ value: JSONValue) throws(Unexpected) -> Bool {
            guard let flag = value.bool else { throw Unexpected() }
            return flag
        }
        func texts(_ value: JSONValue) throws(Unexpected) -> [String] {
            guard let array = value.array else { throw Unexpected() }
            let strings = array.compactMap(\.string)
            guard strings.count == array.count else { throw Unexpected() }
            return strings
        }
        do {
            for member in members {
                let value = member.value
                switch member.key {
                case "userPrincipalName": upn = try text(value)
                case "displayName": name = try text(value)
                case "id": id = try text(value)
                case "tenant": tenant = try text(value)
                case "givenName": givenName = try text(value)
                case "surname": surname = try text(value)
                case "mail": mail = try text(value)
                case "jobTitle": jobTitle = try text(value)
                case "officeLocation": officeLocation = try text(value)
                case "mobilePhone": mobilePhone = try text(value)
                case "preferredLanguage": preferredLanguage = try text(value)
                case "password": password = try text(value)
                case "otherMails": otherMails = try texts(value)
                case "businessPhones": businessPhones = try texts(value)
                case "mfaRegistered": mfaRegistered = try flag(value)
                case "mfaRequired": mfaRequired = try flag(value)
                case "accountEnabled": accountEnabled = try flag(value)
                case "locked": locked = try flag(value)
                case "passwordExpired": passwordExpired = try flag(value)
                case "attributes":
                    guard let members = value.members else { throw Unexpected() }
                    var read: [String: ConfigurationFile.AttributeValue] = [:]
                    for member in members {
                        guard member.value.array == nil, let text = member.value.scalarText else { throw Unexpected() }
                        read[member.key] = ConfigurationFile.AttributeValue(text: text)
                    }
                    attributes = read
                default: throw Unexpected()
                }
            }
        } catch {
            return nil
        }
        guard let upn, let name else { return nil }
        userPrincipalName = upn
        displayName = name
    }
}
