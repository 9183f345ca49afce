import EntraHTTP
import FoundationGaps
import ExchangeKernel
import IdentityPlatform
import Scenarios

extension ConsolePage {
    /// The world whose directory or clock a page shows: `?binding=` or the default world.
    var selectedWorld: ScenarioWorld? {
        console.engine.world(binding: request.query["binding"] ?? "default")
    }

    /// A `<select>` of worlds that reloads the page (a submit button does it without the script).
    func worldPicker(action: String, selected: String) -> HTML {
        guard console.engine.bindings.count > 0 else { return .empty }
        let options = console.worlds.map { world -> HTML in
            let label = world.id == "default" ? "default world" : "\(world.id): \(world.scenario?.name ?? "")"
            return "<option value=\"\(world.id)\"\(HTML(raw: world.id == selected ? " selected" : ""))>\(label)</option>"
        }
        return """
        <form method="get" action="\(action)" class="filters" id="worldPicker">
        <label for="binding">Show the world of<select id="binding" name="binding">\(options)</select></label>
        <button type="submit" class="small">Show</button>
        </form>
        """
    }

    /// Tenants, users, apps and consents of the default world or a binding's.
    func directory() -> HTTPResponse {
        guard let world = selectedWorld else {
            return frame(.directory, heading: "Directory", lede: "", "<p class=\"alert\" role=\"alert\">No binding \(request.query["binding"] ?? "").</p>", status: .notFound)
        }
        let directory = world.service.currentDirectory
        let tenantName = { (id: String) -> String in directory.tenant(id: id)?.primaryDomain ?? id }
        let tenants = directory.tenants.map { t -> HTML in
            "<tr data-tenant=\"\(t.id)\"><td>\(t.displayName)</td><td>\(Self.copyable(t.id))</td><td>\(t.kind.rawValue)</td><td>\(t.domains.joined(separator: ", "))</td></tr>"
        }
        let users = directory.users.map { u -> HTML in
            var flags: [String] = []
            if !u.accountEnabled { flags.append("disabled") }
            if u.locked { flags.append("locked") }
            if u.passwordExpired { flags.append("password expired") }
            if u.mfaRequired { flags.append("MFA required") }
            // What the person types on the sign-in page: a B2C or External ID local account signs in with its
            // email; its UPN (`<oid>@<tenant>`, as in a real tenant) stays in the row's data.
            let isLocalAccount = [.b2c, .external].contains(directory.tenant(id: u.tenantID)?.kind)
            let signInName = isLocalAccount ? (u.mail ?? u.userPrincipalName) : u.userPrincipalName
            return "<tr data-user=\"\(u.userPrincipalName)\"><td>\(Self.copyable(signInName))</td><td>\(u.displayName)</td><td>\(u.mail ?? u.otherMails.first ?? "")</td><td>\(tenantName(u.tenantID))</td><td><code>\(u.id)</code></td><td>\(flags.joined(separator: ", "))</td></tr>"
        }
        let apps = directory.applications.map { a -> HTML in
            let kind = a.isPublicClient ? "public" : "confidential"
            let exposes = (a.exposedScopes.map { "scope \($0)" } + a.appRoles.map { "role \($0)" }).joined(separator: ", ")
            return "<tr data-app=\"\(a.clientID)\"><td>\(a.displayName)</td><td>\(Self.copyable(a.clientID))</td><td>\(kind)</td><td>\(a.redirectURIs.joined(separator: " "))</td><td>\(exposes)</td></tr>"
        }
        let consents = directory.consents.map { c -> HTML in
            let app = directory.application(clientID: c.clientID)?.displayName ?? c.clientID
            let resource = c.resourceAppID == Resource.graphAppID ? "Microsoft Graph" : (directory.application(clientID: c.resourceAppID)?.displayName ?? c.resourceAppID)
            let who = c.userID.flatMap { directory.user(id: $0)?.userPrincipalName ?? $0 } ?? "everyone in \(tenantName(c.tenantID)) (admin consent)"
            return "<tr data-consent=\"\(c.clientID)\"><td>\(app)</td><td>\(resource)</td><td>\(who)</td><td>\(c.scopes.joined(separator: " "))</td></tr>"
        }
        let groups = directory.groups.map { g -> HTML in
            let members = g.members.map { id in directory.user(id: id)?.userPrincipalName ?? directory.group(id: id)?.displayName ?? id }
            let kind = g.groupTypes.contains("Unified") ? "Microsoft 365" : (g.securityEnabled ? "security" : "distribution")
            let owners = g.owners.map { id in directory.user(id: id)?.userPrincipalName ?? id }
            return "<tr data-group=\"\(g.id)\"><td>\(g.displayName)</td><td>\(Self.copyable(g.id))</td><td>\(kind)</td><td>\(members.joined(separator: ", "))</td><td>\(owners.joined(separator: ", "))</td></tr>"
        }
        let identities = directory.managedIdentities.map { m -> HTML in
            "<tr data-identity=\"\(m.clientID)\"><td>\(m.name)</td><td>\(Self.copyable(m.clientID))</td><td>\(m.kind == .system ? "system-assigned" : "user-assigned")</td><td><code>\(m.resourceID)</code></td></tr>"
        }
        let firstParty = MicrosoftFirstParty.applications.map { a -> HTML in
            "<tr data-first-party=\"\(a.clientID)\"><td>\(a.displayName)</td><td>\(Self.copyable(a.clientID))</td><td>\(a.familyID.map { "family \($0)" } ?? "")</td></tr>"
        } + MicrosoftFirstParty.resources.map { r -> HTML in
            "<tr data-first-party=\"\(r.appID)\"><td>\(r.displayName)</td><td>\(Self.copyable(r.appID))</td><td>resource <code>\(r.identifierURI)</code></td></tr>"
        }
        let mail = world.service.outbox.recent(20).map { m -> HTML in
            "<tr data-mail=\"\(m.to)\"><td>\(m.to)</td><td>\(Self.copyable(m.code))</td><td>\(m.purpose.rawValue)</td><td>\(ConsoleFormat.dateTime(m.sentAt))</td><td>\(ConsoleFormat.dateTime(m.expiresAt))</td></tr>"
        }
        let content: HTML = """
        \(worldPicker(action: Tab.directory.path, selected: world.id))
        <p class="muted">Change it with the control API (<code>/_fakeentra/users</code>, <code>/apps</code>, <code>/consents</code>) or <code>--config</code>. Unknown client ids are accepted as public clients unless the server runs with <code>--strict</code>.</p>
        <section><h2 id="tenants">Tenants</h2>
        \(table("tenantTable", ["name", "id", "kind", "domains"], tenants, empty: "No tenants."))</section>
        <section><h2 id="users">Users</h2><p class="muted">Demo password for the embedded users: <code>\(Directory.demoPassword)</code></p>
        \(table("userTable", ["sign-in name", "display name", "email", "tenant", "object id", "state"], users, empty: "No users."))</section>
        <section><h2 id="apps">Apps</h2>
        \(table("appTable", ["name", "client id", "type", "redirect URIs", "exposes"], apps, empty: "No registered apps."))</section>
        <section><h2 id="consents">Consents</h2>
        \(table("consentTable", ["app", "resource", "granted by", "scopes"], consents, empty: "No consents yet: they appear as users consent."))</section>
        <section><h2 id="outbox">Outbox</h2><p class="muted">The one-time codes External ID sent by email or text message (sign-up, sign-in, a second factor, a method's registration, password reset), newest first; a test reads them from <code>/_fakeentra/outbox?to=ADDRESS</code>, an email address or a phone number as the user's profile writes it.</p>
        \(table("outboxTable", ["to", "code", "for", "sent", "expires"], mail, empty: "No code sent yet."))</section>
        <section><h2 id="groups">Groups</h2>
        \(table("groupTable", ["name", "object id", "kind", "members", "owners"], groups, empty: "No groups."))</section>
        <section><h2 id="identities">Managed identities</h2><p class="muted">Their tokens come from <code>/metadata/identity/oauth2/token</code> (IMDS), <code>/msi/token</code> (App Service), <code>/servicefabric/metadata/identity/oauth2/token</code> (Service Fabric), <code>/azureml/msi/token</code> (Azure ML) and <code>/azurearc/metadata/identity/oauth2/token</code> (Azure Arc); Cloud Shell's <code>/cloudshell/oauth2/token</code> answers for the person signed in to the shell.</p>
        \(table("identityTable", ["name", "client id", "kind", "resource id"], identities, empty: "No managed identities."))</section>
        <section><h2 id="first-party">Microsoft's apps</h2><p class="muted">In every tenant, as in a real one: no consent page on Microsoft's resources.</p>
        \(table("firstPartyTable", ["name", "app id", ""], firstParty, empty: ""))</section>
        """
        return frame(.directory, heading: "Directory", lede: world.id == "default" ? "Tenants, users, apps and consents of the server." : "The isolated directory of binding \(world.id).", content)
    }

    func table(_ id: String, _ columns: [String], _ rows: [HTML], empty: String) -> HTML {
        let head = columns.map { column -> HTML in "<th>\(column)</th>" }
        let body: HTML = rows.isEmpty ? "<tr class=\"none\"><td colspan=\"\(columns.count)\" class=\"empty\">\(empty)</td></tr>" : HTML(raw: rows.map(\.markup).joined(separator: "\n"))
        return "<table class=\"grid\" id=\"\(id)\"><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table>"
    }
}
