import FoundationGaps

/// What a client needs to run one case: its fresh client id, where to sign in, who signs in, and the journey.
package struct CaseStart: Sendable, Codable, Equatable {
    package struct B2CSettings: Sendable, Codable, Equatable {
        package var authority: String
        package var resetAuthority: String
        package var knownAuthority: String
        package var scopes: [String]
        package var username: String
        package var password: String

        package init(authority: String, resetAuthority: String, knownAuthority: String, scopes: [String], username: String, password: String) {
            self.authority = authority
            self.resetAuthority = resetAuthority
            self.knownAuthority = knownAuthority
            self.scopes = scopes
            self.username = username
            self.password = password
        }
    }

    /// A user who signs in besides the case's own.
    package struct OtherUser: Sendable, Codable, Equatable {
        package var username: String
        package var password: String

        package init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    package struct ScenarioSummary: Sendable, Codable, Equatable {
        package var name: String
        package var summary: String
        /// The scenario file the case bound (docs/scenarios.md syntax).
        package var file: String
    }

    package var run: String
    package var caseID: String
    package var title: String
    package var level: CaseLevel
    package var clientID: String
    package var binding: String
    package var authority: String
    package var redirectURI: String
    package var graph: String
    package var username: String
    package var password: String
    /// The tenant's second user, for a journey with `JourneyStep.signInAsSecondUser` (the step names them).
    package var secondUser: OtherUser?
    package var scopes: [String]
    package var httpTimeout: Int
    package var b2c: B2CSettings?
    package var scenario: ScenarioSummary
    package var journey: [JourneyStep]
    /// What a confidential client authenticates with; nil for a public client.
    package var credential: ClientCredential?
    /// Native-authentication cases: the control API's outbox for this case's world, where the customer
    /// reads the codes mailed to them (add `&to=<address>`).
    package var outbox: String?

    /// `text` (an adapter's stderr) with the case's secret and private keys blanked out, for the reports.
    package func withoutCredentials(_ text: String) -> String {
        var scrubbed = text
        if let secret = credential?.secret { scrubbed = scrubbed.replacingOccurrences(of: secret, with: "[client secret]") }
        for pem in [credential?.certificate, credential?.nextCertificate].compactMap({ $0 }) {
            for line in PEMBlocks.privateKeyLines(in: pem) { scrubbed = scrubbed.replacingOccurrences(of: line, with: "[private key]") }
        }
        return scrubbed
    }

    /// The kind of app the case's client id is registered as (nil in starts written before it was kept:
    /// the credential's kind, else a public client).
    package var kind: ClientKind?
    package var client: ClientKind { kind ?? credential?.kind ?? .publicClient }
    /// MCP cases: the server the app calls, registered in the case's tenant as an API whose Application
    /// ID URI is the server's URL.
    package var mcpServer: MCPServerSettings?

    /// Every variable `environment` may set: a runner drops the ones it inherited, so that a variable left
    /// in the caller's shell (another case's secret) never reaches a case that sets none.
    package static let variableNames: Set<String> = [
        "FAKEENTRA_CONFORMANCE_PROTOCOL", "FAKEENTRA_CASE", "FAKEENTRA_AUTHORITY", "FAKEENTRA_CLIENT_ID", "FAKEENTRA_REDIRECT_URI",
        "FAKEENTRA_GRAPH", "FAKEENTRA_CA", "FAKEENTRA_USERNAME", "FAKEENTRA_PASSWORD", "FAKEENTRA_BROWSER", "FAKEENTRA_SCOPES",
        "FAKEENTRA_STEP_TIMEOUT", "FAKEENTRA_CLIENT_KIND", "FAKEENTRA_SECOND_USERNAME", "FAKEENTRA_SECOND_PASSWORD",
        "FAKEENTRA_CLIENT_SECRET", "FAKEENTRA_CLIENT_CERTIFICATE", "FAKEENTRA_B2C_AUTHORITY", "FAKEENTRA_B2C_RESET_AUTHORITY",
        "FAKEENTRA_B2C_KNOWN_AUTHORITY", "FAKEENTRA_B2C_SCOPES", "FAKEENTRA_OUTBOX", "FAKEENTRA_MCP_SERVER", "FAKEENTRA_MCP_SCOPES",
        "FAKEENTRA_MCP_API_ID", "FAKEENTRA_MCP_ISSUER",
    ]

    /// The adapter's environment (adapter protocol, `JourneyStep.protocolVersion`); `browser` is the `FAKEENTRA_BROWSER` command,
    /// `certificatePath` the file holding a certificate client's key and certificate.
    package func environment(certificateAuthority: String, browser: String, certificatePath: String? = nil) -> [String: String] {
        var environment = [
            "FAKEENTRA_CONFORMANCE_PROTOCOL": JourneyStep.protocolVersion,
            "FAKEENTRA_CASE": caseID,
            "FAKEENTRA_AUTHORITY": authority,
            "FAKEENTRA_CLIENT_ID": clientID,
            "FAKEENTRA_REDIRECT_URI": redirectURI,
            "FAKEENTRA_GRAPH": graph,
            "FAKEENTRA_CA": certificateAuthority,
            "FAKEENTRA_USERNAME": b2c?.username ?? username,
            "FAKEENTRA_PASSWORD": b2c?.password ?? password,
            "FAKEENTRA_BROWSER": browser,
            "FAKEENTRA_SCOPES": scopes.joined(separator: " "),
            "FAKEENTRA_STEP_TIMEOUT": String(httpTimeout),
            "FAKEENTRA_CLIENT_KIND": client.rawValue,
        ]
        if let secondUser {
            environment["FAKEENTRA_SECOND_USERNAME"] = secondUser.username
            environment["FAKEENTRA_SECOND_PASSWORD"] = secondUser.password
        }
        if let outbox { environment["FAKEENTRA_OUTBOX"] = outbox }
        if let mcpServer {
            environment["FAKEENTRA_MCP_SERVER"] = mcpServer.url
            environment["FAKEENTRA_MCP_SCOPES"] = mcpServer.scopes.joined(separator: " ")
            environment["FAKEENTRA_MCP_API_ID"] = mcpServer.apiClientID
            environment["FAKEENTRA_MCP_ISSUER"] = mcpServer.issuer
        }
        if let secret = credential?.secret { environment["FAKEENTRA_CLIENT_SECRET"] = secret }
        if let certificatePath, credential?.certificate != nil { environment["FAKEENTRA_CLIENT_CERTIFICATE"] = certificatePath }
        if let b2c {
            environment["FAKEENTRA_B2C_AUTHORITY"] = b2c.authority
            environment["FAKEENTRA_B2C_RESET_AUTHORITY"] = b2c.resetAuthority
            environment["FAKEENTRA_B2C_KNOWN_AUTHORITY"] = b2c.knownAuthority
            environment["FAKEENTRA_B2C_SCOPES"] = b2c.scopes.joined(separator: " ")
        }
        return environment
    }
}

/// The MCP server of an MCP case, as the app and the server itself are told about it. The app hosts the
/// server (an MCP client never runs without one): it serves the server's protected resource metadata
/// naming the tenant's issuer and `scopes`, and accepts Entra's tokens for `apiClientID` or `url`.
package struct MCPServerSettings: Sendable, Codable, Equatable {
    /// The one tool the server offers: it answers the signed-in user's name, as the token names them.
    package static let tool = "whoami"
    /// The permission the server's registration exposes.
    package static let scopeName = "tools.call"

    /// The server's URL, which is also its registration's Application ID URI (RFC 8707's resource).
    package var url: String
    /// The server's scopes in full (`{url}/tools.call`): a short name is read as Microsoft Graph's.
    package var scopes: [String]
    /// The server's registration: the audience of v2.0 tokens issued for it.
    package var apiClientID: String
    /// The tenant's v2.0 issuer, which the server's metadata names as its authorization server.
    package var issuer: String

    package init(url: String, apiClientID: String, issuer: String) {
        self.url = url
        self.scopes = ["\(url)/\(Self.scopeName)"]
        self.apiClientID = apiClientID
        self.issuer = issuer
    }
}

/// A confidential client's credential for one case, made fresh for it (never reused, never written to the project).
package struct ClientCredential: Sendable, Codable, Equatable {
    package var kind: ClientKind
    package var secret: String?
    /// The private key then its self-signed certificate, PEM: what the app loads its certificate from.
    package var certificate: String?
    /// A certificate rollover's replacement, in the same form: the suite puts it where the app loads its
    /// certificate from, and on the registration, once step `rolloverAfterStep` was answered.
    package var nextCertificate: String?
    package var rolloverAfterStep: Int?

    package init(kind: ClientKind, secret: String? = nil, certificate: String? = nil, nextCertificate: String? = nil, rolloverAfterStep: Int? = nil) {
        self.kind = kind
        self.secret = secret
        self.certificate = certificate
        self.nextCertificate = nextCertificate
        self.rolloverAfterStep = rolloverAfterStep
    }
}

/// The base64 lines of a PEM text's private keys: scrubbed one by one, they cannot leak even where a log
/// printed a key in pieces.
enum PEMBlocks {
    static func privateKeyLines(in pem: String) -> [String] {
        var lines: [String] = []
        var inKey = false
        for line in pem.split(separator: "\n") {
            if line.hasPrefix("-----BEGIN "), line.hasSuffix("PRIVATE KEY-----") { inKey = true } else if line.hasPrefix("-----END ") { inKey = false } else if inKey { lines.append(String(line)) }
        }
        return lines
    }
}
