package import FoundationGaps
package import IdentityPlatform
package import LocatedJSON
package import Scenarios

/// How a failed case counts: `required` is what a correct MSAL client does (MSAL for Python 1.39 passes
/// every one), `recommended` is OIDC/RFC hardening MSAL deliberately skips — a failure is a WARNING.
package enum CaseLevel: String, Sendable, Codable, CaseIterable {
    case required, recommended
}

package enum CaseArea: String, Sendable, Codable, CaseIterable {
    case protocolSafety = "protocol"
    case errors
    case resilience
    case lifecycle
    case graph
    case b2c
    case externalID = "externalid"
    case nativeAuth = "nativeauth"
    case confidential
    case mcp

    package var title: String {
        switch self {
        case .protocolSafety: "Protocol safety"
        case .errors: "Error handling"
        case .resilience: "Resilience"
        case .lifecycle: "Token lifecycle"
        case .graph: "Microsoft Graph"
        case .b2c: "Azure AD B2C"
        case .externalID: "Microsoft Entra External ID"
        case .nativeAuth: "External ID native authentication"
        case .confidential: "Confidential clients"
        case .mcp: "MCP clients"
        }
    }
}

/// The kind of app a run judges: a public client (phone, desktop, command line), or a confidential web
/// app that proves who it is with a client secret or with a certificate's signed assertion.
package enum ClientKind: String, Sendable, Codable, CaseIterable {
    case publicClient = "public"
    /// A single-page app (MSAL.js): a public client whose redirect URI is registered as "Single-page
    /// application", so the browser redeems its codes and refresh tokens cross-origin.
    case singlePageApp = "spa"
    case secret
    case certificate

    package var isConfidential: Bool { self == .secret || self == .certificate }

    package static let every = Set(allCases)
    package static let confidential: Set<ClientKind> = [.secret, .certificate]

    package var title: String {
        switch self {
        case .publicClient: "public client"
        case .singlePageApp: "single-page app"
        case .secret: "confidential client (client secret)"
        case .certificate: "confidential client (certificate)"
        }
    }
}

/// The clause a check rests on: a Microsoft documentation page, an MSAL source file or an RFC/OIDC section.
package struct Citation: Sendable, Codable, Equatable, Hashable {
    package var label: String
    package var url: String

    package init(_ label: String, _ url: String) {
        self.label = label
        self.url = url
    }
}

/// The External ID customer of a native-authentication case, as the case's world holds them.
package enum NativeCustomer: Sendable, Equatable {
    /// Signs in with email and password.
    case password
    /// Signs in with a one-time code mailed to them (no password).
    case emailCode
    /// Email and password, then a second factor: a code to the email method they registered, or, with
    /// none registered, registering one first (just-in-time registration).
    case secondFactor(registered: Bool)

    /// The user as the case's world holds them.
    package func applied(to user: DirectoryUser) -> DirectoryUser {
        var user = user
        switch self {
        case .password: break
        case .emailCode: user.password = ""
        case .secondFactor(let registered):
            user.mfaRequired = true
            user.mfaRegistered = registered
        }
        return user
    }
}

