import LinearRegex
import EntraCrypto
import EntraHTTP
import ExchangeKernel
import FoundationGaps
package import LocatedJSON

/// What a `--config` file yields: the directory and options of the identity platform, plus the raw
/// (located) sections other modules own.
package struct IdentityConfiguration: Sendable {
    package var directory: Directory
    package var options: IdentityOptions
    /// `graph`, `b2c`: validated against their (module-owned) subschemas, decoded by their modules.
    package var sections: [String: JSONValue]
    package var file: String
    /// Whether the embedded defaults (the demo tenants, and each module's own demo data) are merged in.
    package var includeDefaults: Bool

    package init(directory: Directory, options: IdentityOptions, sections: [String: JSONValue] = [:], file: String, includeDefaults: Bool = true) {
        self.directory = directory
        self.options = options
        self.sections = sections
        self.file = file
        self.includeDefaults = includeDefaults
    }

    /// What FakeEntra serves with no `--config`.
    package static let embeddedDefault = IdentityConfiguration(directory: .embeddedDefault, options: IdentityOptions(), file: "")
}

package enum ConfigurationLoader {
    /// Reads, validates (schema, then cross-references) and builds. Every problem names the file,
    /// line and column and what was expected; all are reported at once.
    package static func load(file path: String, options: IdentityOptions = .init()) throws(JSONProblems) -> IdentityConfiguration {
        try load(bytes: LocatedJSON.readFile(path), file: path, options: options)
    }

    package static func load(bytes: [UInt8], file: String, options: IdentityOptions = .init()) throws(JSONProblems) -> IdentityConfiguration {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let tree = try LocatedJSON.validate(bytes, file: file, schema: ConfigurationSchema.schema)
        var decodable = bytes
        if let users = ConfigurationFile.UserEntry.entries(validated: tree), case .object(let members) = tree.kind {
            // JSONDecoder then reads the rest only: the same members, so its coding paths (and the
            // located problems made of them) are those of the whole file.
            decoder.userInfo[ConfigurationFile.prebuiltUsersKey] = users
            var writer = JSONWriter()
            JSONValue(.object(members.filter { $0.key != "users" }), at: tree.location).write(to: &writer)
            decodable = writer.bytes
        }
        let decoded = try LocatedJSON.decodeDocument(ConfigurationFile.self, from: decodable, tree: tree, file: file, decoder: decoder)
        var builder = DirectoryBuilder(decoded: decoded, baseDirectory: (file).deletingLastPathComponent)
        let directory = builder.build()
        guard builder.problems.isEmpty else { throw JSONProblems(builder.problems.sorted { $0.location < $1.location }) }
        var sections: [String: JSONValue] = [:]
        for name in ["graph", "b2c", "bindings"] { sections[name] = decoded.tree[name] }
        return IdentityConfiguration(directory: directory, options: apply(decoded.value.options, to: options), sections: sections, file: file, includeDefaults: decoded.value.includeDefaults ?? true)
    }

    static func apply(_ entry: ConfigurationFile.Options?, to base: IdentityOptions) -> IdentityOptions {
        var options = base
        guard let entry else { return options }
        if let v = entry.strict { options.strict = v }
        if let v = entry.autoLogin { options.autoLogin = v }
        if let v = entry.accessTokenLifetime { options.accessTokenLifetime = TimeInterval(v) }
        if let v = entry.accessTokenExtension { options.accessTokenExtension = TimeInterval(v) }
        if let v = entry.idTokenLifetime { options.idTokenLifetime = TimeInterval(v) }
        if let v = entry.refreshTokenInactivity { options.refreshTokenInactivity = TimeInterval(v) }
        if let v = entry.authorizationCodeLifetime { options.authorizationCodeLifetime = TimeInterval(v) }
        if let v = entry.deviceCodeLifetime { options.deviceCodeLifetime = TimeInterval(v) }
        if let v = entry.deviceCodePollingInterval { options.deviceCodePollingInterval = v }
        if let v = entry.interactiveFlowLifetime { options.interactiveFlowLifetime = TimeInterval(v) }
        if let v = entry.managedIdentityHeader { options.managedIdentityHeader = v }
        if let v = entry.cloudShellUser { options.cloudShellUser = v }
        return options
    }
}

