import IdentityPlatform
import LocatedJSON
import Scenarios

/// Directory entries as JSON, in the shape scenario files use (`docs/schemas/scenario.schema.json`, `$defs`).
/// Optional fields are left out when unset, as the scenario schema has no `null` for them.
enum DirectoryJSON {
    static func user(_ u: DirectoryUser) -> JSONValue {
        .object(omittingNil: [
            "id": .string(u.id), "tenant": .string(u.tenantID), "userPrincipalName": .string(u.userPrincipalName),
            "displayName": .string(u.displayName), "businessPhones": .strings(u.businessPhones),
            "mfaRegistered": .bool(u.mfaRegistered), "mfaRequired": .bool(u.mfaRequired), "accountEnabled": .bool(u.accountEnabled),
            "locked": .bool(u.locked), "passwordExpired": .bool(u.passwordExpired), "otherMails": .strings(u.otherMails),
            "password": .string(u.password),
            "givenName": u.givenName.map(JSONValue.string), "surname": u.surname.map(JSONValue.string),
            "mail": u.mail.map(JSONValue.string), "jobTitle": u.jobTitle.map(JSONValue.string),
            "officeLocation": u.officeLocation.map(JSONValue.string), "mobilePhone": u.mobilePhone.map(JSONValue.string),
            "preferredLanguage": u.preferredLanguage.map(JSONValue.string),
        ])
    }

    /// Fields the control API shows but never accepts back.
    static func userView(_ u: DirectoryUser) -> JSONValue {
        user(u)
            .setting("password", to: nil)
            .setting("tokensValidFrom", to: u.tokensValidFrom.map { JSONValue.string(IdentityErrorDates.iso($0)) })
            // What an External ID sign-up collected beyond the user's properties.
            .setting("attributes", to: u.attributes.map { attributes in .object(attributes.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }) })
    }

    static func app(_ a: Application) -> JSONValue {
        let access = a.requiredResourceAccess.map { grant in
            JSONValue.object(["resource": .string(grant.resource), "scopes": .strings(grant.scopes), "roles": .strings(grant.roles)])
        }
        return .object(omittingNil: [
            "clientId": .string(a.clientID), "displayName": .string(a.displayName), "publicClient": .bool(a.isPublicClient),
            "secrets": .strings(a.secrets.map(\.value)), "redirectUris": .strings(a.redirectURIs),
            "spaRedirectUris": a.spaRedirectURIs.isEmpty ? nil : .strings(a.spaRedirectURIs),
            "requiredResourceAccess": .array(access), "identifierUris": .strings(a.identifierURIs),
            "exposedScopes": .strings(a.exposedScopes), "appRoles": .strings(a.appRoles),
            "tenant": a.tenantID.map(JSONValue.string), "accessTokenAcceptedVersion": a.accessTokenAcceptedVersion.map(JSONValue.int),
            "familyId": a.familyID.map(JSONValue.string), "groupMembershipClaims": a.groupMembershipClaims.map { JSONValue.string($0.rawValue) },
            "nativeAuthenticationApisEnabled": a.nativeAuthenticationApisEnabled ? .string("all") : nil,
            "certificates": a.certificates.isEmpty ? nil : .strings(a.certificates),
            "adminConsentScopes": a.adminConsentScopes.isEmpty ? nil : .strings(a.adminConsentScopes),
            "federatedCredentials": a.federatedCredentials.isEmpty ? nil : .array(a.federatedCredentials.map { credential in
                .object(["issuer": .string(credential.issuer), "subject": .string(credential.subject),
                         "audiences": .strings(credential.audiences), "certificates": .strings(credential.certificates)])
            }),
        ])
    }

    static func appView(_ a: Application) -> JSONValue {
        app(a).setting("secrets", to: .strings(a.secrets.map { _ in "********" }))
    }

    static func consent(_ c: ConsentGrant) -> JSONValue {
        .object(omittingNil: [
            "clientId": .string(c.clientID), "resource": .string(c.resourceAppID), "tenant": .string(c.tenantID),
            "scopes": .strings(c.scopes), "user": c.userID.map(JSONValue.string),
        ])
    }

    /// A control API body: keys sorted so answers compare as text.
    static func bytes(_ value: JSONValue) -> [UInt8] { value.sortedKeysBytes }
}

/// The scenario schema's directory definitions, compiled alone to check control API bodies.
enum ControlSchemas {
    static let user = compile("user")
    static let app = compile("app")
    static let consent = compile("consent")

    private static func compile(_ definition: String) -> JSONSchema {
        guard let root = LocatedJSON.object(body: ScenarioSchema.text.utf8), let defs = root["$defs"] else {
            preconditionFailure("the embedded scenario schema has no $defs")
        }
        let document = JSONValue.object(["$defs": defs, "$ref": .string("#/$defs/\(definition)")])
        do { return try JSONSchema(document: document, file: "scenario.schema.json#/$defs/\(definition)") }
        catch { preconditionFailure("the \(definition) schema does not compile: \(error)") }
    }
}
