#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import B2C
import Conformance
import EntraCrypto
import EntraServer
import FakeEntraApp
import FoundationGaps
import Graph
import ExchangeKernel
import Journal
import IdentityPlatform

/// `fakeentra conform` without `--server`: this process serves the platform on an ephemeral port
/// (TLS with a CA of its own) and starts and judges cases directly.
final class InProcessConformanceHost: ConformanceHost, @unchecked Sendable {
    let application: FakeEntraApplication
    let server: HTTPServer
    let baseURL: String
    let serverAddress: (host: String, port: Int)
    let certificateAuthority: String
    let run: String

    init(certs: String, cases: String?, level: Catalogue.LevelFilter, client: ClientKind) throws {
        // External ID cases are served at their tenant's ciamlogin.com name (through the CONNECT relay).
        let paths = try LocalCertificateAuthority.ensure(directory: certs, hostnames: [ConformanceRelay.servedSuffixWildcard])
        let signing = try SigningCredential.loadOrCreate(directory: certs)
        let service = IdentityService(directory: .embeddedDefault, keys: SigningKeyRing(current: signing))
        application = FakeEntraApplication(service: service, journal: RequestJournal(limits: .init(maximumEntries: 20_000, maximumBytes: 64 * 1024 * 1024)))
        let configuration = ServerConfiguration(
            listeners: [ListenerConfiguration(host: "127.0.0.1", port: 0, tls: TLSConfiguration(certificateChainPath: paths.serverCertificate, privateKeyPath: paths.serverKey))],
            accessLog: .disabled
        )
        server = try HTTPServer(configuration: configuration, responder: application.responder)
        let bound = try server.start()
        guard let address = bound.first else { throw StartupFailure(message: "the conformance server bound no address") }
        baseURL = "https://127.0.0.1:\(address.port)"
        serverAddress = ("127.0.0.1", address.port)
        certificateAuthority = paths.caCertificate
        do {
            run = try application.conformance.createRun(cases: cases, level: level, client: client).id
        } catch {
            throw StartupFailure(message: error.message)
        }
    }

    var serverDescription: String { "\(baseURL) (in-process)" }

    func start(case id: String, mcpServer: String?) throws -> CaseStart {
        do { return try application.conformance.start(run: run, case: id, baseURL: baseURL, mcpServer: mcpServer) } catch { throw StartupFailure(message: error.message) }
    }

    func rollCertificate(case id: String) throws {
        do { try application.conformance.rollCertificate(run: run, case: id) } catch { throw StartupFailure(message: error.message) }
    }

    func finish(case id: String, outcomes: [StepOutcome], stderrTail: String) throws -> CaseResult {
        do { return try application.conformance.finish(run: run, case: id, outcomes: outcomes, stderrTail: stderrTail) } catch { throw StartupFailure(message: error.message) }
    }

    func stop() {
        server.beginShutdown()
        server.waitUntilStoppedBlocking()
    }
}

/// `fakeentra conform --server URL`: cases start and are judged through the running server's
/// `/_fakeentra/conformance/…` endpoints.
struct RemoteConformanceHost: ConformanceHost {
    let client: ControlClient
    let run: String
    let certificateAuthority: String

    init(baseURL: String, certs: String, secret: String?, cases: String?, level: Catalogue.LevelFilter, client kind: ClientKind) throws {
        certificateAuthority = (certs).appendingPathComponent("ca.pem")
        client = try ControlClient(baseURL: baseURL, caPath: certificateAuthority, secret: secret)
        var body: [String: String] = ["level": level.rawValue, "client": kind.rawValue]
        if let cases { body["cases"] = cases }
        let created: RunCreated = try Self.decode(client.send("POST", ConformanceSessions.controlPath + "/runs", query: [], body: Self.encode(body), expecting: 201))
        run = created.run
    }

    var serverDescription: String { client.baseURL }

    var serverAddress: (host: String, port: Int) {
        let components = URLComponents(string: client.baseURL)
        return (components?.host ?? "127.0.0.1", components?.port ?? (components?.scheme == "http" ? 80 : 443))
    }

    func start(case id: String, mcpServer: String?) throws -> CaseStart {
        let body = try mcpServer.map { try Self.encode(["mcpServer": $0]) } ?? "{}"
        return try Self.decode(client.send("POST", "\(ConformanceSessions.controlPath)/runs/\(run)/cases/\(id)/start", query: [], body: body, expecting: 200))
    }

    func rollCertificate(case id: String) throws {
        _ = try client.send("POST", "\(ConformanceSessions.controlPath)/runs/\(run)/cases/\(id)/rollover", query: [], body: "{}", expecting: 200)
    }

    func finish(case id: String, outcomes: [StepOutcome], stderrTail: String) throws -> CaseResult {
        let body = FinishBody(outcomes: outcomes, stderrTail: stderrTail)
        return try Self.decode(client.send("POST", "\(ConformanceSessions.controlPath)/runs/\(run)/cases/\(id)/finish", query: [], body: Self.encode(body), expecting: 200))
    }

    /// Each outcome as the control API reads it: the adapter's reply members, what the suite observed and when.
    struct FinishBody: Encodable {
        var outcomes: [StepOutcome]
        var stderrTail: String
    }

    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try ConformanceJSON.encoder().encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ text: String) throws -> T {
        do {
            return try ConformanceJSON.decoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw StartupFailure(message: "the server's conformance answer could not be read: \(error)")
        }
    }
}