/// Turns the decoded file into a `Directory`, checking what a schema cannot: references between
/// entries, uniqueness, certificates that parse.
struct DirectoryBuilder {
    let decoded: DecodedJSON<ConfigurationFile>
    let baseDirectory: String
    private(set) var problems: [JSONProblem] = []
    private var directory = Directory()

    init(decoded: DecodedJSON<ConfigurationFile>, baseDirectory: String) {
        self.decoded = decoded
        self.baseDirectory = baseDirectory
    }

    var file: ConfigurationFile { decoded.value }

    mutating func report(_ pointer: String, _ message: String) {
        problems.append(decoded.problem(at: pointer, message))
    }

    mutating func build() -> Directory {
        directory = file.includeDefaults ?? true ? .embeddedDefault : Directory()
        addTenants()
        addUsers()
        addApps()
        checkResourceAccess()
        addConsents()
        addManagedIdentities()
        addGroups()
        if let name = file.options?.cloudShellUser {
            let user = directory.user(named: name)
            if user.flatMap({ directory.tenant(id: $0.tenantID) })?.kind != .organization {
                report("/options/cloudShellUser", "no user \"\(name)\" of an organization; expected the userPrincipalName or object id of an organization's user in \"users\" or a default user")
            }
        }
        return directory
    }

    /// Groups, then their members (users by UPN or object id, groups by id or display name: nesting) and
    /// owners (users by UPN or object id).
    mutating func addGroups() {
        guard let entries = file.groups else { return }
        var added: [(Int, DirectoryGroup, [String], [String])] = []
        for (i, entry) in uniqueEntries(entries, section: "groups", member: "displayName", what: "group name", key: \.displayName) {
            guard let tenant = tenant(named: entry.tenant ?? directory.tenants.first(where: { $0.kind == .organization })?.id ?? "", at: "/groups/\(i)/tenant") else { continue }
            let id = entry.id ?? TokenIdentifiers.guid(from: "fakeentra-group:\(tenant.id):\(entry.displayName.lowercased())")
            directory.groups.removeAll { $0.id == id.lowercased() || ($0.tenantID == tenant.id && $0.displayName.caseInsensitiveCompare(entry.displayName) == .orderedSame) }
            let group = DirectoryGroup(id: id, tenantID: tenant.id, displayName: entry.displayName, description: entry.description, mailNickname: entry.mailNickname,
                                       securityEnabled: entry.securityEnabled ?? true, mailEnabled: entry.mailEnabled ?? false, groupTypes: entry.groupTypes ?? [])
            directory.groups.append(group)
            added.append((i, group, entry.members ?? [], entry.owners ?? []))
        }
        for (i, group, members, owners) in added {
            guard let index = directory.groups.firstIndex(where: { $0.id == group.id }) else { continue }
            for (k, name) in members.enumerated() {
                if let user = directory.user(id: name) ?? directory.user(signInName: name, tenantID: group.tenantID) {
                    directory.groups[index].members.append(user.id)
                } else if let nested = directory.groups.first(where: { $0.tenantID == group.tenantID && ($0.id == name.lowercased() || $0.displayName.caseInsensitiveCompare(name) == .orderedSame) }) {
                    directory.groups[index].members.append(nested.id)
                } else {
                    report("/groups/\(i)/members/\(k)", "no user or group \"\(name)\" in the group's tenant; expected a user's UPN or object id, or a group's id or display name")
                }
            }
            for (k, name) in owners.enumerated() {
                if let user = directory.user(id: name) ?? directory.user(signInName: name, tenantID: group.tenantID), user.tenantID == group.tenantID {
                    if !directory.groups[index].owners.contains(user.id) { directory.groups[index].owners.append(user.id) }
                } else {
                    report("/groups/\(i)/owners/\(k)", "no user \"\(name)\" in the group's tenant; expected a user's UPN or object id")
                }
            }
        }
    }

