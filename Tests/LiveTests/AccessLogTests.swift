import Foundation
import Testing

/// `METHOD /path STATUS 1.2ms`, as written on stderr.
private struct LogLine: Equatable {
    var method: String
    var target: String
    var status: Int
    var milliseconds: Double

    init?(_ line: Substring) {
        let parts = line.split(separator: " ")
        guard parts.count == 4, parts[3].hasSuffix("ms"), let status = Int(parts[2]),
              let milliseconds = Double(parts[3].dropLast(2)) else { return nil }
        method = String(parts[0])
        target = String(parts[1])
        self.status = status
        self.milliseconds = milliseconds
    }
}

private func logLines(_ stderr: String) -> [LogLine] {
    stderr.split(separator: "\n").compactMap(LogLine.init)
}

@Suite("Access log on stderr")
struct AccessLogTests {
    @Test func oneLinePerRequestWithMethodPathStatusAndMilliseconds() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        try await curl(server, ["/_fakeentra/health", "/no/such/page"])
        try await curl(server, ["/_fakeentra/health"], ["-X", "DELETE"])
        await server.waitForLog("DELETE /_fakeentra/health 405")
        let lines = logLines(server.stderr)
        #expect(lines.map(\.method) == ["GET", "GET", "DELETE"], "\(server.stderr)")
        #expect(lines.map(\.target) == ["/_fakeentra/health", "/no/such/page", "/_fakeentra/health"])
        #expect(lines.map(\.status) == [200, 404, 405])
        #expect(lines.allSatisfy { $0.milliseconds >= 0 && $0.milliseconds < 60_000 })
    }

    @Test func queryValuesAreRemovedButNamesKept() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        try await curl(server, ["/common/oauth2/v2.0/authorize?client_id=SECRET-CLIENT&code=SECRET-CODE&flag"])
        try await curl(server, ["/_fakeentra/health?password=hunter2"])
        let log = await server.waitForLog("/_fakeentra/health?")
        #expect(!log.contains("SECRET") && !log.contains("hunter2"), "\(log)")
        #expect(log.contains("/common/oauth2/v2.0/authorize?client_id=…&code=…&…"), "a piece without = may be a bare secret: \(log)")
        #expect(log.contains("GET /_fakeentra/health?password=… 200"))
    }

    @Test func errorsWithoutARequestAreLoggedToo() async throws {
        let server = try await LiveServer.start(["--max-body", "10"])
        defer { server.stop() }
        try await curl(server, ["/upload"], ["--data-binary", "far more than ten bytes"])
        try await sClient(server, ["-quiet"], input: "GARBAGE\r\n\r\n")
        let log = await server.waitForLog(" 400 ")
        let statuses = logLines(log).map(\.status)
        #expect(statuses.contains(413) && statuses.contains(400), "\(log)")
    }

    /// A refused request whose head was read is still a request: its line names it.
    @Test func aRequestRefusedForItsSizeIsLoggedWithItsMethodAndPath() async throws {
        let server = try await LiveServer.start(["--max-body", "10"])
        defer { server.stop() }
        try await curl(server, ["/upload?secret=x"], ["--data-binary", "far more than ten bytes"])
        let log = await server.waitForLog(" 413 ")
        #expect(log.contains("POST /upload?secret=… 413"), "\(log)")
        #expect(!log.contains("secret=x"))
    }

    @Test func quietWritesNoAccessLog() async throws {
        let server = try await LiveServer.start(["--quiet"])
        defer { server.stop() }
        try await curl(server, ["/_fakeentra/health", "/no/such/page"])
        // Every loop flushes its log before the process exits: after exit nothing more can come.
        let exit = await server.terminate()
        #expect(exit.status == 0)
        #expect(logLines(exit.err).isEmpty, "\(exit.err)")
        #expect(!exit.err.contains("/_fakeentra/health"))
    }

    @Test func logLinesStayOneLineWhateverTheClientSends() async throws {
        let server = try await LiveServer.start(plainHTTP: true)
        defer { server.stop() }
        let answer = try await blocking { () throws -> String in
            let connection = try TCPConnection(port: server.plainPort ?? 0)
            // A raw control character inside the target (decoders may accept or refuse it; either way one line).
            connection.send("GET /a\u{1B}[31mred HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            return connection.receiveUntilClosed().received
        }
        let status = try #require(statusCodes(in: answer).first, "\(answer)")
        let log = await server.waitForLog(" \(status) ")
        #expect(!log.contains("\u{1B}"))
        #expect(logLines(log).count == 1, "\(log)")
    }
}
