/// A custom authentication extension with the listener that calls it: the developer's REST endpoint the
/// service calls at one event of a sign-in or sign-up, for the applications the listener names. Graph keeps
/// these as two objects (`customAuthenticationExtension`, `authenticationEventListener`); a configuration
/// file names them as one, with Graph's member names
/// (learn.microsoft.com/graph/api/resources/customauthenticationextension,
/// …/resources/authenticationeventlistener).
package struct CustomAuthenticationExtension: Sendable, Codable, Equatable, Identifiable {
    /// The events FakeEntra calls out at, named as the callout's `type` names them
    /// (`microsoft.graph.authenticationEvent.<event>`).
    package enum Event: String, Sendable, Codable, CaseIterable {
        /// Before tokens are issued: claims for the id token (the client is listed) or the access token
        /// (the resource is listed).
        case tokenIssuanceStart
        /// External ID sign-up, before the attribute page shows: prefill, or block.
        case attributeCollectionStart
        /// External ID sign-up, once the attributes are submitted: change them, refuse them, or block.
        case attributeCollectionSubmit
        /// External ID sign-in, when a password does not match and the account is still to be migrated:
        /// the legacy system judges it (just-in-time migration).
        case passwordSubmit
    }

    /// One entry of the app's claims-mapping policy with `"Source": "CustomClaimsProvider"`: the claim the
    /// endpoint returns (`ID`, case-sensitive) and the name it gets in the token (`JwtClaimType`).
    package struct ClaimMapping: Sendable, Codable, Equatable {
        package var id: String
        package var jwtClaimType: String?

        package init(id: String, jwtClaimType: String? = nil) {
            self.id = id
            self.jwtClaimType = jwtClaimType
        }

        package var tokenClaimName: String { jwtClaimType ?? id }
    }

    package var id: String
    package var listenerID: String
    package var displayName: String
    package var event: Event
    /// `endpointConfiguration.targetUrl`.
    package var targetURL: String
    /// `authenticationConfiguration.resourceId`, `api://{host of targetUrl}/{appId}`: the bearer token the
    /// service sends is for that app.
    package var resourceID: String
    /// `clientConfiguration.timeoutInMilliseconds`, 200–2000, 1000 by default.
    package var timeoutMilliseconds: Int
    /// `clientConfiguration.maximumRetries`, 0 or 1.
    package var maximumRetries: Int
    /// The listener's `conditions.applications.includeApplications`: app ids. Token issuance needs them;
    /// for the attribute events an empty list means every app of the tenant's user flow.
    package var applications: [String]
    /// The claims-mapping policy's custom-claims-provider entries; nil maps every returned claim under its
    /// own name (the service adds none without a policy: `--strict` then adds none either).
    package var claimsMapping: [ClaimMapping]?
    /// The passwordSubmit handler's `migrationPropertyId`: the Boolean directory extension
    /// (`extension_{app id without dashes}_{name}`) that is true while a user's password is still the
    /// legacy system's.
    package var migrationPropertyID: String?
    /// The PEM certificate of the extension app's `keyCredentials` entry of usage `Encrypt` (its
    /// `tokenEncryptionKeyId`): the password context is encrypted to it.
    package var encryptionCertificate: String?

    package static let defaultTimeoutMilliseconds = 1000
    /// The app the service calls as: the bearer token's `azp` (`appid` in v1), "Azure AD Authentication
    /// Extensions" (learn.microsoft.com/entra/identity-platform/custom-extension-overview, "Protect your
    /// REST API").
    package static let callerAppID = "99045fe1-7639-4a75-9d4a-577b6ca3810f"

    package init(id: String, listenerID: String, displayName: String, event: Event, targetURL: String, resourceID: String,
                 timeoutMilliseconds: Int = defaultTimeoutMilliseconds, maximumRetries: Int = 1, applications: [String],
                 claimsMapping: [ClaimMapping]? = nil, migrationPropertyID: String? = nil, encryptionCertificate: String? = nil) {
        self.id = id.lowercased()
        self.listenerID = listenerID.lowercased()
        self.displayName = displayName
        self.event = event
        self.targetURL = targetURL
        self.resourceID = resourceID
        self.timeoutMilliseconds = timeoutMilliseconds
        self.maximumRetries = maximumRetries
        self.applications = applications.map { $0.lowercased() }
        self.claimsMapping = claimsMapping
        self.migrationPropertyID = migrationPropertyID
        self.encryptionCertificate = encryptionCertificate
    }

    /// The app id at the end of `resourceID` (the bearer token's `aud`).
    package var resourceAppID: String {
        String(resourceID.split(separator: "/").last ?? Substring(resourceID)).lowercased()
    }

    /// Whether the listener applies to a sign-in or sign-up of `clientID`: an empty list means every app of
    /// the tenant (the attribute and password events).
    package func listensForSignIn(of clientID: String) -> Bool {
        applications.isEmpty || listens(to: clientID)
    }

    /// Whether the listener applies to a token for `clientID` or `resourceAppID`.
    package func listens(to appID: String?) -> Bool {
        guard let appID else { return false }
        return applications.contains(appID.lowercased())
    }
}

extension Tenant {
    /// The tenant's extensions listening at `event`.
    package func extensions(at event: CustomAuthenticationExtension.Event) -> [CustomAuthenticationExtension] {
        (customAuthenticationExtensions ?? []).filter { $0.event == event }
    }

    /// The Boolean user properties password-migration extensions read (`migrationPropertyId`).
    package var migrationFlags: [String] {
        extensions(at: .passwordSubmit).compactMap(\.migrationPropertyID)
    }
}