    /// Configured identities replace the demo ones; a system-assigned identity is the one the endpoints
    /// answer without a selector, so there is at most one.
    mutating func addManagedIdentities() {
        guard let entries = file.managedIdentities else { return }
        directory.managedIdentities = []
        for (i, entry) in uniqueEntries(entries, section: "managedIdentities", member: "clientId", what: "client id", key: \.clientId) {
            guard let tenant = tenant(named: entry.tenant ?? directory.tenants.first(where: { $0.kind == .organization })?.id ?? "", at: "/managedIdentities/\(i)/tenant") else { continue }
            let kind = entry.kind ?? .user
            if kind == .system, directory.managedIdentities.contains(where: { $0.kind == .system }) {
                report("/managedIdentities/\(i)/kind", "a second system-assigned identity; expected one at most (the resource's own)")
                continue
            }
            let subscription = tenant.azureSubscriptions.first?.subscriptionId ?? "00000000-0000-0000-0000-000000000000"
            let provider = kind == .system ? "Microsoft.Compute/virtualMachines" : "Microsoft.ManagedIdentity/userAssignedIdentities"
            directory.managedIdentities.append(ManagedIdentity(
                name: entry.name, clientID: entry.clientId,
                objectID: entry.objectId ?? TokenIdentifiers.guid(from: "fakeentra-mi-object:\(entry.clientId.lowercased())"), tenantID: tenant.id, kind: kind,
                resourceID: entry.resourceId ?? "/subscriptions/\(subscription)/resourcegroups/demo/providers/\(provider)/\(entry.name)"
            ))
        }
    }

    /// Entries whose key (case ignored) repeats an earlier one are reported at `member` and skipped.
    mutating func uniqueEntries<Entry>(_ entries: [Entry]?, section: String, member: String, what: String, key: (Entry) -> String) -> [(Int, Entry)] {
        var seen: [String: Int] = [:]
        var unique: [(Int, Entry)] = []
        for (i, entry) in (entries ?? []).enumerated() {
            let value = key(entry)
            let folded = value.lowercased()
            if let first = seen[folded] {
                report("/\(section)/\(i)/\(member)", "\(what) \"\(value)\" is already used by /\(section)/\(first); expected a unique \(what)")
                continue
            }
            seen[folded] = i
            unique.append((i, entry))
        }
        return unique
    }

    mutating func addTenants() {
        for (i, entry) in uniqueEntries(file.tenants, section: "tenants", member: "id", what: "tenant id", key: \.id) {
            let id = entry.id.lowercased()
            directory.tenants.removeAll { $0.id == id }
            for (k, domain) in entry.domains.enumerated() {
                if let owner = directory.tenants.first(where: { $0.domains.contains(domain.lowercased()) }) {
                    report("/tenants/\(i)/domains/\(k)", "domain \"\(domain)\" already belongs to tenant \(owner.id) (\(owner.displayName)); expected a domain no other tenant has")
                }
            }
            let kind = entry.kind ?? .organization
            if entry.userFlow != nil, kind != .external {
                report("/tenants/\(i)/userFlow", "a user flow on a tenant of kind \"\(kind.rawValue)\"; expected \"kind\": \"external\" (only External ID tenants have user flows)")
            }
            let userFlow = entry.userFlow.map { flow in
                ExternalUserFlow(emailMethod: flow.emailMethod, attributes: (flow.attributes ?? []).map {
                    SignUpAttribute(name: $0.name, label: $0.label, type: $0.type ?? .string, required: $0.required ?? false, regex: $0.regex)
                })
            }
            for (k, attribute) in (userFlow?.attributes ?? []).enumerated() {
                if userFlow?.attributes.prefix(k).contains(where: { $0.name == attribute.name }) == true {
                    report("/tenants/\(i)/userFlow/attributes/\(k)/name", "attribute \"\(attribute.name)\" is collected twice; expected each attribute once")
                }
                guard let regex = attribute.regex else { continue }
                do throws(RegexSyntaxError) { _ = try SignUpAttribute.compiled(regex) } catch {
                    report("/tenants/\(i)/userFlow/attributes/\(k)/regex", error.message(pattern: regex))
                }
            }
            var tenant = Tenant(id: id, displayName: entry.displayName ?? entry.domains[0], domains: entry.domains, kind: kind,
                                subscriptions: entry.subscriptions, userFlow: userFlow)
            tenant.bannedPasswords = entry.bannedPasswords
            tenant.customAuthenticationExtensions = extensions(entry.customAuthenticationExtensions, tenant: tenant, at: "/tenants/\(i)/customAuthenticationExtensions")
            directory.tenants.append(tenant)
        }
    }

