import Foundation
import IdentityPlatform

/// A directory user as Graph's `microsoft.graph.user` JSON.
enum GraphUserView {
    /// The properties `GET /users/{id}` returns without `$select`, in Graph's order.
    static let defaultProperties = [
        "businessPhones", "displayName", "givenName", "jobTitle", "mail", "mobilePhone", "officeLocation",
        "preferredLanguage", "surname", "userPrincipalName", "id",
    ]

    /// Every property `$select` may name.
    static let selectableProperties = defaultProperties + [
        "accountEnabled", "otherMails", "userType", "mailNickname", "department", "companyName", "city", "country",
        "usageLocation", "employeeId", "proxyAddresses", "imAddresses", "identities", "mailboxSettings",
    ]

    /// Personal (MSA) accounts appear in Graph with their 16-hex-digit CID as `id`, which the consumers
    /// tenant's object ids (`00000000-0000-0000-<cid>`) end with.
    static func graphID(of user: DirectoryUser, tenant: Tenant?) -> String {
        guard tenant?.kind == .consumers, user.id.hasPrefix("00000000-0000-0000-") else { return user.id }
        return String(user.id.dropFirst(19)).replacingOccurrences(of: "-", with: "")
    }

    static func value(of property: String, for user: DirectoryUser, tenant: Tenant?, content: GraphUserContent?) -> GraphJSON {
        let personal = tenant?.kind == .consumers
        switch property {
        case "businessPhones": return .strings(user.businessPhones)
        case "displayName": return .string(user.displayName)
        case "givenName": return .string(user.givenName)
        case "jobTitle": return .string(user.jobTitle)
        case "mail": return .string(user.mail)
        case "mobilePhone": return .string(user.mobilePhone)
        case "officeLocation": return .string(user.officeLocation)
        case "preferredLanguage": return .string(user.preferredLanguage)
        case "surname": return .string(user.surname)
        case "userPrincipalName": return .string(user.userPrincipalName)
        case "id": return .string(graphID(of: user, tenant: tenant))
        case "accountEnabled": return .bool(user.accountEnabled)
        case "otherMails": return .strings(user.otherMails)
        case "userType": return personal ? .null : .string("Member")
        case "mailNickname": return .string(String(user.userPrincipalName.split(separator: "@").first ?? ""))
        case "proxyAddresses": return .strings(user.mail.map { ["SMTP:\($0)"] } ?? [])
        case "imAddresses": return .strings(user.mail.map { [$0] } ?? [])
        case "mailboxSettings": return .object(MailboxSettingsView.members(for: user, content: content))
        case "identities":
            return .array([.object([
                .init("signInType", .string("userPrincipalName")),
                .init("issuer", .string(tenant?.primaryDomain ?? "")),
                .init("issuerAssignedId", .string(user.userPrincipalName)),
            ])])
        default: return .null
        }
    }

    /// The user's members for `properties` (no `@odata.context`).
    static func members(_ user: DirectoryUser, tenant: Tenant?, content: GraphUserContent?, properties: [String]) -> [GraphJSON.Member] {
        properties.map { GraphJSON.Member($0, value(of: $0, for: user, tenant: tenant, content: content)) }
    }

    /// `users(displayName,mail)` or `users`: the entity-set part of `@odata.context`.
    static func entitySet(selected: [String]?) -> String {
        guard let selected else { return "users" }
        return "users(\(selected.joined(separator: ",")))"
    }
}
