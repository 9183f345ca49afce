import EntraHTTP
import EntraServer
import Foundation
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A responder whose routes exercise every transport directive.
struct TestResponder: HTTPResponder {
    var arrivals = Arrivals()
    /// `/block` waits until this opens: a handler that takes as long as a test wants.
    var gate = Gate()

    func respond(to request: HTTPRequest, route: Void, context: ConnectionFacts) -> HTTPResponse {
        arrivals.record(request.rawPath)
        let query = request.query
        switch request.rawPath {
        case "/hello":
            return HTTPResponse(status: .ok, text: "hello", contentType: "text/plain")
        case "/echo":
            var headers: HTTPHeaders = ["X-Method": request.method, "X-Secure": context.isSecure ? "yes" : "no"]
            if let trailer = request.trailers["X-Trailer"] { headers.add("X-Trailer", trailer) }
            return HTTPResponse(status: .ok, headers: headers, body: request.body)
        case "/delay":
            let milliseconds = Int(query["ms"] ?? "0") ?? 0
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: Array("delayed \(milliseconds)".utf8),
                                directives: .init(delay: .milliseconds(milliseconds)))
        case "/close":
            return HTTPResponse(status: .ok, body: Array("bye".utf8), directives: .init(closeAfterResponse: true))
        case "/drop":
            return HTTPResponse(status: .ok, body: Array("never sent".utf8), directives: .init(dropConnection: true))
        case "/block":
            gate.wait()
            return HTTPResponse(status: .ok, text: "unblocked", contentType: "text/plain")
        case "/_fakeentra/health":
            return HTTPResponse(status: .ok, text: "{\"status\":\"ok\"}", contentType: "application/json")
        case "/on-loop":
            return HTTPResponse(status: .ok, text: "on loop", contentType: "text/plain")
        default:
            return HTTPResponse(status: .notFound, text: "no route", contentType: "text/plain")
        }
    }
}

extension TestResponder {
    func answersOnLoop(_ request: HTTPRequest, route: Void) -> Bool { request.rawPath == "/on-loop" }
}

/// Closed until `open()`; `wait()` is bounded so a broken test cannot hang the suite.
final class Gate: Sendable {
    private let isOpen = Mutex(false)
    private let condition = NSCondition()

    func open() {
        isOpen.withLock { $0 = true }
        condition.broadcast()
    }

    func wait() {
        let limit = Date().addingTimeInterval(30)
        condition.lock()
        defer { condition.unlock() }
        while !isOpen.withLock({ $0 }), Date() < limit { _ = condition.wait(until: min(limit, Date().addingTimeInterval(0.05))) }
    }
}

/// Paths the responder has seen, so a test can wait until a request is in flight.
final class Arrivals: Sendable {
    private let paths = Mutex<[String]>([])
    private let condition = NSCondition()

    func record(_ path: String) {
        paths.withLock { $0.append(path) }
        condition.broadcast()
    }

    /// Blocks until `path` arrived (bounded so a broken server fails the test instead of hanging it).
    func wait(for path: String) -> Bool {
        let limit = Date().addingTimeInterval(20)
        condition.lock()
        defer { condition.unlock() }
        while !paths.withLock({ $0.contains(path) }) {
            if !condition.wait(until: min(limit, Date().addingTimeInterval(0.05))), Date() >= limit { return false }
        }
        return true
    }
}

/// Collects access log lines for assertions.
final class LogCollector: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var destination: AccessLogDestination { .custom { line in self.lines.withLock { $0.append(line) } } }
}

struct RunningServer {
    let server: HTTPServer
    let addresses: [BoundAddress]
    let log: LogCollector
    var plainPort: Int { addresses.first { !$0.isTLS }!.port }
    var tlsPort: Int { addresses.first { $0.isTLS }!.port }
}

