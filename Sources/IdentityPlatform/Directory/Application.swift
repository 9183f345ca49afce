package import Foundation
import EntraHTTP

/// An app registration: a client, and possibly a resource (web API) that exposes scopes and roles.
package struct Application: Sendable, Codable, Equatable, Identifiable {
    package struct Secret: Sendable, Codable, Equatable {
        package var value: String
        package var expiresAt: Date?
        package init(value: String, expiresAt: Date? = nil) {
            self.value = value
            self.expiresAt = expiresAt
        }
    }

    /// Permissions requested statically, granted by `<resource>/.default`.
    package struct RequiredResourceAccess: Sendable, Codable, Equatable {
        /// The resource's app id or identifier URI (`https://graph.microsoft.com`, `api://…`).
        package var resource: String
        package var scopes: [String]
        package var roles: [String]
        package init(resource: String, scopes: [String] = [], roles: [String] = []) {
            self.resource = resource
            self.scopes = scopes
            self.roles = roles
        }
    }

    package var id: String { clientID }

    /// The fields live in one box shared by copies until one is changed: an app goes by value from the
    /// directory into the resolved client, the authenticated client and the token issue, and a copy of
    /// its dozen reference-counted fields cost a dozen atomic increments and decrements each time.
    private final class Storage: CopyOnWriteStorage, @unchecked Sendable {
        // Mutated only through `writable`, that is while no other app shares the box.
        var clientID: String
        var displayName: String
        var tenantID: String?
        var isPublicClient: Bool
        var secrets: [Secret]
        var certificates: [String]
        var redirectURIs: [String]
        var requiredResourceAccess: [RequiredResourceAccess]
        var identifierURIs: [String]
        var exposedScopes: [String]
        var appRoles: [String]
        var accessTokenAcceptedVersion: Int?
        var familyID: String?
        var adminConsentScopes: [String]

        init(clientID: String, displayName: String, tenantID: String?, isPublicClient: Bool, secrets: [Secret], certificates: [String], redirectURIs: [String], requiredResourceAccess: [RequiredResourceAccess], identifierURIs: [String], exposedScopes: [String], appRoles: [String], accessTokenAcceptedVersion: Int?, familyID: String?, adminConsentScopes: [String]) {
            self.clientID = clientID
            self.displayName = displayName
            self.tenantID = tenantID
            self.isPublicClient = isPublicClient
            self.secrets = secrets
            self.certificates = certificates
            self.redirectURIs = redirectURIs
            self.requiredResourceAccess = requiredResourceAccess
            self.identifierURIs = identifierURIs
            self.exposedScopes = exposedScopes
            self.appRoles = appRoles
            self.accessTokenAcceptedVersion = accessTokenAcceptedVersion
            self.familyID = familyID
            self.adminConsentScopes = adminConsentScopes
        }

        func copy() -> Storage {
            Storage(clientID: clientID, displayName: displayName, tenantID: tenantID, isPublicClient: isPublicClient, secrets: secrets, certificates: certificates, redirectURIs: redirectURIs, requiredResourceAccess: requiredResourceAccess, identifierURIs: identifierURIs, exposedScopes: exposedScopes, appRoles: appRoles, accessTokenAcceptedVersion: accessTokenAcceptedVersion, familyID: familyID, adminConsentScopes: adminConsentScopes)
        }
    }

    private var storage: Storage

    /// The box, copied first when another app shares it.
    private var writable: Storage {
        mutating get { writableStorage(&storage) }
    }

    /// Application (client) id, a lowercase GUID or any string the user chose.
    package var clientID: String {
        get { storage.clientID }
        set { writable.clientID = newValue }
    }

    package var displayName: String {
        get { storage.displayName }
        set { writable.displayName = newValue }
    }

    /// Home tenant; nil means multi-tenant registration usable from any tenant.
    package var tenantID: String? {
        get { storage.tenantID }
        set { writable.tenantID = newValue }
    }

    package var isPublicClient: Bool {
        get { storage.isPublicClient }
        set { writable.isPublicClient = newValue }
    }

    package var secrets: [Secret] {
        get { storage.secrets }
        set { writable.secrets = newValue }
    }

    /// PEM certificates whose keys may sign `client_assertion` JWTs.
    package var certificates: [String] {
        get { storage.certificates }
        set { writable.certificates = newValue }
    }

    package var redirectURIs: [String] {
        get { storage.redirectURIs }
        set { writable.redirectURIs = newValue }
    }

    package var requiredResourceAccess: [RequiredResourceAccess] {
        get { storage.requiredResourceAccess }
        set { writable.requiredResourceAccess = newValue }
    }

    /// As a resource: `api://<id>` and others. Empty when the app exposes nothing.
    package var identifierURIs: [String] {
        get { storage.identifierURIs }
        set { writable.identifierURIs = newValue }
    }

    /// Delegated permissions this app exposes as a resource (e.g. `access_as_user`).
    package var exposedScopes: [String] {
        get { storage.exposedScopes }
        set { writable.exposedScopes = newValue }
    }

    /// Application permissions (app roles) this app exposes as a resource.
    package var appRoles: [String] {
        get { storage.appRoles }
        set { writable.appRoles = newValue }
    }

    /// 1 or 2: the access-token format issued for this app as a resource (nil behaves as 1, as in Entra).
    package var accessTokenAcceptedVersion: Int? {
        get { storage.accessTokenAcceptedVersion }
        set { writable.accessTokenAcceptedVersion = newValue }
    }

    /// Family of client ids (`"1"` for Microsoft's family) sharing family refresh tokens (FOCI).
    package var familyID: String? {
        get { storage.familyID }
        set { writable.familyID = newValue }
    }

    /// Exposed scopes only an administrator may consent to (AADSTS90094 for a user alone).
    package var adminConsentScopes: [String] {
        get { storage.adminConsentScopes }
        set { writable.adminConsentScopes = newValue }
    }

    package init(
        clientID: String, displayName: String, tenantID: String? = nil, isPublicClient: Bool = true,
        secrets: [Secret] = [], certificates: [String] = [], redirectURIs: [String] = [],
        requiredResourceAccess: [RequiredResourceAccess] = [], identifierURIs: [String] = [],
        exposedScopes: [String] = [], appRoles: [String] = [], accessTokenAcceptedVersion: Int? = nil,
        familyID: String? = nil
    ) {
        storage = Storage(
            clientID: clientID, displayName: displayName, tenantID: tenantID?.lowercased(), isPublicClient: isPublicClient,
            secrets: secrets, certificates: certificates, redirectURIs: redirectURIs, requiredResourceAccess: requiredResourceAccess,
            identifierURIs: identifierURIs, exposedScopes: exposedScopes, appRoles: appRoles,
            accessTokenAcceptedVersion: accessTokenAcceptedVersion, familyID: familyID, adminConsentScopes: []
        )
    }

    package static func == (lhs: Application, rhs: Application) -> Bool {
        // One box is one app (even with a NaN expiry date, which the field-by-field comparison would call
        // unequal to itself).
        if lhs.storage === rhs.storage { return true }
        let (l, r) = (lhs.storage, rhs.storage)
        return l.clientID == r.clientID
            && l.displayName == r.displayName
            && l.tenantID == r.tenantID
            && l.isPublicClient == r.isPublicClient
            && l.secrets == r.secrets
            && l.certificates == r.certificates
            && l.redirectURIs == r.redirectURIs
            && l.requiredResourceAccess == r.requiredResourceAccess
            && l.identifierURIs == r.identifierURIs
            && l.exposedScopes == r.exposedScopes
            && l.appRoles == r.appRoles
            && l.accessTokenAcceptedVersion == r.accessTokenAcceptedVersion
            && l.familyID == r.familyID
            && l.adminConsentScopes == r.adminConsentScopes
    }

    // Coded as the stored properties were before the box (the state file keeps apps this way): the same
    // keys, optional ones written only when present.
    private enum CodingKeys: String, CodingKey {
        case clientID, displayName, tenantID, isPublicClient, secrets, certificates, redirectURIs, requiredResourceAccess, identifierURIs, exposedScopes, appRoles, accessTokenAcceptedVersion, familyID, adminConsentScopes
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storage = Storage(
            clientID: try container.decode(String.self, forKey: .clientID),
            displayName: try container.decode(String.self, forKey: .displayName),
            tenantID: try container.decodeIfPresent(String.self, forKey: .tenantID),
            isPublicClient: try container.decode(Bool.self, forKey: .isPublicClient),
            secrets: try container.decode([Secret].self, forKey: .secrets),
            certificates: try container.decode([String].self, forKey: .certificates),
            redirectURIs: try container.decode([String].self, forKey: .redirectURIs),
            requiredResourceAccess: try container.decode([RequiredResourceAccess].self, forKey: .requiredResourceAccess),
            identifierURIs: try container.decode([String].self, forKey: .identifierURIs),
            exposedScopes: try container.decode([String].self, forKey: .exposedScopes),
            appRoles: try container.decode([String].self, forKey: .appRoles),
            accessTokenAcceptedVersion: try container.decodeIfPresent(Int.self, forKey: .accessTokenAcceptedVersion),
            familyID: try container.decodeIfPresent(String.self, forKey: .familyID),
            adminConsentScopes: try container.decode([String].self, forKey: .adminConsentScopes)
        )
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(storage.clientID, forKey: .clientID)
        try container.encode(storage.displayName, forKey: .displayName)
        try container.encodeIfPresent(storage.tenantID, forKey: .tenantID)
        try container.encode(storage.isPublicClient, forKey: .isPublicClient)
        try container.encode(storage.secrets, forKey: .secrets)
        try container.encode(storage.certificates, forKey: .certificates)
        try container.encode(storage.redirectURIs, forKey: .redirectURIs)
        try container.encode(storage.requiredResourceAccess, forKey: .requiredResourceAccess)
        try container.encode(storage.identifierURIs, forKey: .identifierURIs)
        try container.encode(storage.exposedScopes, forKey: .exposedScopes)
        try container.encode(storage.appRoles, forKey: .appRoles)
        try container.encodeIfPresent(storage.accessTokenAcceptedVersion, forKey: .accessTokenAcceptedVersion)
        try container.encodeIfPresent(storage.familyID, forKey: .familyID)
        try container.encode(storage.adminConsentScopes, forKey: .adminConsentScopes)
    }
}
