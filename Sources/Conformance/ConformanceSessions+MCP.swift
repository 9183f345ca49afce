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

    /// The dynamic registrations posted while the case ran (by journal ids, which no clock moves). They
    /// carry no client id, so they reach no case's world: one is the case's own when no other MCP case, of
    /// any run on this server, was running then, and cannot be attributed otherwise. A case started and
    /// never finished counts as running for its journey's deadlines and a minute more.
    func registrationAttempts(run: String, case caseID: String, between window: ClosedRange<Int>) -> (own: [JournalEntry], unattributable: [JournalEntry]) {
        // A registration path is no route of any service's: the journal's `other` kind, filtered before any
        // entry is described.
        var posts = RequestJournal.Filter(sinceID: window.lowerBound)
        posts.method = "POST"
        posts.kind = "other"
        let candidates = journal.entries(matching: posts).filter {
            $0.id <= window.upperBound && $0.receipt.world == nil && Judge.isDynamicRegistration(method: $0.method, path: $0.path)
        }
        guard !candidates.isEmpty else { return ([], []) }
        let now = Date()
        let others: [ClosedRange<Int>] = runs.withLock { runs in
            runs.flatMap { runID, other in
                other.started.compactMap { otherCase, started -> ClosedRange<Int>? in
                    guard runID != run || otherCase != caseID, started.start.mcpServer != nil else { return nil }
                    if let end = started.journalEnd { return started.journalStart...max(started.journalStart, end) }
                    let lifetime = started.start.journey.reduce(60) { $0 + $1.budgetSeconds }
                    return now.timeIntervalSince(started.startedAt) < lifetime ? started.journalStart...Int.max : nil
                }
            }
        }
        var own: [JournalEntry] = [], shared: [JournalEntry] = []
        for entry in candidates {
            if others.contains(where: { $0.contains(entry.id) && entry.id > $0.lowerBound }) { shared.append(entry) } else { own.append(entry) }
        }
        return (own, shared)
    }
}
