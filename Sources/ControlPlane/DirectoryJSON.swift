import Foundation
import IdentityPlatform
import LocatedJSON
import Scenarios

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
        o["groupMembershipClaims"] = a.groupMembershipClaims?.rawValue
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

    /// A control API body through the one `JSONWriter`, keys sorted so answers compare as text.
    static func data(_ object: Any) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        write(object, to: &writer)
        return writer.bytes
    }

    /// The values the control API's views hold: Swift strings, numbers, booleans, arrays and
    /// dictionaries, and what JSONSerialization hands back from a request body (NSNumber, NSNull).
    private static func write(_ value: Any, to writer: inout JSONWriter) {
        switch value {
        case let text as String: writer.string(text)
        case let flag as Bool where type(of: value) == Bool.self: writer.raw(flag ? "true" : "false")
        case let number as Int where type(of: value) == Int.self: writer.int(number)
        case let number as Double where type(of: value) == Double.self: writer.raw(Self.number(number))
        case let items as [Any]:
            writer.beginArray()
            for item in items { write(item, to: &writer) }
            writer.endArray()
        case let members as [String: Any]:
            writer.beginObject()
            for key in members.keys.sorted() {
                writer.key(key)
                write(members[key]!, to: &writer)
            }
            writer.endObject()
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" {
                writer.raw(number.boolValue ? "true" : "false")
            } else {
                writer.raw(Self.number(number.doubleValue))
            }
        default: writer.raw("null")
        }
    }

    /// Whole numbers without a fraction, as JSONSerialization wrote them.
    private static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int(value)) }
        return "\(value)"
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
