import IdentityPlatform

extension Source {
    static let mcpResourceParameter = Citation(
        "MCP specification 2025-11-25, Authorization: Resource Parameter Implementation (RFC 8707 on both the authorization and the token request, the server's canonical URI)",
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#resource-parameter-implementation")
    static let rfc8707 = Citation("RFC 8707 §2 (the resource parameter, in authorization and token requests)", "https://www.rfc-editor.org/rfc/rfc8707#section-2")
    static let mcpClientRegistration = Citation(
        "MCP specification 2025-11-25, Authorization: Client Registration Approaches (pre-registered client information first)",
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#client-registration-approaches")
    static let entraNoDynamicRegistration = Citation(
        "Azure App Service: configure built-in MCP server authorization (Microsoft Entra ID has no dynamic client registration; configure the client with its client id)",
        "https://learn.microsoft.com/azure/app-service/configure-authentication-mcp")
    /// Where the MCP SDK for Python adds `resource` to the authorization URL, the code exchange and the refresh.
    static let mcpPythonSDK = Citation(
        "MCP SDK for Python, src/mcp/client/auth/oauth2.py (resource on /authorize, the code exchange and the refresh)",
        "https://github.com/modelcontextprotocol/python-sdk/blob/main/src/mcp/client/auth/oauth2.py")
}

extension Catalogue {
    static let mcp: [ConformanceCase] = [
        ConformanceCase(
            id: "mcp.entra-resource-and-registration", title: "An MCP client meets Entra ID", level: .required,
            service: "The MCP server answers 401 and serves its protected resource metadata (RFC 9728), naming the tenant's v2.0 issuer and its scope in full. Entra ID serves no RFC 8414 metadata (404; the client finds the OpenID configuration) and has no registration endpoint. It issues a token for the server when resource is the server's URL, which is its registration's Application ID URI, and the scopes are the server's; a resource that contradicts the scopes is refused (AADSTS9010010).",
            correctClient: "A correct MCP client uses the client id its app was registered with instead of registering itself, sends the MCP server's URL as resource on /authorize and on every token request, asks the server's scopes in full ({server}/tools.call, as its metadata names them), and calls the tool with the token.",
            verdictRule: "FAILED when a sign-in start or a token request lacks resource or names another one, when the sign-in asks none of the server's scopes in full, when the app posts a dynamic registration to Entra (a client that posts one elsewhere, as the MCP SDK for Python does to the MCP server, never gets a client id and fails the tool call), or when the tool call fails; NOT_TESTABLE when no sign-in happened, or when a registration was posted while another MCP case ran on the server (which app sent it cannot be told); SKIPPED for an adapter older than protocol 1.4, which answers callMCP unsupported.",
            citations: [Source.mcpResourceParameter, Source.rfc8707, Source.mcpClientRegistration, Source.entraNoDynamicRegistration, Source.mcpPythonSDK],
            rules: [],
            journey: [.callMCP(1, deadline: 60)],
            checks: [
                Check("resource-on-authorize", .namesResource(.authorization), citation: Source.mcpResourceParameter),
                Check("resource-on-token", .namesResource(.token), citation: Source.rfc8707),
                Check("no-dynamic-registration", .noDynamicRegistration(step: 1), citation: Source.entraNoDynamicRegistration),
                Check("calls-the-tool", .reply(step: 1, .succeeds), citation: Source.mcpClientRegistration),
            ],
            scopes: [], consentedScopes: [],
            clients: [.publicClient]
        ),
    ]
}
