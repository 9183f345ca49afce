import Foundation

/// An app registration: a client, and possibly a resource (web API) that exposes scopes and roles.
public struct Application: Sendable, Codable, Equatable, Identifiable {
    public struct Secret: Sendable, Codable, Equatable {
        public var value: String
        public var expiresAt: Date?
        public init(value: String, expiresAt: Date? = nil) {
            self.value = value
            self.expiresAt = expiresAt
        }
    }

    /// Permissions requested statically, granted by `<resource>/.default`.
    public struct RequiredResourceAccess: Sendable, Codable, Equatable {
        /// The resource's app id or identifier URI (`https://graph.microsoft.com`, `api://…`).
        public var resource: String
        public var scopes: [String]
        public var roles: [String]
        public init(resource: String, scopes: [String] = [], roles: [String] = []) {
            self.resource = resource
            self.scopes = scopes
            self.roles = roles
        }
    }

    public var id: String { clientID }
    /// Application (client) id, a lowercase GUID or any string the user chose.
    public var clientID: String
    public var displayName: String
    /// Home tenant; nil means multi-tenant registration usable from any tenant.
    public var tenantID: String?
    public var isPublicClient: Bool
    public var secrets: [Secret]
    /// PEM certificates whose keys may sign `client_assertion` JWTs.
    public var certificates: [String]
    public var redirectURIs: [String]
    public var requiredResourceAccess: [RequiredResourceAccess]
    /// As a resource: `api://<id>` and others. Empty when the app exposes nothing.
    public var identifierURIs: [String]
    /// Delegated permissions this app exposes as a resource (e.g. `access_as_user`).
    public var exposedScopes: [String]
    /// Application permissions (app roles) this app exposes as a resource.
    public var appRoles: [String]
    /// 1 or 2: the access-token format issued for this app as a resource (nil behaves as 1, as in Entra).
    public var accessTokenAcceptedVersion: Int?
    /// Family of client ids (`"1"` for Microsoft's family) sharing family refresh tokens (FOCI).
    public var familyID: String?
    /// Exposed scopes only an administrator may consent to (AADSTS90094 for a user alone).
    public var adminConsentScopes: [String] = []

    public init(
        clientID: String, displayName: String, tenantID: String? = nil, isPublicClient: Bool = true,
        secrets: [Secret] = [], certificates: [String] = [], redirectURIs: [String] = [],
        requiredResourceAccess: [RequiredResourceAccess] = [], identifierURIs: [String] = [],
        exposedScopes: [String] = [], appRoles: [String] = [], accessTokenAcceptedVersion: Int? = nil,
        familyID: String? = nil
    ) {
        self.clientID = clientID
        self.displayName = displayName
        self.tenantID = tenantID?.lowercased()
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
    }
}
