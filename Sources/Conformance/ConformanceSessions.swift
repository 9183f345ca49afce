package import B2C
import FoundationGaps
import ExchangeKernel
package import Journal
import IdentityPlatform
import LocatedJSON
package import Scenarios
import Synchronization

package struct ConformanceError: Error, Sendable, Equatable, CustomStringConvertible {
    package var status: Int
    package var code: String
    package var message: String

    package var description: String { message }

    package init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func unknownRun(_ id: String) -> ConformanceError { .init(status: 404, code: "unknown_run", message: "no conformance run with id \"\(id)\"") }
    package static func unknownCase(_ id: String) -> ConformanceError {
        .init(status: 404, code: "unknown_case", message: "no conformance case \"\(id)\"; `fakeentra conform --list` shows them")
    }
    static func notStarted(_ id: String) -> ConformanceError { .init(status: 409, code: "case_not_started", message: "case \"\(id)\" was not started in this run") }
    static func tooManyRuns(_ limit: Int) -> ConformanceError {
        .init(status: 429, code: "too_many_runs", message: "\(limit) conformance runs have cases still in progress, the most this server keeps; finish them (or restart the server) first")
    }
    static func noCases(_ glob: String, client: ClientKind) -> ConformanceError {
        .init(status: 422, code: "no_cases", message: "no conformance case for a \(client.title) matches \"\(glob)\"")
    }
    static func caseGone(_ id: String) -> ConformanceError {
        .init(status: 500, code: "case_gone", message: "case \"\(id)\" lost its binding or its app registration (the server was reset?); the certificate could not be rolled")
    }
    static func noRollover(_ id: String) -> ConformanceError {
        .init(status: 409, code: "no_rollover", message: "case \"\(id)\" rolls no certificate in this run (only certificate-rollover cases of a certificate client's run do)")
    }
}

