import Foundation
import Synchronization
import Testing

/// The real `fakeentra` binary, started on port 0 with its own certificate directory.
///
///     let server = try await LiveServer.start()
///     defer { server.stop() }
///     let health = try await curl(server, "/_fakeentra/health")
final class LiveServer: Sendable {
    let process: ChildProcess
    /// `https://127.0.0.1:<port>`, read from the first stdout line.
    let url: String
    let port: Int
    /// `http://127.0.0.1:<port>` when started with `--http-port`.
    let plainURL: String?
    let plainPort: Int?
    let certs: String
    let readyFile: String
    private let slot: ServerSlots.Slot

    var caPath: String { certs + "/ca.pem" }
    var stdout: String { process.snapshot.out }
    var stderr: String { process.snapshot.err }

    private init(process: ChildProcess, url: String, plainURL: String?, certs: String, readyFile: String, slot: ServerSlots.Slot) {
        self.slot = slot
        self.process = process
        self.url = url
        self.port = Self.port(of: url) ?? 0
        self.plainURL = plainURL
        self.plainPort = plainURL.flatMap(Self.port(of:))
        self.certs = certs
        self.readyFile = readyFile
    }

    /// Starts the binary and returns once it printed its base URL. `certs`: reuse a directory (a
    /// second start); nil gives a temporary copy of keys made once per test run (`freshKeys`: an
    /// empty directory, so the binary generates everything). Extra `arguments` follow the defaults.
    static func start(certs: String? = nil, freshKeys: Bool = false, plainHTTP: Bool = false, _ arguments: [String] = []) async throws -> LiveServer {
        let certs = if let certs { certs } else if freshKeys { try temporaryDirectory() } else { try await CertificateTemplate.copy() }
        let readyFile = try temporaryDirectory() + "/ready"
        var all = ["serve", "--port", "0", "--certs", certs, "--ready-file", readyFile]
        if plainHTTP { all += ["--http-port", "0"] }
        let slot = await ServerSlots.shared.acquire()
        let process: ChildProcess
        do {
            process = try ChildProcess(try fakeentraBinary(), all + arguments)
        } catch {
            slot.release()
            throw error
        }
        // The banner is written in one go, so a complete first line means the server accepts connections.
        let snapshot = await process.wait(timeout: .seconds(60)) { $0.out.contains("\n") || $0.hasExited }
        guard !snapshot.hasExited, let first = snapshot.out.split(separator: "\n").first.map(String.init) else {
            process.kill()
            slot.release()
            throw LiveTestFailure("fakeentra did not start (status \(snapshot.status.map(String.init) ?? "none")):\n\(snapshot.out)\n\(snapshot.err)")
        }
        let plainURL = plainHTTP ? snapshot.out.split(separator: "\n").lazy.compactMap { line -> String? in
            guard let range = line.range(of: "Plain HTTP also at ") else { return nil }
            return String(line[range.upperBound...])
        }.first : nil
        return LiveServer(process: process, url: first, plainURL: plainURL, certs: certs, readyFile: readyFile, slot: slot)
    }

    /// SIGKILL if still running. Safe to call more than once.
    func stop() {
        process.kill()
        slot.release()
    }

    /// Sends `signal` and waits for the exit (bounded).
    func terminate(_ signal: Int32 = SIGTERM, timeout: Duration = .seconds(20)) async -> ChildProcess.Snapshot {
        process.signal(signal)
        return await process.finish(timeout: timeout)
    }

    /// Waits until stderr (the access log) contains `text`.
    @discardableResult
    func waitForLog(_ text: String, timeout: Duration = .seconds(10)) async -> String {
        await process.wait(timeout: timeout) { $0.err.contains(text) || $0.hasExited }.err
    }

    private static func port(of url: String) -> Int? {
        url.split(separator: ":").last.flatMap { Int($0.filter(\.isNumber)) }
    }
}

/// Keys and certificates generated once per test run and copied for each server: RSA key generation
/// for every one of dozens of servers would starve two cores.
enum CertificateTemplate {
    private static let template = Task { () throws -> String in
        let directory = try temporaryDirectory()
        let process = try ChildProcess(try fakeentraBinary(), ["serve", "--port", "0", "--certs", directory])
        let started = await process.wait(timeout: .seconds(60)) { $0.out.contains("\n") || $0.hasExited }
        // Every file is written before the server listens, so it can simply be killed now.
        process.kill()
        guard started.out.hasPrefix("https://") else {
            throw LiveTestFailure("could not create the certificate template: \(started.out)\(started.err)")
        }
        return directory
    }

    /// A new directory holding a copy of the template's files.
    static func copy() async throws -> String {
        let source = try await template.value
        let destination = try temporaryDirectory() + "/Certs"
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }
}

/// At most a few live servers at once: two cores shared by dozens of parallel tests would otherwise
/// stretch every exchange past the timeouts some tests rely on.
actor ServerSlots {
    static let shared = ServerSlots(count: 4)

    /// Released by `LiveServer.stop()` (idempotent).
    final class Slot: Sendable {
        private let released = Atomic(false)
        private let owner: ServerSlots
        init(owner: ServerSlots) { self.owner = owner }
        func release() {
            guard !released.exchange(true, ordering: .relaxed) else { return }
            Task { await owner.release() }
        }
    }

    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { available = count }

    func acquire() async -> Slot {
        if available > 0 {
            available -= 1
        } else {
            await withCheckedContinuation { waiters.append($0) }
        }
        return Slot(owner: self)
    }

    private func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}

struct LiveTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A fresh directory under the system temporary directory (left for the OS to clean: cheap, and
/// useful when a failure needs looking at).
func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "fakeentra-live-" + UUID().uuidString.prefix(8)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// `FAKEENTRA_BINARY`, else the `fakeentra` built next to this test bundle, else the package's
/// `.build/debug`.
func fakeentraBinary() throws -> String {
    let fileManager = FileManager.default
    if let path = ProcessInfo.processInfo.environment["FAKEENTRA_BINARY"] {
        guard fileManager.isExecutableFile(atPath: path) else { throw LiveTestFailure("FAKEENTRA_BINARY=\(path) is not executable") }
        return path
    }
    var candidates: [String] = []
    #if os(Linux)
    if let executable = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        candidates.append(productsDirectory(containing: executable))
    }
    #endif
    candidates.append(productsDirectory(containing: Bundle.main.bundlePath))
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    candidates.append(packageRoot + "/.build/debug")
    for directory in candidates where fileManager.isExecutableFile(atPath: directory + "/fakeentra") {
        return directory + "/fakeentra"
    }
    throw LiveTestFailure("no fakeentra binary in \(candidates); run `swift build --build-tests` or set FAKEENTRA_BINARY")
}

/// The build products directory: the folder holding `X.xctest` (a bundle directory on Darwin, a file on Linux).
private func productsDirectory(containing path: String) -> String {
    var url = URL(fileURLWithPath: path)
    while url.path != "/", !url.lastPathComponent.hasSuffix(".xctest") { url.deleteLastPathComponent() }
    if url.path == "/" { return URL(fileURLWithPath: path).deletingLastPathComponent().path }
    return url.deletingLastPathComponent().path
}
