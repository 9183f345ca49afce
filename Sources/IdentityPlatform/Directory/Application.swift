package import FoundationGaps
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
    /// Coded with the synthesized coding, as `Application` itself was before the box: the state file keeps
    /// apps with these keys, optional ones written only when present.
    private struct Fields: Sendable, Codable, Equatable {
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
        var groupMembershipClaims: GroupMembershipClaims?
        var federatedCredentials: [FederatedCredential]?
        var nativeAuthenticationApisEnabled: Bool?
        var spaRedirectURIs: [String]?
    }

    private var storage: CopyOnWrite<Fields>

    /// Application (client) id, a lowercase GUID or any string the user chose.
    package var clientID: String {
        get { storage.fields.clientID }
        set { storage.fields.clientID = newValue }
    }

    package var displayName: String {
        get { storage.fields.displayName }
        set { storage.fields.displayName = newValue }
    }

    /// Home tenant; nil means multi-tenant registration usable from any tenant.
    package var tenantID: String? {
        get { storage.fields.tenantID }
        set { storage.fields.tenantID = newValue }
    }

    package var isPublicClient: Bool {
        get { storage.fields.isPublicClient }
        set { storage.fields.isPublicClient = newValue }
    }

    package var secrets: [Secret] {
        get { storage.fields.secrets }
        set { storage.fields.secrets = newValue }
    }

    /// PEM certificates whose keys may sign `client_assertion` JWTs.
    package var certificates: [String] {
        get { storage.fields.certificates }
        set { storage.fields.certificates = newValue }
    }

    package var redirectURIs: [String] {
        get { storage.fields.redirectURIs }
        set { storage.fields.redirectURIs = newValue }
    }

    /// Redirect URIs of the "Single-page application" platform (Graph's `spa.redirectUris`): their codes
    /// are redeemed by the browser, cross-origin, and their refresh tokens live 24 hours, fixed.
    /// `redirectURIs` are the web and public-client platforms'.
    package var spaRedirectURIs: [String] {
        get { storage.fields.spaRedirectURIs ?? [] }
        set { storage.fields.spaRedirectURIs = newValue.isEmpty ? nil : newValue }
    }

    /// Every redirect URI registered, of any platform.
    package var allRedirectURIs: [String] { redirectURIs + spaRedirectURIs }

    /// The platform `uri` is registered under; nil when it is not registered (a lenient native form).
    package func platform(ofRedirectURI uri: String) -> RedirectPlatform? {
        func registered(in list: [String]) -> Bool {
            if list.contains(uri) { return true }
            // A loopback URI matches its registration on any port, as at /authorize.
            guard let bare = ClientResolver.loopbackWithoutPort(uri) else { return false }
            return list.contains { ClientResolver.loopbackWithoutPort($0) == bare }
        }
        if registered(in: spaRedirectURIs) { return .spa }
        if registered(in: redirectURIs) { return .webOrPublicClient }
        return nil
    }

    package var requiredResourceAccess: [RequiredResourceAccess] {
        get { storage.fields.requiredResourceAccess }
        set { storage.fields.requiredResourceAccess = newValue }
    }

    /// As a resource: `api://<id>` and others. Empty when the app exposes nothing.
    package var identifierURIs: [String] {
        get { storage.fields.identifierURIs }
        set { storage.fields.identifierURIs = newValue }
    }

    /// Delegated permissions this app exposes as a resource (e.g. `access_as_user`).
    package var exposedScopes: [String] {
        get { storage.fields.exposedScopes }
        set { storage.fields.exposedScopes = newValue }
    }

    /// Application permissions (app roles) this app exposes as a resource.
    package var appRoles: [String] {
        get { storage.fields.appRoles }
        set { storage.fields.appRoles = newValue }
    }

    /// 1 or 2: the access-token format issued for this app as a resource (nil behaves as 1, as in Entra).
    package var accessTokenAcceptedVersion: Int? {
        get { storage.fields.accessTokenAcceptedVersion }
        set { storage.fields.accessTokenAcceptedVersion = newValue }
    }

    /// Family of client ids (`"1"` for Microsoft's family) sharing family refresh tokens (FOCI).
    package var familyID: String? {
        get { storage.fields.familyID }
        set { storage.fields.familyID = newValue }
    }

    /// Tokens of other issuers the app accepts as its client assertion (workload identity federation).
    package var federatedCredentials: [FederatedCredential] {
        get { storage.fields.federatedCredentials ?? [] }
        set { storage.fields.federatedCredentials = newValue.isEmpty ? nil : newValue }
    }

    /// Which groups the app's tokens name in a `groups` claim (the manifest's `groupMembershipClaims`).
    package var groupMembershipClaims: GroupMembershipClaims? {
        get { storage.fields.groupMembershipClaims }
        set { storage.fields.groupMembershipClaims = newValue }
    }

    /// Whether External ID's native authentication API serves the app (Graph's `nativeAuthenticationApisEnabled`,
    /// `all`; the registration's "Enable native authentication"). Off until enabled, as on the service.
    package var nativeAuthenticationApisEnabled: Bool {
        get { storage.fields.nativeAuthenticationApisEnabled ?? false }
        set { storage.fields.nativeAuthenticationApisEnabled = newValue ? true : nil }
    }

    /// Exposed scopes only an administrator may consent to (AADSTS90094 for a user alone).
    package var adminConsentScopes: [String] {
        get { storage.fields.adminConsentScopes }
        set { storage.fields.adminConsentScopes = newValue }
    }

    package init(
        clientID: String, displayName: String, tenantID: String? = nil, isPublicClient: Bool = true,
        secrets: [Secret] = [], certificates: [String] = [], redirectURIs: [String] = [],
        requiredResourceAccess: [RequiredResourceAccess] = [], identifierURIs: [String] = [],
        exposedScopes: [String] = [], appRoles: [String] = [], accessTokenAcceptedVersion: Int? = nil,
        familyID: String? = nil, spaRedirectURIs: [String] = []
    ) {
        storage = CopyOnWrite(Fields(
            clientID: clientID, displayName: displayName, tenantID: tenantID?.lowercased(), isPublicClient: isPublicClient,
            secrets: secrets, certificates: certificates, redirectURIs: redirectURIs, requiredResourceAccess: requiredResourceAccess,
            identifierURIs: identifierURIs, exposedScopes: exposedScopes, appRoles: appRoles,
            accessTokenAcceptedVersion: accessTokenAcceptedVersion, familyID: familyID, adminConsentScopes: [], groupMembershipClaims: nil, federatedCredentials: nil,
            spaRedirectURIs: spaRedirectURIs.isEmpty ? nil : spaRedirectURIs
        ))
    }

    package static func == (lhs: Application, rhs: Application) -> Bool {
        // One box is one app (even with a NaN expiry date, which the field-by-field comparison would call
        // unequal to itself).
        lhs.storage.sharesFields(with: rhs.storage) || lhs.storage.fields == rhs.storage.fields
    }

    package init(from decoder: any Decoder) throws {
        storage = CopyOnWrite(try Fields(from: decoder))
    }

    package func encode(to encoder: any Encoder) throws {
        try storage.fields.encode(to: encoder)
    }
}

/// The registration platforms a redirect URI belongs to (the portal's "Authentication" blade).
package enum RedirectPlatform: String, Sendable, Equatable, Codable {
    /// Single-page application: the browser redeems the code itself, cross-origin.
    case spa
    /// Web or mobile and desktop: the code is redeemed by a server or an app, never cross-origin.
    case webOrPublicClient = "web"
}