/// Runs cases against this server's scenario engine: each case gets a fresh client id, its own
/// binding (world, clock, counters) and its exchanges from the journal, so cases run in parallel.
package final class ConformanceSessions: Sendable {
    /// Where the control plane serves the runs (`/_fakeentra/conformance/…`).
    package static let controlPath = "/_fakeentra/conformance"

    struct Started: Sendable {
        var start: CaseStart
        var startedAt: Date
        /// The certificate a rollover registers in place of the first one.
        var rolledCertificate: String?
        /// The journal's last entry when the case started, and when it finished: its requests lie between.
        var journalStart: Int
        var journalEnd: Int?
    }

    struct Run: Sendable {
        var client: ClientKind
        var cases: [String]
        var sequence: Int
        var started: [String: Started] = [:]
        var results: [String: CaseResult] = [:]

        /// No started case is waiting for its result (and so holds no binding).
        var isIdle: Bool { started.keys.allSatisfy { results[$0] != nil } }
    }

    /// The most runs kept; past it the oldest idle run (its results read or abandoned) makes room.
    package static let maxRuns = 200

    package let engine: ScenarioEngine
    package let journal: RequestJournal
    package let b2c: B2CConfiguration?
    let runs = Mutex<[String: Run]>([:])
    private let nextSequence = Mutex(0)

    package init(engine: ScenarioEngine, journal: RequestJournal, b2c: B2CConfiguration?) {
        self.engine = engine
        self.journal = journal
        self.b2c = b2c
    }

    /// A new run over the cases the glob selects for that kind of app; returns its id.
    package func createRun(cases glob: String? = nil, level: Catalogue.LevelFilter = .all, client: ClientKind = .publicClient) throws(ConformanceError) -> (id: String, cases: [ConformanceCase]) {
        let selected = Catalogue.select(glob: glob, level: level, client: client)
        if selected.isEmpty { throw .noCases(glob ?? "*", client: client) }
        let id = "r" + UUID().uuidString.prefix(8).lowercased()
        let sequence = nextSequence.withLock { next in defer { next += 1 }; return next }
        let admitted: Bool = runs.withLock { runs in
            if runs.count >= Self.maxRuns {
                guard let oldest = runs.filter({ $0.value.isIdle }).min(by: { $0.value.sequence < $1.value.sequence })?.key else { return false }
                runs[oldest] = nil
            }
            runs[id] = Run(client: client, cases: selected.map(\.id), sequence: sequence)
            return true
        }
        guard admitted else { throw .tooManyRuns(Self.maxRuns) }
        return (id, selected)
    }

    package func results(run id: String) throws(ConformanceError) -> [CaseResult] {
        guard let run = runs.withLock({ $0[id] }) else { throw .unknownRun(id) }
        return run.cases.compactMap { run.results[$0] }
    }

    /// Binds the case's scenario to a fresh client id registered as the run's kind of app, with a fresh credential if confidential.
    /// `mcpServer`: where the app's MCP server listens, for a case whose app calls one (its URL becomes the
    /// server's Application ID URI in the case's tenant).
    package func start(run id: String, case caseID: String, baseURL: String, mcpServer: String? = nil) throws(ConformanceError) -> CaseStart {
        guard let conformanceCase = Catalogue.named(caseID) else { throw .unknownCase(caseID) }
        guard let client = runs.withLock({ $0[id]?.client }) else { throw .unknownRun(id) }
        guard conformanceCase.clients.contains(client) else {
            throw ConformanceError(status: 422, code: "not_applicable", message: "case \"\(caseID)\" does not judge a \(client.title)")
        }
        let mcpServerURL = try Self.mcpServerURL(mcpServer, for: conformanceCase)
        let clientID = UUID().uuidString.lowercased()
        if case .failure(let problems) = engine.load(file: Array(conformanceCase.scenarioFile.utf8), name: "conformance/\(caseID).json") {
            throw ConformanceError(status: 500, code: "invalid_case", message: "the case's scenario has problems: \(problems.problems.map(\.description).joined(separator: "; "))")
        }
        let user = Self.caseUser(conformanceCase, in: engine.base.currentDirectory)
        var journey = conformanceCase.journey
        var secondUser: CaseStart.OtherUser?
        if journey.contains(where: { $0.user == JourneyStep.secondUser }) {
            guard let second = engine.base.currentDirectory.users.first(where: { $0.tenantID == user.tenantID && $0.id != user.id && $0.isUsable }) else {
                throw ConformanceError(status: 409, code: "needs_two_users", message: "case \"\(caseID)\" signs in two users of \(user.tenantID), which has one")
            }
            secondUser = .init(username: second.userPrincipalName, password: second.password)
            for index in journey.indices where journey[index].user == JourneyStep.secondUser { journey[index].user = second.userPrincipalName }
        }
        // Made last before the binding: keys cost a generation each, and a start refused above needs none.
        let issued = try CaseCredentials.issue(for: client, case: conformanceCase)
        // A case whose requests carry no client id (discovery) gets an authority path of its own.
        let alias = conformanceCase.ownAuthority ? "conformance-" + clientID.prefix(8) : nil
        let binding: BindingInfo
        do {
            binding = try engine.bind(scenario: conformanceCase.scenarioName, to: alias.map { .tenantAlias(alias: $0, tenant: user.tenantID) } ?? .client(id: clientID))
        } catch {
            throw ConformanceError(status: error.status, code: error.code, message: error.message)
        }
        let mcpSettings = mcpServerURL.map { MCPServerSettings(url: $0, apiClientID: UUID().uuidString.lowercased(), issuer: Issuer.v2(origin: baseURL, tenant: user.tenantID)) }
        engine.world(binding: binding.id)?.service.directory.withLock { directory in
            register(clientID: clientID, kind: client, for: conformanceCase, user: user, credentials: issued, in: &directory)
            if let mcpSettings { Self.registerMCPServer(mcpSettings, for: clientID, user: user, in: &directory) }
            if let customer = conformanceCase.nativeCustomer, let index = directory.users.firstIndex(where: { $0.id == user.id }) {
                directory.users[index] = customer.applied(to: directory.users[index])
            }
        }
        let start = CaseStart(
            run: id, caseID: caseID, title: conformanceCase.title, level: conformanceCase.level, clientID: clientID, binding: binding.id,
            authority: conformanceCase.externalID ? Self.ciamLoginAuthority(of: user.tenantID, in: engine.base.currentDirectory) : "\(baseURL)/\(alias ?? user.tenantID)",
            redirectURI: Self.redirectURI(for: conformanceCase), graph: baseURL,
            username: conformanceCase.externalID ? user.mail ?? user.userPrincipalName : user.userPrincipalName, password: user.password, secondUser: secondUser,
            scopes: conformanceCase.scopes, httpTimeout: conformanceCase.httpTimeout,
            b2c: conformanceCase.b2c ? b2cSettings(baseURL: baseURL) : nil,
            scenario: .init(name: conformanceCase.scenarioName, summary: conformanceCase.service, file: conformanceCase.scenarioFile),
            journey: journey, credential: issued?.credential,
            outbox: conformanceCase.nativeCustomer == nil ? nil : "\(baseURL)/_fakeentra/outbox?clientId=\(clientID)", kind: client,
            mcpServer: mcpSettings
        )
        // A case started again replaces its earlier start: that binding goes, or each restart would leak one.
        let started = Started(start: start, startedAt: Date(), rolledCertificate: issued?.rolledCertificate, journalStart: journal.lastID)
        let replaced = runs.withLock { runs in
            runs[id]?.results[caseID] = nil
            return runs[id]?.started.updateValue(started, forKey: caseID)
        }
        if let replaced { engine.unbind(id: replaced.start.binding) }
        return start
    }

    /// The certificate rollover: the case's registration trades its certificate for the one the start
    /// named as next (which the caller put where the app loads its certificate from).
    package func rollCertificate(run id: String, case caseID: String) throws(ConformanceError) {
        guard let run = runs.withLock({ $0[id] }) else { throw .unknownRun(id) }
        guard let started = run.started[caseID], run.results[caseID] == nil else { throw .notStarted(caseID) }
        guard let certificate = started.rolledCertificate else { throw .noRollover(caseID) }
        guard let world = engine.world(binding: started.start.binding) else { throw .caseGone(caseID) }
        let rolled = world.service.directory.withLock { directory in
            guard let index = directory.applications.firstIndex(where: { $0.clientID == started.start.clientID }) else { return false }
            directory.applications[index].certificates = [certificate]
            return true
        }
        if !rolled { throw .caseGone(caseID) }
    }

    /// Judges the case from its world's exchanges and the reported outcomes, and removes its binding.
    package func finish(run id: String, case caseID: String, outcomes: [StepOutcome], stderrTail: String? = nil) throws(ConformanceError) -> CaseResult {
        guard let conformanceCase = Catalogue.named(caseID) else { throw .unknownCase(caseID) }
        guard let run = runs.withLock({ $0[id] }) else { throw .unknownRun(id) }
        guard let started = run.started[caseID] else { throw .notStarted(caseID) }
        var filter = RequestJournal.Filter()
        filter.world = started.start.binding
        let journalEnd = journal.lastID
        var entries = journal.entries(matching: filter)
        var unattributable: [Exchange] = []
        if conformanceCase.callsMCPServer {
            let registrations = registrationAttempts(run: id, case: caseID, between: started.journalStart...journalEnd)
            entries += registrations.own
            unattributable = registrations.unattributable.map(Exchange.init)
        }
        let exchanges = entries.map(Exchange.init)
        engine.unbind(id: started.start.binding)
        let result = Judge(exchanges: exchanges, outcomes: outcomes, mcpServer: started.start.mcpServer, unattributableRegistrations: unattributable)
            .judge(conformanceCase, clientID: started.start.clientID, durationSeconds: Date().timeIntervalSince(started.startedAt),
                   stderrTail: stderrTail.map { started.start.withoutCredentials($0) })
        // The case's secret and keys go with its binding: nothing of them outlives the case.
        runs.withLock { runs in
            runs[id]?.results[caseID] = result
            runs[id]?.started[caseID]?.journalEnd = journalEnd
            runs[id]?.started[caseID]?.start.credential = nil
            runs[id]?.started[caseID]?.rolledCertificate = nil
        }
        return result
    }

    /// Who signs in: Contoso's first user, or for an External ID case the first customer of an external tenant.
    private static func caseUser(_ conformanceCase: ConformanceCase, in directory: Directory) -> DirectoryUser {
        let tenantID = conformanceCase.externalID
            ? directory.tenants.first { $0.kind == .external }?.id ?? Directory.woodgroveTenantID
            : Directory.contosoTenantID
        return directory.users.first { $0.tenantID == tenantID } ?? Directory.embeddedDefault.users[0]
    }

    /// An external tenant's authority as its apps name it, `https://{subdomain}.ciamlogin.com/`, never this
    /// server's own address: served there, the issuer is the service's (`https://{tenantid}.ciamlogin.com/
    /// {tenantid}/v2.0`), which a client that builds its expected issuer from the authority would refuse.
    /// The name reaches this server through `fakeentra conform`'s CONNECT relay (`HTTPS_PROXY`).
    static func ciamLoginAuthority(of tenantID: String, in directory: Directory) -> String {
        let domain = directory.tenants.first { $0.id == tenantID }?.domains.first { $0.hasSuffix(".onmicrosoft.com") }
        let subdomain = domain.map { String($0.prefix { $0 != "." }) } ?? tenantID
        return "https://\(subdomain).ciamlogin.com/"
    }

    /// MSAL for Python's loopback form: Entra accepts any port for `http://localhost`.
    package static let redirectURI = "http://localhost"
    private func register(clientID: String, kind: ClientKind, for conformanceCase: ConformanceCase, user: DirectoryUser, credentials: CaseCredentials?,
                          in directory: inout Directory) {
        // A single-page app's redirect URI is the "Single-page application" platform's (its redemptions are the browser's).
        let spa = kind == .singlePageApp
        var application = Application(
            clientID: clientID, displayName: "Conformance \(conformanceCase.id)", isPublicClient: credentials == nil,
            secrets: credentials?.registeredSecrets ?? [], certificates: credentials?.registeredCertificates ?? [],
            redirectURIs: spa ? [] : [Self.redirectURI(for: conformanceCase)], spaRedirectURIs: spa ? [Self.redirectURI] : []
        )
        // "Enable native authentication" on the registration, as an app on External ID's own screens has it.
        application.nativeAuthenticationApisEnabled = conformanceCase.nativeCustomer != nil
        directory.applications.append(application)
        let bare = conformanceCase.consentedScopes.filter { !$0.contains("/") }
        guard !bare.isEmpty else { return }
        directory.grantConsent(ConsentGrant(clientID: clientID, resourceAppID: Resource.graphAppID, userID: user.id, tenantID: user.tenantID, scopes: bare))
    }

    private func b2cSettings(baseURL: String) -> CaseStart.B2CSettings? {
        guard let b2c else { return nil }
        let tenant = b2c.tenant.domain
        let account = b2c.localAccounts.first
        let scopes = b2c.apis.first.map { api in api.scopes.prefix(1).map { "\(b2c.identifierURI(of: api))/\($0)" } } ?? []
        let host = URLComponents(string: baseURL).map { ($0.host ?? "localhost") + ($0.port.map { ":\($0)" } ?? "") } ?? "localhost"
        let signIn = b2c.policies.first { $0.kind == .susi }?.name ?? "B2C_1_susi"
        let reset = b2c.policies.first { $0.kind == .passwordReset }?.name ?? "B2C_1_reset"
        return .init(authority: "\(baseURL)/tfp/\(tenant)/\(signIn)", resetAuthority: "\(baseURL)/tfp/\(tenant)/\(reset)",
                     knownAuthority: host, scopes: scopes, username: account?.email ?? "", password: account?.password ?? "")
    }
}
