import EntraCrypto
import EntraHTTP
import EntraServer
import FakeEntraApp
import Foundation
import HeadlessBrowser
import ExchangeKernel
import IdentityPlatform
import Console
import Scenarios
import LocatedJSON

/// FakeEntra running inside the test process: the same application `fakeentra serve` runs, started on
/// port 0 and ready when `start` returns.
///
///     let server = try await FakeEntraServer.start()
///     try await server.test(.live) { client in
///         let metadata = try await client.execute(.get, "/common/v2.0/.well-known/openid-configuration")
///         #expect(metadata.status == 200)
///     }
///     await server.shutdown()
///
/// Prefer `withFakeEntra { server in … }`, which shuts the server down however the body ends.
public final class FakeEntraServer: Sendable {
    public let configuration: FakeEntraConfiguration
    /// `https://127.0.0.1:<port>` or `http://127.0.0.1:<port>` for a live listener; for `.none`,
    /// `https://localhost`, the origin `.router` clients present (tokens and pages name it).
    public let baseURL: String
    /// The listener's port; nil for `Listener.none`.
    public let port: Int?
    /// The PEM file of the generated local CA (trust it in a client under test); nil without TLS.
    public let caCertificatePath: String?

    let application: FakeEntraApplication
    private let server: HTTPServer?
    private let liveClient: BlockingHTTPClient?
    private let temporaryDirectory: String?

    private init(configuration: FakeEntraConfiguration, application: FakeEntraApplication, baseURL: String, port: Int?,
                 caCertificatePath: String?, server: HTTPServer?, liveClient: BlockingHTTPClient?, temporaryDirectory: String?) {
        self.configuration = configuration
        self.application = application
        self.baseURL = baseURL
        self.port = port
        self.caCertificatePath = caCertificatePath
        self.server = server
        self.liveClient = liveClient
        self.temporaryDirectory = temporaryDirectory
    }

    /// Starts FakeEntra in this process. Returns once the listener accepts connections; a broken
    /// configuration or scenario file throws with every problem listed.
    public static func start(_ configuration: FakeEntraConfiguration = FakeEntraConfiguration()) async throws -> FakeEntraServer {
        // Key generation and file reading are slow and blocking: keep them off the cooperative pool.
        try await offThePool { try startBlocking(configuration) }
    }

    private static func startBlocking(_ configuration: FakeEntraConfiguration) throws -> FakeEntraServer {
        let loaded: LoadedConfiguration
        do { loaded = try LoadedConfiguration.load(file: configuration.configFile) } catch {
            throw FakeEntraTestingError("the configuration has problems:\n\(error.description)")
        }
        let scenarios: ScenarioLibraryLoader
        if configuration.scenarioDirectories.isEmpty {
            scenarios = .lazy(loaded)
        } else {
            do { scenarios = .eager(try loaded.scenarioLibrary(adding: configuration.scenarioDirectories)) } catch {
                throw FakeEntraTestingError("the scenario files have problems:\n\(error)")
            }
        }
        let clock = configuration.frozenAt.map { VirtualClock(frozenAt: $0) } ?? VirtualClock()
        // One CA and key set per user for every fixture (generated once: RSA key generation is what a
        // fresh folder costs); a temporary one where the user's data folder cannot be written.
        var temporaryDirectory: String?
        var keys: (signing: SigningCredential, certificates: CertificatePaths?)
        do {
            keys = try Self.keys(in: CertificateDirectory.fixturesPath(), tls: configuration.listener == .tls)
        } catch {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fakeentra-testing-\(UUID().uuidString)").path
            temporaryDirectory = directory
            keys = try Self.keys(in: directory, tls: configuration.listener == .tls)
        }
        let certificates = keys.certificates
        let service = loaded.makeService(keys: SigningKeyRing(current: keys.signing), clock: clock,
                                         strict: configuration.strict, autoLogin: configuration.autoLogin)
        // The listener answers only the names its certificate has, as `serve` does (a page whose host name
        // was rebound to 127.0.0.1 must not drive the control API); `.router` requests name any host.
        let application = FakeEntraApplication(
            service: service, graph: loaded.graph, b2c: loaded.b2c, scenarios: scenarios.library,
            scenarioOptions: ScenarioEngineOptions(controlSecret: configuration.controlSecret),
            console: ConsoleSettings(certificateAuthorityPath: certificates?.caCertificate),
            servedHosts: ServedHosts(names: LocalServerNames.alwaysIncluded, primary: "127.0.0.1"))
        do { try application.activate(loaded.bindings) } catch {
            throw FakeEntraTestingError("the configuration's bindings have problems:\n\(error.description)")
        }

        guard configuration.listener != .none else {
            return FakeEntraServer(configuration: configuration, application: application, baseURL: "https://localhost", port: nil,
                                   caCertificatePath: nil, server: nil, liveClient: nil, temporaryDirectory: temporaryDirectory)
        }
        let listener = ListenerConfiguration(
            host: "127.0.0.1", port: 0,
            tls: certificates.map { TLSConfiguration(certificateChainPath: $0.serverCertificate, privateKeyPath: $0.serverKey) })
        let server = try HTTPServer(configuration: ServerConfiguration(listeners: [listener], accessLog: .disabled, eventBackend: try eventBackend()),
                                    responder: application.responder)
        guard let bound = try server.start().first else { throw FakeEntraTestingError("the server bound no listener") }
        let trust = try certificates.map { try TLSClientTrust(caFile: $0.caCertificate) }
        return FakeEntraServer(configuration: configuration, application: application,
                               baseURL: "\(certificates == nil ? "http" : "https")://127.0.0.1:\(bound.port)", port: bound.port,
                               caCertificatePath: certificates?.caCertificate, server: server,
                               liveClient: BlockingHTTPClient(trust: trust, timeoutSeconds: 30), temporaryDirectory: temporaryDirectory)
    }

