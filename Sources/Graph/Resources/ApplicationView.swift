import FoundationGaps
import EntraCrypto
import IdentityPlatform
import LocatedJSON

/// An app registration as Graph's `application` resource shows it (v1.0), its properties in the order a
/// 2026 registration's JSON lists them. What FakeEntra's registrations do not hold (creation time, notes,
/// informational URLs) is null, as on a registration that never set it.
enum ApplicationView {
    static let properties = [
        "id", "deletedDateTime", "appId", "applicationTemplateId", "disabledByMicrosoftStatus", "createdDateTime", "displayName",
        "description", "groupMembershipClaims", "identifierUris", "isDeviceOnlyAuthSupported", "isFallbackPublicClient",
        "nativeAuthenticationApisEnabled", "notes", "publisherDomain", "serviceManagementReference", "signInAudience", "tags",
        "tokenEncryptionKeyId", "samlMetadataUrl", "defaultRedirectUri", "certification", "optionalClaims", "requestSignatureVerification",
        "addIns", "api", "appRoles", "info", "keyCredentials", "parentalControlSettings", "passwordCredentials", "publicClient",
        "requiredResourceAccess", "verifiedPublisher", "web", "servicePrincipalLockConfiguration", "spa",
    ]

    /// Microsoft Graph's own ids of the delegated permissions apps ask for most, as registrations name them
    /// in `requiredResourceAccess` (Terraform, PowerShell and Python registrations found with the search
    /// tools; User.Read also in a 2026 registration's JSON). Other permissions get an id derived from their
    /// name, the same everywhere FakeEntra shows them.
    static let graphScopeIDs = [
        "openid": "37f7f235-527c-4136-accd-4a02d197296e", "profile": "14dad69e-099b-42c9-810b-d002981feec1",
        "offline_access": "7427e0e9-2fba-42fe-b0c0-848c9e6a8182", "email": "64a6cdd6-aab1-4aaf-94b8-3cc8405e90d0",
        "user.read": "e1fe6dd8-ba31-4d61-89e7-88639da4683d",
    ]

    /// The registration's object id (not its app id): derived, so every world and restart names the same.
    static func objectID(of app: Application) -> String {
        TokenIdentifiers.guid(from: "application|\(app.clientID.lowercased())")
    }

    /// The id of permission `name` (a scope, or with `role` an app role) on the app `resourceAppID`.
    static func permissionID(_ name: String, role: Bool, on resourceAppID: String) -> String {
        if !role, resourceAppID == Resource.graphAppID, let id = graphScopeIDs[name.lowercased()] { return id }
        return TokenIdentifiers.guid(from: "\(role ? "role" : "scope")|\(resourceAppID.lowercased())|\(name)")
    }

    static func members(_ app: Application, directory: Directory, properties: [String]) -> [(String, JSONValue)] {
        properties.map { ($0, value(of: $0, for: app, directory: directory)) }
    }

    static func value(of property: String, for app: Application, directory: Directory) -> JSONValue {
        switch property {
        case "id": .string(objectID(of: app))
        case "appId": .string(app.clientID)
        case "displayName": .string(app.displayName)
        case "groupMembershipClaims": .string(app.groupMembershipClaims?.rawValue)
        case "identifierUris": .strings(app.identifierURIs)
        case "isFallbackPublicClient": app.isPublicClient ? .bool(true) : .null
        case "nativeAuthenticationApisEnabled": app.nativeAuthenticationApisEnabled ? .string("all") : .null
        case "publisherDomain": .string(directory.tenant(id: app.tenantID ?? "")?.primaryDomain ?? directory.tenants.first?.primaryDomain)
        case "signInAudience": .string(app.tenantID == nil ? "AzureADMultipleOrgs" : "AzureADMyOrg")
        case "tags", "addIns": .array([])
        case "api": api(app)
        case "appRoles": .array(app.appRoles.map { role in
            .object([("allowedMemberTypes", .strings(["Application"])), ("description", .string(role)), ("displayName", .string(role)),
                     ("id", .string(permissionID(role, role: true, on: app.clientID))), ("isEnabled", .bool(true)), ("origin", .string("Application")),
                     ("value", .string(role))])
        })
        case "info": .object(["logoUrl", "marketingUrl", "privacyStatementUrl", "supportUrl", "termsOfServiceUrl"].map { ($0, .null) })
        case "keyCredentials": .array(app.certificates.compactMap(keyCredential))
        case "parentalControlSettings": .object([("countriesBlockedForMinors", .array([])), ("legalAgeGroupRule", .string("Allow"))])
        case "passwordCredentials": .array(app.secrets.enumerated().map { index, secret in passwordCredential(secret, index: index, of: app) })
        case "publicClient": .object([("redirectUris", .strings(app.isPublicClient ? app.redirectURIs : []))])
        case "requiredResourceAccess": .array(app.requiredResourceAccess.map { requiredAccess($0, directory: directory) })
        case "verifiedPublisher": .object([("displayName", .null), ("verifiedPublisherId", .null), ("addedDateTime", .null)])
        case "web": web(app)
        case "servicePrincipalLockConfiguration":
            // What the service sets on every registration made since 2024.
            .object([("isEnabled", .bool(true)), ("allProperties", .bool(true)), ("credentialsWithUsageVerify", .bool(true)),
                     ("credentialsWithUsageSign", .bool(true)), ("identifierUris", .bool(false)), ("tokenEncryptionKeyId", .bool(true))])
        case "spa": .object([("redirectUris", .strings(app.spaRedirectURIs))])
        default: .null
        }
    }

