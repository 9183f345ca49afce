#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import EntraCrypto
import EntraHTTP
import EntraServer
import FoundationGaps
import HeadlessBrowser

struct BrowseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Complete FakeEntra's sign-in pages for an authorize URL headlessly and deliver the result to the app.",
        discussion: """
            Follows redirects and keeps cookies, fills each page's form (user name, password, one-time codes), \
            ticks every consent box, picks the user's account tile, and when the next stop is the app's \
            redirect URI delivers it there: a GET with the query, or the form_post page's POST. With \
            --user-code, the URL is the device flow's verification URI: it types the code there and signs \
            in, ending on the service's last page (the device learns the outcome by polling).

            By default it returns at once and finishes in a detached background process, so it can be \
            Python's BROWSER (webbrowser waits for the command, while MSAL only listens after it returns). \
            --foreground does the work in this process and exits with: 0 delivered, 64 bad arguments, \
            3 server unreachable or TLS failure, 4 stuck on a page, 5 the app's redirect listener unreachable. \
            Whatever stops it, it tells the app at once (an access_denied error at its redirect URI, with \
            the reason), so the app does not wait for its own timeout. Without --ca or FAKEENTRA_CA, the CA \
            of the user's certificate folder is trusted.
            """
    )

    @Argument(help: "The /authorize URL the app opens (it names the redirect_uri to deliver to), or with --user-code the device login URL.") var url: String
    @Option(help: ArgumentHelp("The device flow's user code: the URL is then its verification URI (/devicelogin).", valueName: "code")) var userCode: String?
    @Option(help: "The user to sign in as (default: $FAKEENTRA_USERNAME).") var username: String?
    @Option(help: "The user's password (default: $FAKEENTRA_PASSWORD; the environment keeps it out of `ps`).") var password: String?
    @Option(help: ArgumentHelp("Another user who may sign in: when the URL's login_hint names them, they sign in instead (repeatable; also $FAKEENTRA_SECOND_USERNAME with $FAKEENTRA_SECOND_PASSWORD, which keep the password out of `ps`).", valueName: "user=password")) var otherUser: [String] = []
    @Option(help: ArgumentHelp("The CA certificate to trust for https (default: $FAKEENTRA_CA).", valueName: "ca.pem")) var ca: String?
    @Option(help: "Seconds to wait for each answer (default: $FAKEENTRA_STEP_TIMEOUT, else 10).") var timeout: Int?
    @Option(help: ArgumentHelp("Append one line per request and the outcome to this file.", valueName: "file")) var log: String?
    @Flag(help: "Do the sign-in in this process and exit with its outcome, instead of returning at once.") var foreground = false

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let start = BrowserURL(url)
        var others: [(user: String, password: String)] = []
        var malformedOthers: [String] = []
        for entry in otherUser {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty { others.append((String(parts[0]), String(parts[1]))) } else { malformedOthers.append(entry) }
        }
        if let second = environment["FAKEENTRA_SECOND_USERNAME"], let password = environment["FAKEENTRA_SECOND_PASSWORD"] { others.append((second, password)) }
        // The app names who signs in with login_hint (an account switch); otherwise, the user given.
        let hinted = start?.query["login_hint"].flatMap { hint in others.first { $0.user.caseInsensitiveCompare(hint) == .orderedSame } }
        let username = hinted?.user ?? username ?? environment["FAKEENTRA_USERNAME"], password = hinted?.password ?? password ?? environment["FAKEENTRA_PASSWORD"]
        // The CA of the user's certificate folder when none is named: where `serve` keeps it by default.
        let defaultCA = CertificateDirectory.defaultPath(environment: environment) + "/ca.pem"
        let caPath = ca ?? environment["FAKEENTRA_CA"] ?? (FileManager.default.isReadableFile(atPath: defaultCA) ? defaultCA : nil)
        // Every missing piece at once: each one found later would cost the app another full timeout.
        var problems: [String] = []
        if let malformed = malformedOthers.first { problems.append("--other-user \(malformed): give user=password") }
        if username == nil { problems.append("no user: give --username or FAKEENTRA_USERNAME") }
        if password == nil { problems.append("no password: give --password or FAKEENTRA_PASSWORD") }
        if start == nil || (start?.query["redirect_uri"].flatMap(BrowserURL.init) == nil && userCode == nil) {
            problems.append(BrowseError.badStartURL(url).description)
        }
        if let caPath, !FileManager.default.isReadableFile(atPath: caPath) { problems.append("no CA certificate at \(caPath)") }
        if start?.scheme == "https", caPath == nil {
            problems.append("an https URL needs the server's CA: give --ca or FAKEENTRA_CA (none at \(defaultCA))")
        }
        guard let username, let password, problems.isEmpty else {
            // The app only answers on its redirect listener once BROWSER has returned: a detached child
            // (which finds the same problems) tells it, while this process reports them and exits.
            if foreground {
                let walker = SignInWalker(transport: NetworkTransport(client: BlockingHTTPClient(trust: nil, timeoutSeconds: timeout ?? 10, httpsProxy: HTTPSProxy(environment: environment))),
                                          credentials: SignInCredentials(username: "", password: ""))
                _ = walker.tellTheApp(problems.joined(separator: "; "), startedAt: url)
            } else {
                try? BackgroundProcess.detach(arguments: Array(CommandLine.arguments.dropFirst()) + ["--foreground"], output: log)
            }
            throw ValidationError(problems.joined(separator: "\n"))
        }
        guard foreground else {
            var arguments = Array(CommandLine.arguments.dropFirst()) + ["--foreground"]
            if ca == nil, let caPath { arguments += ["--ca", caPath] }
            try BackgroundProcess.detach(arguments: arguments, output: log)
            return
        }
        signal(SIGPIPE, SIG_IGN)
        let seconds = timeout ?? environment["FAKEENTRA_STEP_TIMEOUT"].flatMap { Double($0) }.map { max(1, Int($0.rounded(.up))) } ?? 10
        let logFile = log.flatMap { FileHandle(forWritingAtPath: $0) ?? Self.create($0) }
        logFile?.seekToEndOfFile()
        func note(_ line: String) { logFile?.write(Data("browse: \(line)\n".utf8)) }
        // Without a usable CA the app is still told, over its plain loopback redirect listener.
        var walker = SignInWalker(transport: NetworkTransport(client: BlockingHTTPClient(trust: nil, timeoutSeconds: seconds, httpsProxy: HTTPSProxy(environment: environment))),
                                  credentials: SignInCredentials(username: username, password: password, userCode: userCode))
        walker.log = note
        do {
            let trust = try caPath.map { path throws in try TLSClientTrust(caFile: path) }
            walker.transport = NetworkTransport(client: BlockingHTTPClient(trust: trust, timeoutSeconds: seconds, httpsProxy: HTTPSProxy(environment: environment)))
            let delivery = try walker.walk(url)
            note("delivered \(delivery.form.names.joined(separator: ",")) by \(delivery.method) to \(delivery.url.path) after \(delivery.pagesWalked) pages; the app answered \(delivery.appStatus)")
        } catch {
            note("FAILED: \(error)")
            FileHandle.standardError.write(Data("fakeentra browse: \(error)\n".utf8))
            let browseError = error as? BrowseError
            if case .delivery? = browseError {} else if let told = walker.tellTheApp("\(error)", startedAt: url) {
                note("told the app at \(told.url.path) (it answered \(told.appStatus))")
            }
            throw ExitCode(browseError?.exitCode ?? 3)
        }
    }

    private static func create(_ path: String) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }
}

/// The walker's requests over sockets: https to the server with the given CA, plain http only to a
/// loopback redirect listener (a user's password never leaves the machine unencrypted).
struct NetworkTransport: BrowserTransport {
    let client: BlockingHTTPClient

    func send(_ request: BrowserRequest) throws -> HTTPResponse {
        let secure = request.url.scheme == "https"
        guard secure || ["localhost", "127.0.0.1", "::1"].contains(request.url.host) else {
            throw HTTPTransportRefusal(url: request.url.description)
        }
        var headers: [(String, String)] = [("User-Agent", "fakeentra-browse"), ("Accept", "text/html")]
        headers += request.headers.fields.map { ($0.name, $0.value) }
        return try client.exchange(secure: secure, host: request.url.host, port: request.url.port, method: request.method,
                                   target: request.url.target, headers: headers, body: request.body)
    }
}

struct HTTPTransportRefusal: Error, CustomStringConvertible {
    let url: String
    var description: String { "refusing plain http to a host that is not loopback: \(url)" }
}
