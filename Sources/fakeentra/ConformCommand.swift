#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ExchangeKernel
import ArgumentParser
import Conformance
import EntraCrypto
import FoundationGaps
import LocatedJSON

struct ConformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Score a client against the conformance catalogue (docs/conformance.md).",
        discussion: """
            Runs CMD once per case through /bin/sh with the adapter protocol (version \(JourneyStep.protocolVersion)): the case's \
            settings in FAKEENTRA_* variables, steps as JSON lines on stdin, one JSON reply per step on \
            stdout. With --credential, the client is a confidential web app and the run takes the cases \
            that judge one. Exit status 0 when no required case failed (with --strict, no warning either) and no \
            baseline entry is stale.
            """
    )

    @Option(name: .customLong("client"), help: ArgumentHelp("The adapter command, run through /bin/sh once per case.", valueName: "cmd")) var client: String?
    @Option(name: .customLong("credential"), help: ArgumentHelp("The client is a confidential web app authenticating with a client secret or a certificate (FAKEENTRA_CLIENT_SECRET, FAKEENTRA_CLIENT_CERTIFICATE); without it, a public client.", valueName: "secret|certificate")) var credential: String?
    @Flag(name: .customLong("spa"), help: "The client is a single-page app (MSAL.js): its redirect URI is registered as \"Single-page application\", so the browser redeems cross-origin.") var spa = false
    @Option(name: .customLong("cases"), help: ArgumentHelp("Case ids to run: a glob (`resilience.*`), or several separated by commas.", valueName: "glob")) var cases: String?
    @Option(name: .customLong("level"), help: "required: the required cases only; all: recommended ones too.") var level: String = "all"
    @Option(name: .customLong("jobs"), help: "Cases run in parallel.") var jobs: Int = 4
    @Option(name: .customLong("junit"), help: ArgumentHelp("Write a JUnit XML report.", valueName: "file")) var junitPath: String?
    @Option(name: .customLong("json"), help: ArgumentHelp("Write the JSON report (docs/conformance-report.schema.json).", valueName: "file")) var jsonPath: String?
    @Option(name: .customLong("html"), help: ArgumentHelp("Write the HTML report.", valueName: "file")) var htmlPath: String?
    @Option(name: .customLong("compare"), help: ArgumentHelp("An earlier run's --json report: show what changed since (terminal and HTML).", valueName: "file")) var comparePath: String?
    @Option(name: .customLong("baseline"), help: ArgumentHelp("Expected failures (JSON, docs/conformance.md#baseline).", valueName: "file")) var baselinePath: String?
    @Flag(name: .customLong("strict"), help: "Warnings (recommended cases that failed) fail the run too.") var strict = false
    @Option(name: .customLong("server"), help: ArgumentHelp("Use this running server (its control API) instead of starting one.", valueName: "url")) var server: String?
    @Option(name: .customLong("certs"), help: "With --server: the directory of its CA (ca.pem). Without: where the own server's CA goes (default: a temporary directory).") var certs: String?
    @Option(name: .customLong("control-secret"), help: "With --server: its control secret (default: $FAKEENTRA_CONTROL_SECRET).") var controlSecret: String?
    @Option(name: .customLong("browser"), help: ArgumentHelp("FAKEENTRA_BROWSER for the adapters (default: this binary's `browse`, which signs in as the case's user).", valueName: "cmd")) var browser: String?
    @Flag(name: .customLong("list"), help: "List the cases instead of running them.") var list = false
    @Flag(name: .customLong("markdown"), help: "With --list: the catalogue as the Markdown of docs/conformance.md.") var markdown = false

    func validate() throws {
        guard Catalogue.LevelFilter(rawValue: level) != nil else { throw ValidationError("--level must be required or all, not \"\(level)\"") }
        if let credential, ClientKind(rawValue: credential).map(\.isConfidential) != true {
            throw ValidationError("--credential must be secret or certificate, not \"\(credential)\"")
        }
        if markdown && !list { throw ValidationError("--markdown goes with --list") }
        if spa && credential != nil { throw ValidationError("--spa and --credential: a single-page app is a public client") }
        if list { return }
        guard let client, !client.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--client CMD is required: the adapter command run once per case (docs/conformance.md#adapters)")
        }
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64") }
        if let cases, Catalogue.select(glob: cases, level: .all, client: clientKind).isEmpty {
            throw ValidationError("--cases \(cases) matches no case for a \(clientKind.title); `fakeentra conform --list` shows them")
        }
        if let server {
            guard let url = URLComponents(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ValidationError("--server must be an http(s) URL, not \"\(server)\"")
            }
        }
        if let baselinePath, !FileManager.default.isReadableFile(atPath: baselinePath) { throw ValidationError("--baseline \(baselinePath): no such readable file") }
    }

    var clientKind: ClientKind { spa ? .singlePageApp : credential.flatMap(ClientKind.init(rawValue:)) ?? .publicClient }

    func run() throws {
        let filter = Catalogue.LevelFilter(rawValue: level)!
        let selected = Catalogue.select(glob: cases, level: filter, client: list && credential == nil && !spa ? nil : clientKind)
        if list {
            print(markdown ? CatalogueMarkdown.render(Catalogue.all) : CatalogueMarkdown.listing(selected), terminator: "")
            return
        }
        let baseline = try loadBaseline()
        // Read before the run: a report that cannot be compared is said at once, not after minutes of cases.
        let previous: RunComparison.PreviousRun?
        do throws(RunComparison.ReadError) { previous = try comparePath.map(RunComparison.read) } catch { throw failure(error.description) }
        // Cases' private keys pass through here: a fresh directory only this user can enter.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("fakeentra-conform-" + UUID().uuidString.lowercased()).path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        let host: any ConformanceHost
        var ownServer: InProcessConformanceHost?
        if let server {
            host = try RemoteConformanceHost(baseURL: server, certs: certs ?? CertificateDirectory.defaultPath(), secret: controlSecret ?? ProcessInfo.processInfo.environment["FAKEENTRA_CONTROL_SECRET"],
                                             cases: cases, level: filter, client: clientKind)
        } else {
            let started = try InProcessConformanceHost(certs: certs ?? (scratch).appendingPathComponent("certs"), cases: cases, level: filter, client: clientKind)
            ownServer = started
            host = started
        }
        defer { ownServer?.stop() }

        // The user and password reach browse as FAKEENTRA_USERNAME and FAKEENTRA_PASSWORD, out of `ps`.
        let browserCommand = browser ?? [Self.executablePath(), "browse", "--ca", host.certificateAuthority].map(Shell.quote).joined(separator: " ")
        var runner = ConformanceRunner(host: host, command: client!, browser: browserCommand, jobs: jobs, scratch: scratch)
        if selected.contains(where: \.externalID) {
            runner.relay = try ConformanceRelay(server: host.serverAddress, certificateAuthority: host.certificateAuthority)
        }
        defer { runner.relay?.stop() }
        let progress = ProgressLine(enabled: isatty(STDERR_FILENO) == 1)
        let startedAt = Date()
        var results = runner.run(selected) { done, total, result in progress.show("[\(done)/\(total)] \(result.caseID): \(result.verdict.rawValue)") }
        progress.clear()
        if let baseline { results = baseline.apply(to: results) }
        let report = ConformanceReport(tool: "fakeentra conform", client: client!, clientKind: clientKind, server: host.serverDescription,
                                       startedAt: startedAt, finishedAt: Date(), strict: strict, cases: results)
        print(report.table(width: Self.terminalWidth()), terminator: "")
        let comparison = previous.map { RunComparison(previous: $0, current: report) }
        if let comparison { print(comparison.table(), terminator: "") }
        try write(report.junit(), to: junitPath)
        try write(report.json(), to: jsonPath)
        try write(report.html(comparison: comparison), to: htmlPath)
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }

    func loadBaseline() throws -> Baseline? {
        guard let baselinePath else { return nil }
        guard let data = FileManager.default.contents(atPath: baselinePath) else { throw failure("cannot read --baseline \(baselinePath)") }
        switch Baseline.parse(Array(data), file: baselinePath) {
        case .success(let baseline): return baseline
        case .failure(let problems): throw failure("the baseline has problems:\n\(problems.description)")
        }
    }

    func write(_ text: String, to path: String?) throws {
        guard let path else { return }
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw failure("cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// This binary, for `FAKEENTRA_BROWSER` (`fakeentra browse`).
    static func executablePath() -> String {
        #if os(Linux)
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return resolved }
        #endif
        return ChildProcess.currentExecutablePath ?? CommandLine.arguments[0]
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 40 { return Int(size.ws_col) }
        return 160
    }
}

/// One line on stderr rewritten in place while cases finish (TTY only).
final class ProgressLine: Sendable {
    let enabled: Bool
    init(enabled: Bool) { self.enabled = enabled }

    func show(_ text: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
