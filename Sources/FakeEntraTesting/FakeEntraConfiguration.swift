public import Foundation

/// How a `FakeEntraServer` starts: which directory it serves, how it listens, and how its clock runs.
///
///     var configuration = FakeEntraConfiguration()
///     configuration.listener = .plainHTTP
///     configuration.frozenAt = Date(timeIntervalSince1970: 1_900_000_000)
///     let server = try await FakeEntraServer.start(configuration)
public struct FakeEntraConfiguration: Sendable {
    /// Where the server accepts connections. Every listener is on 127.0.0.1 and a port the system picks.
    public enum Listener: Sendable, Equatable {
        /// HTTPS with a certificate from a local CA generated in a temporary directory
        /// (`FakeEntraServer.caCertificatePath`), as `fakeentra serve` does.
        case tls
        /// Plain HTTP: nothing to trust, for clients that cannot be given a CA.
        case plainHTTP
        /// No socket: only `.router` clients can reach the server (the fastest start; no keys but the
        /// token-signing one are generated).
        case none
    }

    /// A `--config` JSON file (docs/schemas/config.schema.json); nil serves the embedded defaults
    /// (Contoso's users, apps and Graph data, the B2C tenant).
    public var configFile: String?
    public var listener: Listener = .tls
    /// nil: the virtual clock follows real time (tokens validate in code that reads the system clock);
    /// an instant: the clock stands still there until a test moves it.
    public var frozenAt: Date?
    /// Only configured apps may sign in (AADSTS700016 for others), as `serve --strict`.
    public var strict = false
    /// Sign in the `login_hint` user (or the only user) without showing pages, as `serve --auto-login`.
    public var autoLogin = false
    /// The bearer secret the control API demands; the clients of `FakeEntraServer.test` present it.
    public var controlSecret: String?
    /// Folders of your own scenario files, added to the shipped library.
    public var scenarioDirectories: [String] = []

    public init(configFile: String? = nil, listener: Listener = .tls, frozenAt: Date? = nil) {
        self.configFile = configFile
        self.listener = listener
        self.frozenAt = frozenAt
    }
}