    /// A tenant's extensions, checked as Graph's validateAuthenticationConfiguration and the callout check
    /// them (custom-extension-troubleshoot: 1003014, 1003015, 1003020); nil when the file names none.
    mutating func extensions(_ entries: [ConfigurationFile.ExtensionEntry]?, tenant: Tenant, at pointer: String) -> [CustomAuthenticationExtension]? {
        guard let entries, !entries.isEmpty else { return nil }
        return entries.enumerated().map { k, entry in
            let at = "\(pointer)/\(k)"
            let endpoint = ExtensionEndpoint(url: entry.targetUrl)
            if endpoint == nil || endpoint?.secure == false && endpoint?.isLoopback == false {
                report("\(at)/targetUrl", "targetUrl \"\(entry.targetUrl)\" is not an https URL (1003020 CustomExtensionIncorrectTargetUrlFormat); expected https://host/path, or http://localhost:port/path for an endpoint on this machine")
            }
            let resource = entry.resourceId.split(separator: "/", omittingEmptySubsequences: false)
            if !entry.resourceId.lowercased().hasPrefix("api://") || resource.count != 4 || resource[3].isEmpty {
                report("\(at)/resourceId", "resourceId \"\(entry.resourceId)\" is not api://{fully qualified domain name}/{appid} (1003014 CustomExtensionIncorrectResourceIdFormat)")
            } else if let endpoint, resource[2].split(separator: ":").first.map(String.init)?.lowercased() != endpoint.host.lowercased() {
                report("\(at)/resourceId", "resourceId names \(resource[2]) but targetUrl's host is \(endpoint.host) (1003015 CustomExtensionDomainNameDoesNotMatch); expected the same fully qualified domain name")
            }
            if entry.event == .tokenIssuanceStart, entry.applications?.isEmpty ?? true {
                report("\(at)/applications", "a tokenIssuanceStart listener names no application; expected the client ids whose tokens get the claims (includeAllApplications must be false for it)")
            }
            if entry.event != .tokenIssuanceStart, tenant.kind != .external {
                report("\(at)/event", "\(entry.event.rawValue) on a tenant of kind \"\(tenant.kind.rawValue)\"; expected \"kind\": \"external\" (attribute collection and password migration are External ID's)")
            }
            var encryptionCertificate: String?
            if entry.event == .passwordSubmit {
                if let flag = entry.migrationPropertyId {
                    if !SignUpAttribute.isDirectoryExtension(flag) {
                        report("\(at)/migrationPropertyId", "migrationPropertyId \"\(flag)\" is not a directory extension; expected extension_{app id without dashes}_{name}, a Boolean user property")
                    }
                } else {
                    report("\(at)", "a passwordSubmit extension without migrationPropertyId; expected the Boolean user property (extension_{app id without dashes}_{name}) that marks users still to migrate")
                }
                if let text = entry.encryptionCertificate {
                    encryptionCertificate = certificate(text, at: "\(at)/encryptionCertificate") { parsed in
                        (try? parsed.publicKey) == nil
                            ? "the certificate's key is not RSA; expected an RSA certificate (the password context is encrypted with RSA-OAEP)" : nil
                    }
                } else {
                    report("\(at)", "a passwordSubmit extension without encryptionCertificate; expected the certificate (PEM, or a path to one) the password context is encrypted to")
                }
            } else {
                if entry.migrationPropertyId != nil { report("\(at)/migrationPropertyId", "migrationPropertyId on a \(entry.event.rawValue) extension; expected it only on passwordSubmit") }
                if entry.encryptionCertificate != nil { report("\(at)/encryptionCertificate", "encryptionCertificate on a \(entry.event.rawValue) extension; expected it only on passwordSubmit") }
            }
            if entry.event != .tokenIssuanceStart, entry.claimsMapping != nil {
                report("\(at)/claimsMapping", "claimsMapping on a \(entry.event.rawValue) extension; expected it only on tokenIssuanceStart")
            }
            let name = entry.displayName ?? "\(entry.event.rawValue) extension \(k + 1)"
            return CustomAuthenticationExtension(
                id: entry.id ?? TokenIdentifiers.guid(from: "extension|\(tenant.id)|\(k)|\(name)"),
                listenerID: entry.listenerId ?? TokenIdentifiers.guid(from: "listener|\(tenant.id)|\(k)|\(name)"),
                displayName: name, event: entry.event, targetURL: entry.targetUrl, resourceID: entry.resourceId,
                timeoutMilliseconds: entry.timeoutInMilliseconds ?? CustomAuthenticationExtension.defaultTimeoutMilliseconds,
                maximumRetries: entry.maximumRetries ?? 1, applications: entry.applications ?? [], claimsMapping: entry.claimsMapping,
                migrationPropertyID: entry.migrationPropertyId, encryptionCertificate: encryptionCertificate)
        }
    }