/// One conformance case: a scripted service behaviour (a scenario bound to the case's fresh client id),
/// the journey the client is asked to walk, and the checks that judge what it did.
package struct ConformanceCase: Sendable {
    /// `area.name`, e.g. `resilience.retry-after-seconds`.
    package var id: String
    package var title: String
    package var area: CaseArea
    package var level: CaseLevel
    /// What the real service does in this situation.
    package var service: String
    /// What a correct client does.
    package var correctClient: String
    /// What decides the verdict.
    package var verdictRule: String
    package var citations: [Citation]
    /// The scenario's rules, each as written in a scenario file (docs/scenarios.md): the case's server
    /// behaviour goes through the same decoder and validation as any scenario.
    package var rules: [String]
    /// The world's clock offset from the server's (the clock-skew case): per binding, so parallel
    /// cases keep their own time.
    package var clockOffset: TimeInterval
    package var journey: [JourneyStep]
    package var checks: [Check]
    /// Scopes consented for the app before the case starts (the case's default scopes unless it says otherwise).
    package var consentedScopes: [String]
    package var scopes: [String]
    /// The adapter's HTTP timeout (`FAKEENTRA_STEP_TIMEOUT`).
    package var httpTimeout: Int
    package var b2c: Bool
    /// The case signs a customer of an External ID tenant in at that tenant's authority, with their email.
    package var externalID: Bool
    /// A native-authentication case's customer: how they sign in, and whether a second factor is asked of
    /// them (set on the case's own world only).
    package var nativeCustomer: NativeCustomer?
    /// The case's authority is a path of its own (a tenant alias bound to its world) rather than the
    /// tenant's: requests without a client id, as discovery is, then reach the case's scenario and journal.
    package var ownAuthority: Bool
    /// The kinds of app the case judges; a run for another kind leaves it out.
    package var clients: Set<ClientKind>
    /// A confidential client's secret stops being valid this long after the case starts.
    package var secretLifetime: TimeInterval?
    /// After the reply to this step, the registration's certificate is replaced by a new one, which the
    /// suite also writes where the app loads its certificate from (a certificate rollover).
    package var rollsCertificateAfterStep: Int?

    package init(
        id: String, title: String, level: CaseLevel, service: String, correctClient: String, verdictRule: String,
        citations: [Citation], rules: [String], clockOffset: TimeInterval = 0, journey: [JourneyStep], checks: [Check],
        scopes: [String] = ["User.Read"], consentedScopes: [String]? = nil, httpTimeout: Int = 10, b2c: Bool = false, externalID: Bool = false,
        ownAuthority: Bool = false, clients: Set<ClientKind>? = nil, secretLifetime: TimeInterval? = nil,
        rollsCertificateAfterStep: Int? = nil, nativeCustomer: NativeCustomer? = nil
    ) {
        self.id = id
        self.title = title
        self.area = CaseArea(rawValue: String(id.prefix { $0 != "." })) ?? .errors
        self.level = level
        self.service = service
        self.correctClient = correctClient
        self.verdictRule = verdictRule
        self.citations = citations
        self.rules = rules
        self.clockOffset = clockOffset
        self.journey = journey
        self.checks = checks
        self.scopes = scopes
        self.consentedScopes = consentedScopes ?? scopes
        self.httpTimeout = httpTimeout
        self.b2c = b2c
        self.externalID = externalID || nativeCustomer != nil
        self.nativeCustomer = nativeCustomer
        self.ownAuthority = ownAuthority
        // Devices sign in as public clients; the confidential adapters sign in at Entra ID's authority only.
        self.clients = clients ?? (b2c || self.externalID || journey.contains { $0.step == .signInDevice } ? [.publicClient] : ClientKind.every)
        self.secretLifetime = secretLifetime
        self.rollsCertificateAfterStep = rollsCertificateAfterStep
    }

    /// The app calls an MCP server (`callMCP`): the case's start names one, registered in the case's tenant.
    package var callsMCPServer: Bool { journey.contains { $0.step == .callMCP } }

    /// The scenario file the case binds to its client id; the name is unique per case.
    package var scenarioFile: String {
        var members: [(String, JSONValue)] = [("name", .string(scenarioName)), ("description", .string("\(title). \(service)"))]
        if clockOffset != 0 { members.append(("clock", .object([("offsetSeconds", .int(Int(clockOffset)))]))) }
        // A rule that is not JSON stays its text: loading the file then refuses it at its place (a test
        // loads every case's file).
        members.append(("rules", .array(rules.map { LocatedJSON.parse(body: Array($0.utf8), source: "a rule of \(id)") ?? .string($0) })))
        return JSONValue.object(members).pretty() + "\n"
    }

    /// The case's scenario, checked as any scenario file is; a problem is a bug in the catalogue
    /// (a test decodes every case).
    package func scenario(baseDirectory: Directory = .embeddedDefault) -> Result<Scenario, JSONProblems> {
        ScenarioLibrary.parse(Array(scenarioFile.utf8), file: "conformance/\(id).json", baseDirectory: baseDirectory)
    }

    package var scenarioName: String {
        "conformance-" + id.map { $0.isLetter || $0.isNumber ? String($0).lowercased() : "-" }.joined()
    }
}
