/// RFC 8707's `resource` on the v2.0 endpoints, which MCP clients always send. The service has answered it
/// since early 2026 by comparing it with the requested scopes: it must be, character for character, an
/// Application ID URI of the app the scopes belong to (learn.microsoft.com, "Secure an MCP server with
/// Microsoft Entra ID": "must match the Application ID URI character for character", a trailing slash
/// included; a scope of another app fails too). When it matches the request goes on as if it were absent
/// (`aud` stays the resource's app id); otherwise invalid_target, AADSTS9010010, redirected to the app
/// from /authorize and in JSON from /token (reported with Claude Code, VS Code and mcp-remote, 2026).
/// Before 2026 the service refused any `resource` on v2.0 (AADSTS901002); scenarios can still script that.
enum ResourceIndicator {
    static func check(_ resource: String?, against scopes: ScopeRequest) throws(IdentityError) {
        guard let resource else { return }
        // Scopes naming no app (openid profile offline_access alone) match no resource.
        guard let target = scopes.resource, ([target.identifierURI] + target.otherIdentifierURIs).contains(resource) else {
            throw .resourceDoesNotMatchScopes()
        }
    }
}
