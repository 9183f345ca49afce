package import Foundation

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
    /// Application (client) id, a lowercase GUID or any string the user chose.
    package var clientID: String
    package var displayName: String
    /// Home tenant; nil means multi-tenant registration usable from any tenant.
    package var tenantID: String?
    package var isPublicClient: Bool
    package var secrets: [Secret]
    /// PEM certificates whose keys may sign `client_assertion` JWTs.
    package var certificates: [String]
    package var redirectURIs: [String]
    package var requiredResourceAccess: [RequiredResourceAccess]
    /// As a resource: `api://<id>` and others. Empty when the app exposes nothing.
    package var identifierURIs: [String]
    /// Delegated permissions this app exposes as a resource (e.g. `access_as_user`).
    package var exposedScopes: [String]
    /// Application permissions (app roles) this app exposes as a resource.
    package var appRoles: [String]
    /// 1 or 2: the access-token format issued for this app as a resource (nil behaves as 1, as in Entra).
    package var accessTokenAcceptedVersion: Int?
    /// Family of client ids (`"1"` for Microsoft's family) sharing family refresh tokens (FOCI).
    package var familyID: String?
    /// Exposed scopes only an administrator may consent to (AADSTS90094 for a user alone).
    package var adminConsentScopes: [String] = []

    package init(
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
