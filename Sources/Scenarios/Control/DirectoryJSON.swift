import Foundation
import IdentityPlatform
import LocatedJSON

/// Directory entries as JSON, in the shape scenario files use (`docs/schemas/scenario.schema.json`, `$defs`).
enum DirectoryJSON {
    static func user(_ u: DirectoryUser) -> [String: Any] {
        var o: [String: Any] = ["id": u.id, "tenant": u.tenantID, "userPrincipalName": u.userPrincipalName, "displayName": u.displayName,
                                "businessPhones": u.businessPhones, "mfaRegistered": u.mfaRegistered, "mfaRequired": u.mfaRequired,
                                "accountEnabled": u.accountEnabled, "locked": u.locked, "passwordExpired": u.passwordExpired,
                                "otherMails": u.otherMails, "password": u.password]
        o["givenName"] = u.givenName
        o["surname"] = u.surname
        o["mail"] = u.mail
        o["jobTitle"] = u.jobTitle
        o["officeLocation"] = u.officeLocation
        o["mobilePhone"] = u.mobilePhone
        o["preferredLanguage"] = u.preferredLanguage
        return o
    }

    /// Fields the control API shows but never accepts back.
    static func userView(_ u: DirectoryUser) -> [String: Any] {
        var o = user(u)
        o["password"] = nil
        if let revoked = u.tokensValidFrom { o["tokensValidFrom"] = IdentityErrorDates.iso(revoked) }
        return o
    }

    static func app(_ a: Application) -> [String: Any] {
        var o: [String: Any] = ["clientId": a.clientID, "displayName": a.displayName, "publicClient": a.isPublicClient,
                                "secrets": a.secrets.map(\.value), "redirectUris": a.redirectURIs,
                                "requiredResourceAccess": a.requiredResourceAccess.map { ["resource": $0.resource, "scopes": $0.scopes, "roles": $0.roles] },
                                "identifierUris": a.identifierURIs, "exposedScopes": a.exposedScopes, "appRoles": a.appRoles]
        o["tenant"] = a.tenantID
        o["accessTokenAcceptedVersion"] = a.accessTokenAcceptedVersion
        o["familyId"] = a.familyID
        return o
    }

    static func appView(_ a: Application) -> [String: Any] {
        var o = app(a)
        o["secrets"] = a.secrets.map { _ in "********" }
        return o
    }

    static func consent(_ c: ConsentGrant) -> [String: Any] {
        var o: [String: Any] = ["clientId": c.clientID, "resource": c.resourceAppID, "tenant": c.tenantID, "scopes": c.scopes]
        o["user"] = c.userID
        return o
    }

    static func data(_ object: Any) -> [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Array(data)
    }
}

/// The scenario schema's directory definitions, compiled alone to check control API bodies.
enum ControlSchemas {
    static let user = compile("user")
    static let app = compile("app")
    static let consent = compile("consent")

    private static func compile(_ definition: String) -> JSONSchema {
        guard let root = try? JSONSerialization.jsonObject(with: Data(ScenarioSchema.text.utf8)) as? [String: Any],
              let defs = root["$defs"] else { preconditionFailure("the embedded scenario schema has no $defs") }
        let document: [String: Any] = ["$defs": defs, "$ref": "#/$defs/\(definition)"]
        do { return try JSONSchema(json: DirectoryJSON.data(document), file: "scenario.schema.json#/$defs/\(definition)") }
        catch { preconditionFailure("the \(definition) schema does not compile: \(error)") }
    }
}