    private static func api(_ app: Application) -> JSONValue {
        let scopes: [JSONValue] = app.exposedScopes.map { scope in
            .object([
                ("adminConsentDescription", .null), ("adminConsentDisplayName", .string(scope)),
                ("id", .string(permissionID(scope, role: false, on: app.clientID))), ("isEnabled", .bool(true)),
                ("type", .string(app.adminConsentScopes.contains(scope) ? "Admin" : "User")),
                ("userConsentDescription", .null), ("userConsentDisplayName", .null), ("value", .string(scope)),
            ])
        }
        return .object([
            ("acceptMappedClaims", .null), ("knownClientApplications", .array([])),
            ("requestedAccessTokenVersion", app.accessTokenAcceptedVersion.map { .int($0) } ?? .null),
            ("oauth2PermissionScopes", .array(scopes)), ("preAuthorizedApplications", .array([])),
        ])
    }

    private static func web(_ app: Application) -> JSONValue {
        let uris = app.isPublicClient ? [] : app.redirectURIs
        return .object([
            ("homePageUrl", .null), ("logoutUrl", .null), ("redirectUris", .strings(uris)),
            ("implicitGrantSettings", .object([("enableAccessTokenIssuance", .bool(false)), ("enableIdTokenIssuance", .bool(false))])),
            ("redirectUriSettings", .array(uris.map { .object([("uri", .string($0)), ("index", .null)]) })),
        ])
    }

    /// The resource by its app id (Graph's, or a registration's named by its identifier URI), with each
    /// permission's id.
    private static func requiredAccess(_ access: Application.RequiredResourceAccess, directory: Directory) -> JSONValue {
        let resourceAppID: String
        if access.resource == Resource.graphAppID || access.resource.lowercased().hasPrefix("https://graph.microsoft.com") {
            resourceAppID = Resource.graphAppID
        } else {
            resourceAppID = directory.applications.first { $0.clientID == access.resource || $0.identifierURIs.contains(access.resource) }?.clientID ?? access.resource
        }
        let items = access.scopes.map { (permissionID($0, role: false, on: resourceAppID), "Scope") }
            + access.roles.map { (permissionID($0, role: true, on: resourceAppID), "Role") }
        return .object([
            ("resourceAppId", .string(resourceAppID)),
            ("resourceAccess", .array(items.map { .object([("id", .string($0.0)), ("type", .string($0.1))]) })),
        ])
    }

    private static func keyCredential(_ pem: String) -> JSONValue? {
        guard let certificate = try? X509Certificate(pem: pem) else { return nil }
        let thumbprint = Hex.uppercase(certificate.sha1Thumbprint)
        return .object([
            ("customKeyIdentifier", .string(thumbprint)), ("displayName", .string(certificate.subjectCommonName.map { "CN=\($0)" })),
            ("endDateTime", .string(InternetTimestamp.string(certificate.notAfter))), ("key", .null),
            ("keyId", .string(TokenIdentifiers.guid(from: "key|\(thumbprint)"))), ("startDateTime", .string(InternetTimestamp.string(certificate.notBefore))),
            ("type", .string("AsymmetricX509Cert")), ("usage", .string("Verify")),
        ])
    }

    /// A secret as Graph shows one: its first three characters as the hint, never its text.
    private static func passwordCredential(_ secret: Application.Secret, index: Int, of app: Application) -> JSONValue {
        .object([
            ("customKeyIdentifier", .null), ("displayName", .null),
            ("endDateTime", .string(secret.expiresAt.map { InternetTimestamp.string($0) })), ("hint", .string(String(secret.value.prefix(3)))),
            ("keyId", .string(TokenIdentifiers.guid(from: "secret|\(app.clientID.lowercased())|\(index)"))), ("secretText", .null),
            ("startDateTime", .null),
        ])
    }
}

extension DirectoryFilter where Object == Application {
    static var applicationProperties: [(String, @Sendable (Application) -> String?)] {
        [("id", { ApplicationView.objectID(of: $0) }), ("appId", \.clientID), ("displayName", \.displayName)]
    }

    static var applicationLists: [(String, @Sendable (Application) -> [String])] {
        [("identifierUris", \.identifierURIs)]
    }
}
