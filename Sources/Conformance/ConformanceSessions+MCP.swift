import ExchangeKernel
import FoundationGaps
import IdentityPlatform
import Journal
import Synchronization

/// What an MCP case adds to a case's start and judgement: the app's MCP server registered in the case's
/// tenant, and the dynamic registrations the app may have attempted.
extension ConformanceSessions {
    /// An MCP client's loopback form: the MCP SDKs hold redirect URIs as URLs, which give a bare
    /// `http://localhost:{port}` a path of "/", so their apps register a callback path.
    package static let mcpRedirectURI = "http://localhost/callback"

    /// The redirect URI the case's app is registered with and signs in at.
    static func redirectURI(for conformanceCase: ConformanceCase) -> String {
        conformanceCase.callsMCPServer ? mcpRedirectURI : redirectURI
    }

    /// The URL an MCP case's server listens at, as its caller named it: an absolute http(s) URL without
    /// query or fragment, as an Application ID URI and RFC 8707's resource must be. Named for another
    /// case, it is refused rather than ignored.
    static func mcpServerURL(_ named: String?, for conformanceCase: ConformanceCase) throws(ConformanceError) -> String? {
        guard conformanceCase.callsMCPServer else {
            guard named == nil else {
                throw ConformanceError(status: 422, code: "not_applicable", message: "case \"\(conformanceCase.id)\" calls no MCP server: leave \"mcpServer\" out")
            }
            return nil
        }
        guard let named else {
            throw ConformanceError(status: 422, code: "needs_mcp_server",
                                   message: "case \"\(conformanceCase.id)\" has the app call an MCP server: name the URL it listens at as \"mcpServer\"")
        }
        guard let url = URLComponents(string: named), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
              url.query == nil, url.fragment == nil, named.count <= 2048 else {
            throw ConformanceError(status: 422, code: "invalid_body", message: "\"mcpServer\" must be an absolute http or https URL without a query or fragment")
        }
        return named
    }

    /// The MCP server's registration in the case's tenant: an API whose Application ID URI is the server's
    /// URL, exposing `tools.call`, which the case's user has consented to for the app.
    static func registerMCPServer(_ server: MCPServerSettings, for clientID: String, user: DirectoryUser, in directory: inout Directory) {
        directory.applications.append(Application(
            clientID: server.apiClientID, displayName: "Conformance MCP server", tenantID: user.tenantID, isPublicClient: false,
            identifierURIs: [server.url], exposedScopes: [MCPServerSettings.scopeName]
        ))
        directory.grantConsent(ConsentGrant(clientID: clientID, resourceAppID: server.apiClientID, userID: user.id, tenantID: user.tenantID,
                                            scopes: [MCPServerSettings.scopeName]))
    }

    /// Where a client that registers itself (RFC 7591) posts when the authorization server's metadata names
    /// no registration endpoint: the issuer's origin (`/register`, the TypeScript SDK's fallback), or below
    /// the tenant (`/{tenant}/register`, `/{tenant}/v2.0/register`).
    package static func isRegistrationPath(_ path: String) -> Bool {
        let segments = path.lowercased().split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.last == "register" else { return false }
        return segments.count <= 2 || (segments.count == 3 && segments.dropFirst().first == "v2.0")
    }

    /// The dynamic registrations posted while the case ran. They carry no client id, so they reach no
    /// case's world: one is the case's only when no other MCP case, of any run on this server, was running
    /// at that moment (otherwise which app sent it cannot be told, and it is left out).
    func registrationAttempts(run: String, case caseID: String, since startedAt: Date) -> [JournalEntry] {
        var posts = RequestJournal.Filter(sinceTime: startedAt)
        posts.method = "POST"
        let candidates = journal.entries(matching: posts).filter { $0.receipt.world == nil && Self.isRegistrationPath($0.path) }
        guard !candidates.isEmpty else { return [] }
        let now = Date()
        let others: [ClosedRange<Date>] = runs.withLock { runs in
            runs.flatMap { runID, other in
                other.started.compactMap { otherCase, started -> ClosedRange<Date>? in
                    guard runID != run || otherCase != caseID, started.start.mcpServer != nil else { return nil }
                    let finishedAt = other.results[otherCase].map { started.startedAt.addingTimeInterval($0.durationSeconds) } ?? now
                    return started.startedAt...max(started.startedAt, finishedAt)
                }
            }
        }
        return candidates.filter { entry in !others.contains { $0.contains(entry.time) } }
    }
}
