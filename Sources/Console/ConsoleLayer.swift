package import B2C
package import ControlPlane
import EntraCrypto
package import EntraHTTP
import FoundationGaps
package import ExchangeKernel
package import Journal
import IdentityPlatform
import Scenarios

/// What the console shows besides the live state: the local CA people must trust.
package struct ConsoleSettings: Sendable {
    /// Path of `ca.pem`, for the trust instructions and the download; nil: no CA section (tests).
    package var certificateAuthorityPath: String?

    package init(certificateAuthorityPath: String? = nil) {
        self.certificateAuthorityPath = certificateAuthorityPath
    }
}

/// The web console at `/` and `/_fakeentra/console/…`, for people. It sees every other exchange go by
/// and notes the JWTs it carries in the ledger, so the console can decode what the journal redacts.
package struct ConsoleLayer: ExchangeLayer {
    static let base = RouteResolver.consolePath

    let console: Console

    /// `control`: the control plane whose access rule the pages follow and whose commands their forms run.
    package init(control: ControlPlane, journal: RequestJournal, b2c: B2CConfiguration?, settings: ConsoleSettings = .init()) {
        console = Console(engine: control.commands.engine, journal: journal, commands: control.commands, b2c: b2c,
                          certificateAuthorityPath: settings.certificateAuthorityPath, access: control.access, formGuard: FormGuard())
    }

    package func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        switch context.route {
        case .console:
            return console.respond(to: request, context: context.connection, next: next)
        case .control:
            return next(request, context)
        default:
            let response = next(request, context)
            console.ledger.observe(request, response, receipt: context.receipt.current)
            return response
        }
    }
}

/// The local CA as the console offers it: the PEM to download and the commands that trust it.
struct CertificateAuthorityInfo: Sendable {
    var path: String
    var pem: String
    var instructions: String

    init?(path: String) {
        guard let bytes = FileManager.default.contents(atPath: path) else { return nil }
        self.path = path
        pem = String(decoding: bytes, as: UTF8.self)
        instructions = LocalCertificateAuthority.trustInstructions(caPath: path)
    }
}

/// The console's state and routes. Reads go straight to the engine, the journal and the worlds; changes
/// (bind, unbind, reset, clock, mint) are the control plane's typed commands, so they pass its checks.
struct Console: Sendable {
    let engine: ScenarioEngine
    let journal: RequestJournal
    let commands: ControlCommands
    let b2c: B2CConfiguration?
    /// Read when a page shows it, not at start-up (the certificate's parsing is about 4 % of start-up's
    /// instructions, and most runs never open the console).
    let certificateAuthorityPath: String?
    let access: ControlAccess
    let formGuard: FormGuard
    let tryIt = TryItSignIns()

    var ledger: TokenLedger { commands.ledger }

    /// Every world: the default one, then the bindings in the order they were made.
    var worlds: [ScenarioWorld] {
        ([engine.world(binding: "default")] + engine.bindings.map { engine.world(binding: $0.id) }).compactMap { $0 }
    }

    /// The keys any world signs or signed with (a scenario can roll a world's key).
    var signingKeys: [SigningCredential] {
        var seen = Set<String>()
        return worlds.flatMap { $0.service.keys.published(at: $0.service.clock.now()) }.filter { seen.insert($0.keyID).inserted }
    }

    var certificateAuthority: CertificateAuthorityInfo? { certificateAuthorityPath.flatMap(CertificateAuthorityInfo.init(path:)) }

    var now: Date { engine.world(binding: "default")?.service.clock.now() ?? Date() }

    /// `next`: the layers below, where the "Try it" sign-in sends its token request and Graph call.
    func respond(to request: HTTPRequest, context: ConnectionFacts, next: ExchangeStack.Next) -> HTTPResponse {
        let path = request.rawPath
        let sub = path == "/" || path == ConsoleLayer.base ? "" : String(path.dropFirst(ConsoleLayer.base.count + 1))
        let page = ConsolePage(console: self, request: request, context: context, next: next)
        switch access.decide(request, context: context, acceptCookie: true) {
        case .allowed: break
        case .loopbackOnly: return page.refusal()
        case .needsSecret:
            if sub == "login", request.method == "POST" { return page.signIn() }
            return page.signInForm(status: .unauthorized, failed: false)
        }
        let segments = sub.split(separator: "/").map(String.init)
        switch (request.method, segments.first, segments.count) {
        case ("GET", nil, _), ("HEAD", nil, _): return page.overview()
        case ("GET", "directory", 1): return page.directory()
        case ("GET", "journal", 1): return page.journalList()
        case ("GET", "journal", 2) where segments[1] == "rows": return page.journalRows()
        case ("GET", "journal", 2): return page.journalEntry(id: segments[1])
        case ("GET", "scenarios", 1): return page.scenarios(alert: nil, status: .ok)
        case ("GET", "ca.pem", 1): return page.certificateDownload()
        case ("GET", "tokens", 1), ("POST", "tokens", 1): return page.mintPage()
        case ("POST", "login", 1): return page.signIn()
        case ("GET", "try", 1): return page.tryItStart()
        case ("GET", "try", 2) where segments[1] == "done": return page.tryItDone()
        case ("POST", "bind", 1), ("POST", "unbind", 1), ("POST", "reset", 1), ("POST", "clock", 1):
            return page.action(segments[0])
        default: return page.notFound()
        }
    }
}
