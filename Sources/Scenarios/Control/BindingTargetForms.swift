import FoundationGaps

/// The written forms of a binding target: the control API's and the console's members, and the
/// command line's and configuration's one-word form.
extension BindingTarget {
    /// The control API's and the console's form: a tenant alias (which needs its tenant), else a client
    /// id, else a user, else the whole server.
    package init(clientID: String?, user: String?, tenantAlias: String?, tenant: String?) throws(ScenarioEngineError) {
        if let alias = tenantAlias {
            guard let tenant, !tenant.isEmpty else { throw .badRequest("a tenant alias needs \"tenant\": the tenant id or domain it stands for") }
            guard alias.range(of: "^[A-Za-z0-9][A-Za-z0-9._-]*$", options: .regularExpression) != nil else {
                throw .badRequest("\"tenantAlias\" must be a single path segment of letters, digits, '.', '_' or '-'")
            }
            self = .tenantAlias(alias: alias, tenant: tenant)
        } else if let clientID {
            self = .client(id: clientID)
        } else if let user {
            self = .user(user)
        } else {
            self = .server
        }
    }

    /// The command-line and config form: `server`, `client:<id>`, `user:<upn or id>`, `alias:<alias>=<tenant>`.
    package init(parsing text: String) throws(ScenarioEngineError) {
        let (kind, value) = text.firstIndex(of: ":").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) } ?? (text, "")
        switch (kind.lowercased(), value) {
        case ("server", ""): self = .server
        case ("client", let id) where !id.isEmpty: self = .client(id: id)
        case ("user", let name) where !name.isEmpty: self = .user(name)
        case ("alias", let spec):
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !parts[0].contains("/") else { fallthrough }
            self = .tenantAlias(alias: parts[0], tenant: parts[1])
        default:
            throw .badRequest("binding target \"\(text)\" must be server, client:<id>, user:<upn or id> or alias:<alias>=<tenant>")
        }
    }
}