    /// A tenant by id or domain, or a problem at `pointer`.
    mutating func tenant(named name: String, at pointer: String) -> Tenant? {
        if let tenant = directory.tenant(matching: name) { return tenant }
        let known = directory.tenants.map { $0.primaryDomain }.joined(separator: ", ")
        report(pointer, "no tenant \"\(name)\"; expected the id or a domain of a tenant in \"tenants\"\(known.isEmpty ? "" : " or one of: \(known)")")
        return nil
    }

    /// Linear in the number of users: the users the file replaces are removed in one pass at the end, not
    /// one scan of the directory per user, which made a large file's load quadratic.
    mutating func addUsers() {
        var added: [DirectoryUser] = []
        defer { replaceUsers(with: added) }
        for (i, entry) in uniqueEntries(file.users, section: "users", member: "userPrincipalName", what: "user principal name", key: \.userPrincipalName) {
            let upn = entry.userPrincipalName.lowercased()
            let tenant: Tenant?
            if let name = entry.tenant {
                tenant = self.tenant(named: name, at: "/users/\(i)/tenant")
            } else {
                let domain = Self.domain(ofLowercasedUPN: upn)
                tenant = directory.tenants.first { $0.domains.contains(domain) }
                if tenant == nil { report("/users/\(i)/userPrincipalName", "no tenant owns the domain \"\(domain)\"; expected \"tenant\" naming the user's tenant, or a tenant with that domain") }
            }
            guard let tenant else { continue }
            let id = entry.id?.lowercased() ?? TokenIdentifiers.guid(from: "user|\(upn)")
            added.append(DirectoryUser(
                id: id, tenantID: tenant.id, userPrincipalName: entry.userPrincipalName, displayName: entry.displayName,
                givenName: entry.givenName, surname: entry.surname, mail: entry.mail, jobTitle: entry.jobTitle,
                officeLocation: entry.officeLocation, mobilePhone: entry.mobilePhone, businessPhones: entry.businessPhones ?? [],
                preferredLanguage: entry.preferredLanguage, password: entry.password ?? Directory.demoPassword,
                mfaRegistered: entry.mfaRegistered ?? false, mfaRequired: entry.mfaRequired ?? false,
                accountEnabled: entry.accountEnabled ?? true, locked: entry.locked ?? false,
                passwordExpired: entry.passwordExpired ?? false, otherMails: entry.otherMails ?? []
            ))
            if let attributes = entry.attributes, !attributes.isEmpty {
                for name in attributes.keys.sorted() {
                    if let problem = SignUpAttribute.problem(name: name, value: attributes[name]!.text) { report("/users/\(i)/attributes/\(name)", problem) }
                }
                added[added.count - 1].attributes = attributes.mapValues(\.text)
            }
        }
    }