    private static func keys(in directory: String, tls: Bool) throws -> (signing: SigningCredential, certificates: CertificatePaths?) {
        (try SigningCredential.loadOrCreate(directory: directory), tls ? try LocalCertificateAuthority.ensure(directory: directory, hostnames: []) : nil)
    }

    /// The native event backend, or the one `FAKEENTRA_EVENT_BACKEND` names, as for `fakeentra serve`
    /// (how the live tests run a second time over poll(2), the backend a Mac shares with Linux).
    private static func eventBackend() throws -> EventBackend {
        guard let name = ProcessInfo.processInfo.environment["FAKEENTRA_EVENT_BACKEND"], !name.isEmpty else { return .native }
        guard let backend = EventBackend(rawValue: name), backend.isAvailable else {
            throw FakeEntraTestingError("FAKEENTRA_EVENT_BACKEND=\(name): not an event backend of this system (\(EventBackend.allCases.filter(\.isAvailable).map(\.rawValue).joined(separator: ", ")))")
        }
        return backend
    }

    /// Stops accepting, finishes the exchanges in flight, and removes a temporary CA directory if one was made.
    public func shutdown() async {
        await server?.shutdown()
        if let temporaryDirectory { try? FileManager.default.removeItem(atPath: temporaryDirectory) }
    }

    /// A client for `mode`: `.router` calls the responder in process, `.live` goes over the socket.
    /// `.live` on a server started with `Listener.none` throws.
    public func client(_ mode: FakeEntraTestingMode) throws -> FakeEntraClient {
        guard let origin = BrowserURL(baseURL) else { throw FakeEntraTestingError("not a base URL: \(baseURL)") }
        switch mode {
        case .router:
            return FakeEntraClient(mode: mode, origin: origin, transport: RouterTransport(responder: application.responder, origin: origin),
                                   controlSecret: configuration.controlSecret)
        case .live:
            guard let liveClient else { throw FakeEntraTestingError("this server has no listener (Listener.none): use .router, or start it with .tls or .plainHTTP") }
            return FakeEntraClient(mode: mode, origin: origin, transport: LiveTransport(client: liveClient), controlSecret: configuration.controlSecret)
        }
    }

    /// Runs `body` with a client for `mode`: write a test once, run it `.router` and `.live`.
    ///
    ///     try await server.test(.router) { client in
    ///         let token = try await client.execute(.post, "/common/oauth2/v2.0/token", form: ["grant_type": "client_credentials"])
    ///     }
    public func test<Value: Sendable>(_ mode: FakeEntraTestingMode, _ body: (FakeEntraClient) async throws -> Value) async throws -> Value {
        try await body(try client(mode))
    }
}

/// Starts a server, runs `body`, and shuts the server down, also when `body` throws.
///
///     @Test func apiAcceptsAMintedToken() async throws {
///         try await withFakeEntra { server in
///             try await server.test(.live) { client in … }
///         }
///     }
public func withFakeEntra<Value: Sendable>(_ configuration: FakeEntraConfiguration = FakeEntraConfiguration(),
                                           _ body: (FakeEntraServer) async throws -> Value) async throws -> Value {
    let server = try await FakeEntraServer.start(configuration)
    do {
        let value = try await body(server)
        await server.shutdown()
        return value
    } catch {
        await server.shutdown()
        throw error
    }
}

/// The shipped scenarios are read when a scenario is first needed (as in `serve`); folders of the
/// test's own are read, and checked, at start.
private enum ScenarioLibraryLoader {
    case lazy(LoadedConfiguration)
    case eager(ScenarioLibrary)

    var library: ScenarioLibrary {
        switch self {
        case .lazy(let loaded): (try? loaded.scenarioLibrary(adding: [])) ?? ScenarioLibrary()
        case .eager(let library): library
        }
    }
}