/// Starts a server on 127.0.0.1 port 0 (plain, plus TLS when given), runs `body`, shuts it down.
func withServer(
    tls: TLSConfiguration? = nil,
    plain: Bool = true,
    responder: TestResponder = TestResponder(),
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (RunningServer) async throws -> Void
) async throws {
    var listeners: [ListenerConfiguration] = []
    if let tls { listeners.append(ListenerConfiguration(host: "127.0.0.1", port: 0, tls: tls)) }
    if plain { listeners.append(ListenerConfiguration(host: "127.0.0.1", port: 0)) }
    let log = LogCollector()
    var configuration = ServerConfiguration(listeners: listeners, accessLog: log.destination)
    // scripts/test runs these tests a second time over poll(2), the backend a Mac can also use.
    if let name = ProcessInfo.processInfo.environment["FAKEENTRA_EVENT_BACKEND"], let backend = EventBackend(rawValue: name) {
        configuration.eventBackend = backend
    }
    configure(&configuration)
    let server = try HTTPServer(configuration: configuration, responder: responder)
    let addresses = try server.start()
    do {
        try await body(RunningServer(server: server, addresses: addresses, log: log))
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

extension HTTPServer {
    /// Waits for the stop, bounded so that a server that never stops fails the test instead of hanging
    /// it (like the clients' receive timeout, a guard against hangs, not a speed check).
    func stopsBeforeTheHangGuard() async -> Bool {
        let (outcomes, continuation) = AsyncStream<Bool>.makeStream()
        // Unstructured, so that a server that never stops does not keep the test waiting either.
        Task { await self.waitUntilStopped(); continuation.yield(true) }
        Task {
            try? await Task.sleep(for: .seconds(20))
            continuation.yield(false)
        }
        for await stopped in outcomes { return stopped }
        return false
    }
}

/// A blocking TCP client for byte-exact conversations. A receive timeout guards against hangs
/// only; no test relies on it for correctness.
/// `send` touches only the descriptor, so one thread may send while another reads.
final class RawClient: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, host: String = "127.0.0.1") throws {
        do {
            fd = try PortableSocket.connect(host: host, port: port)
        } catch {
            throw ClientError.failed("\(error)")
        }
    }

    deinit { PortableSocket.close(fd) }

    enum ClientError: Error { case failed(String) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { PortableSocket.send(fd, $0) }
            guard sent > 0 else { throw ClientError.failed("send errno \(errno)") }
            offset += sent
        }
    }

    /// Reads more bytes; false on EOF or error.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// One response (status line, headers, Content-Length body); nil if the connection closed first.
    func readResponse(isHead: Bool = false) -> ParsedResponse? {
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst()
                let code = Int(statusLine.split(separator: " ")[1]) ?? 0
                var headers = HTTPHeaders()
                for line in lines {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    headers.add(String(parts[0]), String(parts.count > 1 ? parts[1] : "").trimmingCharacters(in: .whitespaces))
                }
                let length = (isHead || code < 200) ? 0 : Int(headers["Content-Length"] ?? "0") ?? 0
                let total = end.upperBound + length
                while buffer.count < total { if !fill() { return nil } }
                let body = Array(buffer[end.upperBound..<total])
                buffer.removeFirst(total)
                return ParsedResponse(status: code, headers: headers, body: body)
            }
            if !fill() { return nil }
        }
    }

    /// Blocks until the server closes the connection; true when it did (EOF or reset).
    func waitForClose() -> Bool {
        while true {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                continue
            }
            if count == 0 { return true }
            return errno == ECONNRESET
        }
    }

    var unreadText: String { String(decoding: buffer, as: UTF8.self) }
}

struct ParsedResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Runs a command line tool and captures its output.
@discardableResult
func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try? stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

/// A throwaway self-signed certificate for localhost/127.0.0.1, made once per test process.
enum TestCertificate {
    static let configuration: TLSConfiguration = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entraserver-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        if !FileManager.default.fileExists(atPath: key) {
            _ = try? run(OpenSSLTool.path, [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        }
        return TLSConfiguration(certificateChainPath: certificate, privateKeyPath: key)
    }()
}
