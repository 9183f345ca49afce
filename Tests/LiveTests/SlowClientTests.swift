import Foundation
import Synchronization
import Testing
import TestSupport

/// Sends a header line every `interval` on its own thread until stopped or the server closes.
/// The pauses shape the client's behaviour; no assertion depends on their length.
private final class Trickler: Sendable {
    private let stopped = Atomic(false)

    init(_ connection: TCPConnection, interval: TimeInterval = 0.15) {
        ChildProcess.onThread { [self] in
            var index = 0
            while !self.stopped.load(ordering: .relaxed), connection.send("X-Slow-\(index): a\r\n") {
                index += 1
                Thread.sleep(forTimeInterval: interval)
            }
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }
}

@Suite("Slow and idle clients")
struct SlowClientTests {
    @Test func aClientTricklingHeadersIsClosedWhileOthersAreServed() async throws {
        let server = try await LiveServer.start(plainHTTP: true, ["--header-timeout", "1"])
        defer { server.stop() }
        let slow = try await blocking { try TCPConnection(port: server.plainPort ?? 0) }
        slow.send("GET /_fakeentra/health HTTP/1.1\r\nHost: localhost\r\n")
        let trickler = Trickler(slow)
        defer { trickler.stop() }

        let served = try await curl(server, ["/_fakeentra/health"])
        #expect(served.status == 0 && served.out.contains("\"status\":\"ok\""))
        // Served before the slow client's header timeout (1 s) ran out: the slow one is still waiting.
        #expect(!slow.peerHasClosed, "the other client was only served after the slow one was dropped")

        let (received, closed) = try await blocking { slow.receiveUntilClosed() }
        #expect(closed, "the trickling client was never closed")
        #expect(statusCodes(in: received) == [408], "\(received)")
        await server.waitForLog(" 408 ")
        #expect(server.stderr.contains(" 408 "))
    }

    @Test func aTLSClientTricklingHeadersIsClosed() async throws {
        let server = try await LiveServer.start(["--header-timeout", "1"])
        defer { server.stop() }
        let client = try ChildProcess(OpenSSLTool.path, ["s_client", "-quiet", "-connect", "127.0.0.1:\(server.port)", "-CAfile", server.caPath],
                                      keepStdinOpen: true)
        defer { client.kill() }
        try client.write("GET /_fakeentra/health HTTP/1.1\r\nHost: localhost\r\n")
        // The header line never ends: the server must answer 408 and close; s_client then exits.
        let finished = await client.finish(timeout: .seconds(20))
        #expect(finished.hasExited && !finished.diedOfSignal, "s_client was killed: the server never closed the connection")
        #expect(statusCodes(in: finished.out) == [408], "\(finished.out)")
    }

    @Test func manyIdleAndSlowConnectionsDoNotDelayOthers() async throws {
        let server = try await LiveServer.start(plainHTTP: true)
        defer { server.stop() }
        let idle = try await blocking {
            try (0..<1000).map { index in
                let connection = try TCPConnection(port: index.isMultiple(of: 2) ? server.port : server.plainPort ?? 0)
                // Odd ones sit on the plain port with half a request; even ones never start TLS.
                if !index.isMultiple(of: 2) { connection.send("GET /_fakeentra/health HTTP/1.1\r\nHost: a\r\n") }
                return connection
            }
        }
        defer { withExtendedLifetime(idle) {} }
        for _ in 0..<3 {
            let result = try await curl(server, ["/_fakeentra/health"])
            #expect(result.status == 0, "\(result.err)")
        }
        let plain = try await run("/usr/bin/curl", ["-sS", (server.plainURL ?? "") + "/_fakeentra/health"])
        #expect(plain.out.contains("\"status\":\"ok\""))
        #expect(idle.allSatisfy { !$0.peerHasClosed })
    }

    @Test func anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() async throws {
        let server = try await LiveServer.start(plainHTTP: true, ["--idle-timeout", "1"])
        defer { server.stop() }
        let (first, closed) = try await blocking { () throws -> (String, Bool) in
            let connection = try TCPConnection(port: server.plainPort ?? 0)
            connection.send(rawRequest("GET", "/_fakeentra/health"))
            let (answer, closedEarly) = connection.receive(until: "\"uptimeSeconds\"")
            guard !closedEarly else { return (answer, false) }
            return (answer, connection.receiveUntilClosed().closed)
        }
        #expect(statusCodes(in: first) == [200])
        #expect(first.contains("Connection: keep-alive"))
        #expect(closed, "the idle connection stayed open")
    }

    @Test func aBodyThatStopsArrivingGets408() async throws {
        let server = try await LiveServer.start(plainHTTP: true, ["--header-timeout", "1"])
        defer { server.stop() }
        let (received, closed) = try await blocking { () throws -> (String, Bool) in
            let connection = try TCPConnection(port: server.plainPort ?? 0)
            connection.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nonly part of it")
            return connection.receiveUntilClosed()
        }
        #expect(statusCodes(in: received) == [408], "\(received)")
        #expect(closed)
    }

    @Test func aConnectionThatSendsNothingIsClosedAfterTheHeaderTimeout() async throws {
        let server = try await LiveServer.start(plainHTTP: true, ["--header-timeout", "1"])
        defer { server.stop() }
        let (received, closed) = try await blocking { () throws -> (String, Bool) in
            try TCPConnection(port: server.plainPort ?? 0).receiveUntilClosed()
        }
        #expect(closed, "a silent connection was kept open")
        #expect(received.isEmpty || statusCodes(in: received) == [408], "\(received)")
    }
}