    /// The last non-empty part after an `@`. Split on bytes when the name is ASCII (splitting on
    /// Characters, with grapheme breaking, cost more than the rest of a user's loading).
    static func domain(ofLowercasedUPN upn: String) -> String {
        if upn.isPlainASCII {
            let bytes = Array(upn.utf8)
            var end = bytes.count
            while end > 0, bytes[end - 1] == UInt8(ascii: "@") { end -= 1 }
            var start = end
            while start > 0, bytes[start - 1] != UInt8(ascii: "@") { start -= 1 }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        return String(upn.split(separator: "@").last ?? "")
    }

    /// Adds `users`, dropping directory users that share an id or UPN with one of them, and of
    /// file users sharing an id, all but the last (as adding them one by one did).
    private mutating func replaceUsers(with users: [DirectoryUser]) {
        guard !users.isEmpty else { return }
        var seenIDs = Set<String>()
        let kept = users.reversed().filter { seenIDs.insert($0.id).inserted }.reversed()
        let names = Set(kept.map { $0.userPrincipalName.lowercased() })
        directory.users.removeAll { seenIDs.contains($0.id) || names.contains($0.userPrincipalName.lowercased()) }
        directory.users.append(contentsOf: kept)
    }

    mutating func addApps() {
        for (i, entry) in uniqueEntries(file.apps, section: "apps", member: "clientId", what: "client id", key: \.clientId) {
            let home = entry.tenant.flatMap { tenant(named: $0, at: "/apps/\(i)/tenant") }
            var certificates: [String] = []
            for (k, text) in (entry.certificates ?? []).enumerated() {
                if let pem = certificate(text, at: "/apps/\(i)/certificates/\(k)") { certificates.append(pem) }
            }
            let secrets = (entry.secrets ?? []).map { Application.Secret(value: $0.value, expiresAt: $0.expiresAt) }
            let federated = (entry.federatedCredentials ?? []).enumerated().map { j, credential in
                FederatedCredential(issuer: credential.issuer, subject: credential.subject,
                                    audiences: credential.audiences ?? [FederatedCredential.defaultAudience],
                                    certificates: credential.certificates.enumerated().compactMap { k, text in
                                        certificate(text, at: "/apps/\(i)/federatedCredentials/\(j)/certificates/\(k)")
                                    })
            }
            for (member, uris) in [("redirectUris", entry.redirectUris), ("spaRedirectUris", entry.spaRedirectUris)] {
                for (k, uri) in (uris ?? []).enumerated() {
                    if let problem = ClientResolver.redirectURIProblem(uri) { report("/apps/\(i)/\(member)/\(k)", problem) }
                }
            }
            for (k, scope) in (entry.adminConsentScopes ?? []).enumerated() where !(entry.exposedScopes ?? []).contains(scope) {
                report("/apps/\(i)/adminConsentScopes/\(k)", "\"\(scope)\" is not in \"exposedScopes\"; expected one of the app's exposed scopes")
            }
            var app = Application(
                clientID: entry.clientId, displayName: entry.displayName ?? entry.clientId, tenantID: home?.id,
                isPublicClient: entry.publicClient ?? (secrets.isEmpty && certificates.isEmpty && federated.isEmpty),
                secrets: secrets, certificates: certificates, redirectURIs: entry.redirectUris ?? [],
                requiredResourceAccess: (entry.requiredResourceAccess ?? []).map { .init(resource: $0.resource, scopes: $0.scopes ?? [], roles: $0.roles ?? []) },
                identifierURIs: entry.identifierUris ?? [], exposedScopes: entry.exposedScopes ?? [], appRoles: entry.appRoles ?? [],
                accessTokenAcceptedVersion: entry.accessTokenAcceptedVersion, familyID: entry.familyId,
                spaRedirectURIs: entry.spaRedirectUris ?? []
            )
            app.adminConsentScopes = entry.adminConsentScopes ?? []
            app.groupMembershipClaims = entry.groupMembershipClaims
            app.federatedCredentials = federated
            app.nativeAuthenticationApisEnabled = entry.nativeAuthenticationApisEnabled == .all
            directory.applications.append(app)
        }
    }

    /// An inline PEM certificate, or one read from a path relative to the configuration file; `requiring`
    /// names what else the parsed certificate must have (the problem reported, nil when it has it).
    mutating func certificate(_ text: String, at pointer: String, requiring: (X509Certificate) -> String? = { _ in nil }) -> String? {
        var pem = text
        if !text.contains("-----BEGIN") {
            let path = text.hasPrefix("/") ? text : (baseDirectory.isEmpty ? text : baseDirectory + "/" + text)
            guard let data = FileManager.default.contents(atPath: path) else {
                report(pointer, "cannot read certificate file \"\(path)\"; expected a PEM certificate or a readable path to one")
                return nil
            }
            pem = String(decoding: data, as: UTF8.self)
        }
        do {
            if let problem = requiring(try X509Certificate(pem: pem)) {
                report(pointer, problem)
                return nil
            }
            return pem
        } catch {
            report(pointer, "not a PEM X.509 certificate (\(error)); expected -----BEGIN CERTIFICATE-----")
            return nil
        }
    }

    /// Permissions an app asks for must exist on their resource.
    mutating func checkResourceAccess() {
        for (i, entry) in (file.apps ?? []).enumerated() {
            for (k, access) in (entry.requiredResourceAccess ?? []).enumerated() {
                let pointer = "/apps/\(i)/requiredResourceAccess/\(k)"
                guard let resource = directory.resource(named: access.resource) else {
                    report(pointer + "/resource", "no resource \"\(access.resource)\"; expected https://graph.microsoft.com or the client id or identifier URI of an app in \"apps\"")
                    continue
                }
                checkPermissions(access.scopes ?? [], of: resource, at: pointer + "/scopes")
                for (m, role) in (access.roles ?? []).enumerated() where resource.applicationPermission(named: role) == nil && resource.appID != Resource.graphAppID {
                    report(pointer + "/roles/\(m)", "\"\(role)\" is not an app role of \(resource.displayName); expected one of: \(resource.applicationPermissions.joined(separator: ", "))")
                }
            }
        }
    }

    mutating func checkPermissions(_ scopes: [String], of resource: Resource, at pointer: String) {
        for (m, scope) in scopes.enumerated() where resource.delegatedPermission(named: scope) == nil {
            if resource.appID == Resource.graphAppID, ScopeRequest.isWellFormedPermissionName(scope) || ReservedScope(scope: scope) != nil { continue }
            report(pointer + "/\(m)", "\"\(scope)\" is not a delegated permission of \(resource.displayName); expected one of: \(resource.delegatedPermissions.map(\.name).joined(separator: ", "))")
        }
    }

    mutating func addConsents() {
        for (i, entry) in (file.consents ?? []).enumerated() {
            let pointer = "/consents/\(i)"
            guard let app = directory.application(clientID: entry.clientId) else {
                report(pointer + "/clientId", "no app with client id \"\(entry.clientId)\"; expected the clientId of an entry in \"apps\"")
                continue
            }
            let resourceName = entry.resource ?? Resource.microsoftGraph.identifierURI
            guard let resource = directory.resource(named: resourceName) else {
                report(pointer + "/resource", "no resource \"\(resourceName)\"; expected https://graph.microsoft.com or the client id or identifier URI of an app in \"apps\"")
                continue
            }
            checkPermissions(entry.scopes, of: resource, at: pointer + "/scopes")
            var userID: String?
            var tenantID: String?
            if let name = entry.user {
                guard let user = directory.user(signInName: name) else {
                    report(pointer + "/user", "no user \"\(name)\"; expected the userPrincipalName of a user in \"users\" or a default user")
                    continue
                }
                userID = user.id
                tenantID = user.tenantID
            } else if let name = entry.tenant {
                tenantID = tenant(named: name, at: pointer + "/tenant")?.id
            } else {
                tenantID = app.tenantID
                if tenantID == nil { report(pointer, "admin consent for a multi-tenant app needs \"tenant\"; expected \"user\" or \"tenant\"") }
            }
            guard let tenantID else { continue }
            directory.grantConsent(ConsentGrant(clientID: app.clientID, resourceAppID: resource.appID, userID: userID, tenantID: tenantID, scopes: entry.scopes))
        }
    }
}
