import FoundationGaps
import LocatedJSON
import IdentityPlatform

/// A directory user as Graph's `microsoft.graph.user` JSON.
enum GraphUserView {
    /// The properties `GET /users/{id}` returns without `$select`, in Graph's order.
    static let defaultProperties = [
        "businessPhones", "displayName", "givenName", "jobTitle", "mail", "mobilePhone", "officeLocation",
        "preferredLanguage", "surname", "userPrincipalName", "id",
    ]

    /// Properties with values drawn from the directory (beyond the default set).
    static let modelledProperties = [
        "accountEnabled", "otherMails", "userType", "mailNickname", "proxyAddresses", "imAddresses", "identities",
        "mailboxSettings", "signInSessionsValidFromDateTime",
    ]

    /// The rest of Graph v1.0's user properties: selectable so that apps asking for them work, answered with
    /// an empty collection or null as for a user who never had them set.
    static let unsetCollections: Set<String> = [
        "assignedLicenses", "assignedPlans", "interests", "licenseAssignmentStates", "onPremisesProvisioningErrors",
        "pastProjects", "provisionedPlans", "responsibilities", "schools", "skills",
    ]
    static let unsetValues: Set<String> = [
        "aboutMe", "ageGroup", "birthday", "city", "companyName", "consentProvidedForMinor", "country", "createdDateTime",
        "creationType", "deletedDateTime", "department", "employeeHireDate", "employeeId", "employeeLeaveDateTime",
        "employeeOrgData", "employeeType", "externalUserState", "externalUserStateChangeDateTime", "faxNumber", "hireDate",
        "isResourceAccount", "lastPasswordChangeDateTime", "legalAgeGroupClassification", "mySite",
        "onPremisesDistinguishedName", "onPremisesDomainName", "onPremisesExtensionAttributes", "onPremisesImmutableId",
        "onPremisesLastSyncDateTime", "onPremisesSamAccountName", "onPremisesSecurityIdentifier", "onPremisesSyncEnabled",
        "onPremisesUserPrincipalName", "passwordPolicies", "passwordProfile", "postalCode", "preferredDataLocation",
        "preferredName", "securityIdentifier", "showInAddressList", "state", "streetAddress", "usageLocation",
    ]

    /// Every property `$select` may name.
    static let selectableProperties = defaultProperties + modelledProperties + unsetCollections.sorted() + unsetValues.sorted()

    /// What External ID's sign-up collects beyond the default set: address properties, and the tenant's custom
    /// attributes, which `$select` names in full (`extension_{app id without dashes}_{name}`) as on Graph.
    static let signUpProperties = SignUpAttribute.addressProperties

    static func selectableProperties(in tenant: Tenant?) -> [String] {
        guard let tenant, tenant.kind == .external else { return selectableProperties }
        return selectableProperties + tenant.externalUserFlow.attributes.map(\.name).filter { $0.hasPrefix("extension_") } + tenant.migrationFlags
    }

    /// A custom attribute in its own JSON type, as Graph returns extension properties (`42`, `true`).
    static func attributeValue(_ name: String, of user: DirectoryUser, tenant: Tenant?) -> JSONValue {
        guard let text = user.attributes?[name] else { return .null }
        let type = tenant.flatMap { tenant -> SignUpAttribute.ValueType? in
            guard tenant.kind == .external else { return nil }
            return tenant.externalUserFlow.attributes.first { $0.name == name }?.type ?? (tenant.migrationFlags.contains(name) ? .boolean : nil)
        }
        switch type {
        case .int?: return Int(text).map(JSONValue.int) ?? .string(text)
        case .boolean?: return .bool(text.lowercased() == "true")
        case .string?, nil: return .string(text)
        }
    }

    /// Personal (MSA) accounts appear in Graph with their 16-hex-digit CID as `id`, which the consumers
    /// tenant's object ids (`00000000-0000-0000-<cid>`) end with.
    static func graphID(of user: DirectoryUser, tenant: Tenant?) -> String {
        guard tenant?.kind == .consumers, user.id.hasPrefix("00000000-0000-0000-") else { return user.id }
        return String(user.id.dropFirst(19)).replacingOccurrences(of: "-", with: "")
    }

    static func value(of property: String, for user: DirectoryUser, tenant: Tenant?, content: GraphUserContent?) -> JSONValue {
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
        case "signInSessionsValidFromDateTime":
            return .string(user.tokensValidFrom.map { CivilTime($0).isoSeconds + "Z" })
        case let name where unsetCollections.contains(name): return .array([])
        case let name where signUpProperties.contains(name) || name.hasPrefix("extension_"): return attributeValue(name, of: user, tenant: tenant)
        case "identities":
            return .array([.object([
                ("signInType", .string("userPrincipalName")),
                ("issuer", .string(tenant?.primaryDomain ?? "")),
                ("issuerAssignedId", .string(user.userPrincipalName)),
            ])])
        default: return .null
        }
    }

    /// The user's members for `properties` (no `@odata.context`).
    static func members(_ user: DirectoryUser, tenant: Tenant?, content: GraphUserContent?, properties: [String]) -> [(String, JSONValue)] {
        properties.map { ($0, value(of: $0, for: user, tenant: tenant, content: content)) }
    }

    /// `users(displayName,mail)` or `users`: the entity-set part of `@odata.context`.
    static func entitySet(selected: [String]?) -> String {
        guard let selected else { return "users" }
        return "users(\(selected.joined(separator: ",")))"
    }
}
