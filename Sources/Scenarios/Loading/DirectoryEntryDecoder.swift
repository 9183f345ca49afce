import EntraCrypto
import FoundationGaps
package import IdentityPlatform
package import LocatedJSON

/// Users, apps, consents and tenants written in JSON (scenario files and the control API share the shape).
package struct DirectoryEntryDecoder {
    package var reader: JSONReader
    /// What names in entries resolve against: the base directory plus entries decoded so far.
    private(set) var known: Directory

    package init(reader: JSONReader, base: Directory) {
        self.reader = reader
        self.known = base
    }

    mutating func additions(_ value: JSONValue, path: String) -> DirectoryAdditions {
        var result = DirectoryAdditions()
        for (i, v) in (value["tenants"]?.array ?? []).enumerated() {
            if let tenant = tenant(v, path: JSONReader.pointer(JSONReader.pointer(path, "tenants"), i)) { result.tenants.append(tenant) }
        }
        for (i, v) in (value["users"]?.array ?? []).enumerated() {
            if let user = user(v, path: JSONReader.pointer(JSONReader.pointer(path, "users"), i)) { result.users.append(user) }
        }
        for (i, v) in (value["apps"]?.array ?? []).enumerated() {
            if let app = application(v, path: JSONReader.pointer(JSONReader.pointer(path, "apps"), i)) { result.applications.append(app) }
        }
        for (i, v) in (value["consents"]?.array ?? []).enumerated() {
            if let grant = consent(v, path: JSONReader.pointer(JSONReader.pointer(path, "consents"), i)) { result.consents.append(grant) }
        }
        return result
    }

    mutating func tenant(_ v: JSONValue, path: String) -> Tenant? {
        guard let id = v["id"]?.string else { return nil }
        let domains = reader.strings(v, "domains")
        let kind = v["kind"]?.string.flatMap(Tenant.Kind.init(rawValue:)) ?? .organization
        let tenant = Tenant(id: id, displayName: v["displayName"]?.string ?? domains.first ?? id, domains: domains, kind: kind)
        known.tenants.removeAll { $0.id == tenant.id }
        known.tenants.append(tenant)
        return tenant
    }

    package mutating func user(_ v: JSONValue, path: String) -> DirectoryUser? {
        guard let upn = v["userPrincipalName"]?.string else { return nil }
        guard let tenantID = resolveTenant(v, path: path) else { return nil }
        let id = v["id"]?.string ?? known.user(signInName: upn)?.id ?? Self.stableGUID(for: "user:" + upn.lowercased())
        let local = upn.split(separator: "@").first.map(String.init) ?? upn
        var user = DirectoryUser(
            id: id, tenantID: tenantID, userPrincipalName: upn, displayName: v["displayName"]?.string ?? local,
            givenName: v["givenName"]?.string, surname: v["surname"]?.string, mail: v["mail"]?.string ?? upn,
            jobTitle: v["jobTitle"]?.string, officeLocation: v["officeLocation"]?.string, mobilePhone: v["mobilePhone"]?.string,
            businessPhones: reader.strings(v, "businessPhones"), preferredLanguage: v["preferredLanguage"]?.string,
            password: v["password"]?.string ?? Directory.demoPassword, mfaRegistered: v["mfaRegistered"]?.bool ?? false,
            mfaRequired: v["mfaRequired"]?.bool ?? false, accountEnabled: v["accountEnabled"]?.bool ?? true,
            locked: v["locked"]?.bool ?? false, passwordExpired: v["passwordExpired"]?.bool ?? false,
            otherMails: reader.strings(v, "otherMails")
        )
        // Custom attributes and directory extensions (a sign-up's values, a migration flag), kept as text as
        // the directory keeps them: a user written back (a PATCH) keeps them.
        if let members = v["attributes"]?.members, !members.isEmpty {
            for member in members {
                if let problem = SignUpAttribute.problem(name: member.key, value: member.value.scalarText ?? "") {
                    reader.report(problem, atKeyOf: member, path: path + "/attributes")
                }
            }
            user.attributes = Dictionary(members.compactMap { member in member.value.scalarText.map { (member.key, $0) } },
                                         uniquingKeysWith: { _, last in last })
        }
        known.users.removeAll { $0.id == user.id }
        known.users.append(user)
        return user
    }

    package mutating func application(_ v: JSONValue, path: String) -> Application? {
        guard let clientID = v["clientId"]?.string else { return nil }
        var tenantID: String?
        if v["tenant"] != nil {
            guard let resolved = resolveTenant(v, path: path) else { return nil }
            tenantID = resolved
        }
        let access = (v["requiredResourceAccess"]?.array ?? []).compactMap { entry -> Application.RequiredResourceAccess? in
            guard let resource = entry["resource"]?.string else { return nil }
            return .init(resource: resource, scopes: reader.strings(entry, "scopes"), roles: reader.strings(entry, "roles"))
        }
        for member in ["redirectUris", "spaRedirectUris"] {
            for (index, uri) in (v[member]?.array ?? []).enumerated() {
                guard let text = uri.string, let problem = ClientResolver.redirectURIProblem(text) else { continue }
                reader.report(problem, at: uri, path: JSONReader.pointer(JSONReader.pointer(path, member), String(index)))
                return nil
            }
        }
        var app = Application(
            clientID: clientID, displayName: v["displayName"]?.string ?? clientID, tenantID: tenantID,
            isPublicClient: v["publicClient"]?.bool ?? true,
            secrets: reader.strings(v, "secrets").map { Application.Secret(value: $0) },
            redirectURIs: reader.strings(v, "redirectUris"), requiredResourceAccess: access,
            identifierURIs: reader.strings(v, "identifierUris"), exposedScopes: reader.strings(v, "exposedScopes"),
            appRoles: reader.strings(v, "appRoles"), accessTokenAcceptedVersion: reader.int(v, "accessTokenAcceptedVersion"),
            familyID: v["familyId"]?.string, spaRedirectURIs: reader.strings(v, "spaRedirectUris")
        )
        app.groupMembershipClaims = v["groupMembershipClaims"]?.string.flatMap(GroupMembershipClaims.init(rawValue:))
        app.nativeAuthenticationApisEnabled = v["nativeAuthenticationApisEnabled"]?.string == "all"
        app.adminConsentScopes = reader.strings(v, "adminConsentScopes")
        guard let ownCertificates = certificates(v["certificates"], path: JSONReader.pointer(path, "certificates")) else { return nil }
        app.certificates = ownCertificates
        var federated: [FederatedCredential] = []
        for (index, entry) in (v["federatedCredentials"]?.array ?? []).enumerated() {
            let entryPath = JSONReader.pointer(JSONReader.pointer(path, "federatedCredentials"), String(index))
            guard let issuer = entry["issuer"]?.string, let subject = entry["subject"]?.string,
                  let keys = certificates(entry["certificates"], path: JSONReader.pointer(entryPath, "certificates")) else { return nil }
            let audiences = reader.strings(entry, "audiences")
            federated.append(FederatedCredential(issuer: issuer, subject: subject, audiences: audiences.isEmpty ? [FederatedCredential.defaultAudience] : audiences,
                                                 certificates: keys))
        }
        app.federatedCredentials = federated
        known.applications.removeAll { $0.clientID.caseInsensitiveCompare(app.clientID) == .orderedSame }
        known.applications.append(app)
        return app
    }

    /// PEM certificates, each one that does not parse reported at its place; nil when any was reported.
    private mutating func certificates(_ value: JSONValue?, path: String) -> [String]? {
        var pems: [String] = []
        for (index, item) in (value?.array ?? []).enumerated() {
            guard let text = item.string else { continue }
            do {
                _ = try X509Certificate(pem: text)
                pems.append(text)
            } catch {
                reader.report("not a PEM X.509 certificate (\(error)); expected -----BEGIN CERTIFICATE-----", at: item, path: JSONReader.pointer(path, String(index)))
                return nil
            }
        }
        return pems
    }

    package mutating func consent(_ v: JSONValue, path: String) -> ConsentGrant? {
        guard let clientID = v["clientId"]?.string else { return nil }
        let resourceName = v["resource"]?.string ?? Resource.graphAppID
        guard let resource = known.resource(named: resourceName) else {
            reader.report("unknown resource \"\(resourceName)\" (Microsoft Graph, or an app with identifierUris or that clientId)", at: v["resource"] ?? v, path: JSONReader.pointer(path, "resource"))
            return nil
        }
        var userID: String?
        var tenantID: String?
        if let userName = v["user"]?.string {
            guard let user = known.user(signInName: userName) ?? known.user(id: userName) else {
                reader.report("unknown user \"\(userName)\" (a UPN or object id of the directory or of this file's users)", at: v["user"]!, path: JSONReader.pointer(path, "user"))
                return nil
            }
            userID = user.id
            tenantID = user.tenantID
        }
        if v["tenant"] != nil || tenantID == nil {
            guard let resolved = resolveTenant(v, path: path) else { return nil }
            tenantID = resolved
        }
        return ConsentGrant(clientID: clientID, resourceAppID: resource.appID, userID: userID, tenantID: tenantID!, scopes: reader.strings(v, "scopes"))
    }

    /// The `tenant` member as a tenant id; the first organisation tenant when absent.
    private mutating func resolveTenant(_ v: JSONValue, path: String) -> String? {
        if let name = v["tenant"]?.string {
            guard let tenant = known.tenant(matching: name) else {
                let names = known.tenants.flatMap { [$0.id] + $0.domains }.joined(separator: ", ")
                reader.report("unknown tenant \"\(name)\" (known: \(names))", at: v["tenant"]!, path: JSONReader.pointer(path, "tenant"))
                return nil
            }
            return tenant.id
        }
        guard let first = known.tenants.first(where: { $0.kind == .organization }) ?? known.tenants.first else {
            reader.report("the directory has no tenant: add one under \"tenants\"", at: v, path: path)
            return nil
        }
        return first.id
    }

    /// A GUID derived from a name, so the same file always yields the same object ids.
    static func stableGUID(for name: String) -> String {
        Hex.guid(Digest.sha256(name.utf8))
    }
}
