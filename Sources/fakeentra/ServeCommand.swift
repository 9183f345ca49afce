#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import EntraCrypto
import EntraHTTP
import Console
import EntraServer
import FakeEntraApp
import FoundationGaps
import IdentityPlatform
import LocatedJSON
import Scenarios
import StateStore

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the identity platform, B2C and Graph over HTTPS (the default command)."
    )

    @Option(help: "HTTPS port; 0 picks a free port.") var port: Int = 8443
    @Option(help: "Address to listen on.") var host: String = "127.0.0.1"
    @Option(name: .customLong("http-port"), help: "Also serve plain HTTP on this port (0 picks one).") var httpPort: Int?
    @OptionGroup var certificates: CertificateOptions
    @Option(name: .customLong("ready-file"), help: "Write the base URL to this file once connections are accepted.") var readyFile: String?
    @Option(name: .customLong("config"), help: "JSON configuration: tenants, users, apps, consents, options (docs/schemas/config.schema.json).") var configFile: String?
    @Option(name: .customLong("scenarios"), help: ArgumentHelp("A folder of your own scenario files, added to the shipped library (repeatable).", valueName: "dir")) var scenarioDirectories: [String] = []
    @Option(name: .customLong("scenario"), help: ArgumentHelp("Activate a scenario for the whole server (repeatable).", valueName: "name")) var serverScenarios: [String] = []
    @Option(name: .customLong("bind"), help: ArgumentHelp("Activate a scenario for one client, user or tenant alias: NAME@client:<id>, NAME@user:<upn>, NAME@alias:<alias>=<tenant> (repeatable).", valueName: "binding")) var bindings: [String] = []
    @Option(name: .customLong("control-secret"), help: "Bearer secret the control API (/_fakeentra/) demands; required when --host is not a loopback address.") var controlSecret: String?
    @Flag(help: "Accept configured apps only (AADSTS700016 for others).") var strict = false
    @Flag(name: .customLong("auto-login"), help: "Sign in the login_hint user (or the only user) and consent without showing pages.") var autoLogin = false
    @Option(name: .customLong("header-timeout"), help: "Seconds a client has to send a request's headers.") var headerTimeout: Double = 10
    @Option(name: .customLong("idle-timeout"), help: "Seconds an idle keep-alive connection stays open.") var idleTimeout: Double = 60
    @Option(name: .customLong("body-timeout"), help: "Seconds a client has to send a whole request body once its headers arrived.") var bodyTimeout: Double = 60
    @Option(name: .customLong("max-body"), help: "Largest request body in bytes.") var maxBody: Int = 1 << 20
    @Flag(name: .customLong("quiet"), help: "No access log on stderr.") var quiet = false
    @Option(name: .customLong("event-backend"), help: ArgumentHelp("Kernel readiness API: epoll (Linux), kqueue (macOS; emulated over epoll on Linux, for testing) or poll (both); default: FAKEENTRA_EVENT_BACKEND, else the system's own.", valueName: "backend"))
    var eventBackendName: String?

    /// The option, else the environment (how the live tests run a second time over poll), else native.
    var eventBackend: EventBackend? {
        guard let name = eventBackendName ?? ProcessInfo.processInfo.environment["FAKEENTRA_EVENT_BACKEND"], !name.isEmpty else { return .native }
        return EventBackend(rawValue: name)
    }
    @Option(name: .customLong("state"), help: ArgumentHelp("Keep users, apps, consents, refresh tokens, codes, device codes and sessions in DIR/fakeentra.sqlite3 across restarts (docs/state.md).", valueName: "dir")) var stateDirectory: String?
    @Flag(name: .customLong("state-reset"), help: "Start --state over on purpose: what the folder kept is removed before serving.") var stateReset = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let httpPort, !(0...65535).contains(httpPort) { throw ValidationError("--http-port must be between 0 and 65535") }
        for (option, seconds) in [("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout), ("--body-timeout", bodyTimeout)] {
            if let problem = ServerConfiguration.timeoutProblem(seconds: seconds) { throw ValidationError("\(option) \(seconds) \(problem)") }
        }
        guard let eventBackend, eventBackend.isAvailable else {
            let available = EventBackend.allCases.filter(\.isAvailable).map(\.rawValue).joined(separator: ", ")
            let name = eventBackendName.map { "--event-backend \($0)" } ?? "FAKEENTRA_EVENT_BACKEND=\(ProcessInfo.processInfo.environment["FAKEENTRA_EVENT_BACKEND"] ?? "")"
            throw ValidationError("\(name): not an event backend of this system (\(available))")
        }
        guard maxBody > 0 else { throw ValidationError("--max-body must be positive") }
        // An empty secret would be demanded and never presentable: every control call refused.
        if let controlSecret, controlSecret.trimmingCharacters(in: .whitespaces).isEmpty || !HTTPFieldSyntax.isFieldValue(controlSecret) {
            throw ValidationError("--control-secret must be a non-empty text without control characters (it is sent as Authorization: Bearer <secret>)")
        }
        if controlSecret == nil {
            let (addresses, reachable): ([String], [String])
            do { (addresses, reachable) = try BindAddresses.nonLoopback(host) } catch { throw ValidationError("--host \(host): cannot be resolved (\(error.message))") }
            if !reachable.isEmpty {
                let resolved = addresses == [host] ? "" : " (it resolves to \(addresses.joined(separator: ", ")))"
                throw ValidationError("--control-secret is required when --host is not a loopback address\(resolved): the control API can change users, clocks and scenarios")
            }
        }
        for binding in bindings where !binding.contains("@") {
            throw ValidationError("--bind \(binding): expected NAME@client:<id>, NAME@user:<upn> or NAME@alias:<alias>=<tenant>")
        }
    }

    func run() async throws {
        let startedAt = ContinuousClock.now
        // A broken configuration, scenario file or scenario name is reported before anything is written to disk.
        let configuration = try loadConfiguration()
        let directory = configuration.identity.directory
        // Files named on the command line are checked before serving; the shipped library (checked by
        // the test suite) is read when a scenario is first needed.
        let needsScenarios = !(scenarioDirectories.isEmpty && serverScenarios.isEmpty && bindings.isEmpty && configuration.bindings.isEmpty)
        let eager = needsScenarios ? try loadScenarios(configuration: configuration) : nil
        if let eager { try checkScenarioNames(in: eager, configured: configuration.bindings) }
        let paths = try certificates.ensure()
        if paths.caRegenerated {
            FileHandle.standardError.write(Data("fakeentra: created a new local CA at \(paths.caCertificate); trust it in your clients (fakeentra certs tells how)\n".utf8))
        }
        let signing = try SigningCredential.loadOrCreate(directory: certificates.directory)

        // Flags given on the command line win over the file.
        let service = configuration.makeService(keys: SigningKeyRing(current: signing), strict: strict, autoLogin: autoLogin)
        // Held until the process exits: one server per --state folder.
        var stateLock: StateDirectoryLock?
        if let stateDirectory {
            do {
                stateLock = try StateDirectoryLock(directory: stateDirectory)
                let notes = try SQLiteStateStore(directory: stateDirectory, reset: stateReset).attach(service, reconciling: configFile)
                // The file is the truth for what it names; what the state loses to it is said, never silently.
                for note in notes {
                    FileHandle.standardError.write(Data("fakeentra: --config \(configFile ?? "") and --state \(stateDirectory): \(note)\n".utf8))
                }
            } catch {
                throw StartupFailure(message: "--state \(stateDirectory): \(error)")
            }
        } else if stateReset {
            throw StartupFailure(message: "--state-reset needs --state DIR: it empties that folder's saved state")
        }
        defer { withExtendedLifetime(stateLock) {} }
        let application = FakeEntraApplication(
            service: service, graph: configuration.graph, b2c: configuration.b2c,
            scenarios: eager ?? ((try? ScenarioLibrary.shipped(baseDirectory: directory)) ?? ScenarioLibrary()),
            scenarioOptions: ScenarioEngineOptions(controlSecret: controlSecret),
            console: ConsoleSettings(certificateAuthorityPath: paths.caCertificate), startedAt: startedAt,
            servedHosts: ServedNames.hosts(listeningOn: host, hostnames: certificates.hostnames))
        do {
            try application.activate(configuration.bindings)
        } catch {
            throw StartupFailure(message: "the configuration's bindings have problems:\n\(error.description)")
        }
        try activateScenarios(in: application.engine)

        var listeners = [ListenerConfiguration(host: host, port: port, tls: TLSConfiguration(certificateChainPath: paths.serverCertificate, privateKeyPath: paths.serverKey))]
        if let httpPort { listeners.append(ListenerConfiguration(host: host, port: httpPort)) }
        var limits = HTTPRequestDecoder.Limits()
        limits.maxBodyBytes = maxBody
        let serverConfiguration = ServerConfiguration(
            listeners: listeners, limits: limits,
            headerTimeout: .seconds(headerTimeout), bodyTimeout: .seconds(bodyTimeout), idleTimeout: .seconds(idleTimeout),
            accessLog: quiet ? .disabled : .standardError,
            eventBackend: eventBackend ?? .native
        )
        let server = try HTTPServer(configuration: serverConfiguration, responder: application.responder)
        let bound = try server.start()
        server.stopOnSignals()

        let baseURL = Self.displayURL(bound.first { $0.isTLS })
        let plainURL = bound.first { !$0.isTLS }.map(Self.displayURL)
        // The ready file first: if it cannot be written, nothing has announced readiness yet. The banner
        // (a line per configured user) is composed after it, off the start-to-ready path.
        if let readyFile { try Self.writeAtomically(baseURL + "\n", to: readyFile) }
        let banner = StartupBanner.lines(baseURL: baseURL, plainURL: plainURL, directory: service.currentDirectory, b2c: configuration.b2c, certificateAuthority: paths.caCertificate)
        // One write, so a reader waiting for the URL line gets the whole banner at once.
        FileHandle.standardOutput.write(Data((banner.joined(separator: "\n") + "\n").utf8))

        await server.waitUntilStopped()
    }

    /// The embedded defaults, or the `--config` file; a broken file stops start-up with every problem listed.
    func loadConfiguration() throws -> LoadedConfiguration {
        do {
            return try LoadedConfiguration.load(file: configFile)
        } catch {
            throw StartupFailure(message: "the configuration has problems:\n\(error.description)")
        }
    }

    /// The shipped library plus `--scenarios` folders; a broken file stops start-up with the whole report.
    func loadScenarios(configuration: LoadedConfiguration) throws -> ScenarioLibrary {
        do {
            return try configuration.scenarioLibrary(adding: scenarioDirectories)
        } catch {
            throw StartupFailure(message: "the scenario files have problems:\n\(error.description)")
        }
    }

    func checkScenarioNames(in library: ScenarioLibrary, configured: [ConfiguredBinding]) throws {
        let problems = configured.compactMap { $0.unknownScenarioProblem(in: library) }
        guard problems.isEmpty else {
            throw StartupFailure(message: "the configuration's bindings have problems:\n\(JSONProblems(problems).description)")
        }
        let named = serverScenarios + bindings.map { String($0[..<$0.firstIndex(of: "@")!]) }
        if let unknown = named.first(where: { library[$0] == nil }) {
            throw StartupFailure(message: "no scenario named \"\(unknown)\"; `fakeentra scenarios list` shows them")
        }
    }

    func activateScenarios(in engine: ScenarioEngine) throws {
        do {
            for name in serverScenarios { _ = try engine.bind(scenario: name, to: .server) }
            for binding in bindings {
                let at = binding.firstIndex(of: "@")!
                let target = try BindingTarget(parsing: String(binding[binding.index(after: at)...]))
                _ = try engine.bind(scenario: String(binding[..<at]), to: target)
            }
        } catch {
            throw StartupFailure(message: "\(error)")
        }
    }

    /// A URL a client on this machine can use: wildcard listeners are reached through loopback.
    static func displayURL(_ address: BoundAddress?) -> String {
        guard var address else { return "" }
        if address.host == "0.0.0.0" { address.host = "127.0.0.1" }
        if address.host == "::" { address.host = "::1" }
        return address.description
    }

    /// Readers polling for the file never see it half written.
    static func writeAtomically(_ text: String, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        func failure(_ code: Int32 = errno) -> ValidationError {
            ValidationError("cannot write --ready-file \(path): \(String(cString: strerror(code)))")
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure() }
        let bytes = Array(text.utf8)
        let written = write(fd, bytes, bytes.count)
        let writeError = errno
        close(fd)
        guard written == bytes.count else { throw failure(writeError) }
        guard rename(temporary, path) == 0 else { throw failure() }
    }
}

/// A start-up problem reported as text, with exit status 1 and no stack trace.
struct StartupFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
