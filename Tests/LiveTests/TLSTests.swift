import Foundation
import Testing

@Suite("TLS: versions, ALPN, plain HTTP on the TLS port")
struct TLSTests {
    private static let healthRequest = rawRequest("GET", "/_fakeentra/health", close: true)

    @Test func tls11IsRefusedByTheServer() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        // SECLEVEL=0 makes the client really offer TLS 1.1 (checked by hand against `openssl s_server
        // -tls1_1`, which then negotiates it), so the refusal seen here is the server's.
        let result = try await sClient(server, ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"], input: Self.healthRequest)
        #expect(result.status != 0)
        #expect(result.err.contains("alert protocol version"), "\(result.err)")
        #expect(!result.out.contains("HTTP/1.1"))
        await server.waitForLog("unsupported protocol")
        #expect(server.stderr.contains("unsupported protocol"))
    }

    @Test(arguments: [("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")])
    func modernVersionsAreAccepted(flag: String, version: String) async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await sClient(server, [flag, "-ign_eof"], input: Self.healthRequest)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("Protocol  : \(version)") || result.out.contains("New, \(version)"), "\(result.out)")
        #expect(result.out.contains("Verify return code: 0 (ok)"))
        #expect(statusCodes(in: result.out) == [200])
    }

    @Test func alpnNegotiatesHTTP11() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await sClient(server, ["-alpn", "http/1.1", "-ign_eof"], input: Self.healthRequest)
        #expect(result.out.contains("ALPN protocol: http/1.1"), "\(result.out)")
        #expect(statusCodes(in: result.out) == [200])
    }

    @Test func anH2OnlyClientGetsNoALPNRatherThanAnAbortedHandshake() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await sClient(server, ["-alpn", "h2", "-ign_eof"], input: Self.healthRequest)
        #expect(result.out.contains("No ALPN negotiated"), "\(result.out)")
        #expect(statusCodes(in: result.out) == [200])
    }

    @Test func curlOffersH2AndFallsBackToHTTP11() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await curl(server, ["/_fakeentra/health"], ["-v"])
        #expect(result.status == 0)
        #expect(result.err.contains("ALPN: server accepted http/1.1"), "\(result.err)")
    }

    @Test func plainHTTPOnTheTLSPortGets400AndAClose() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        // curl speaking http:// to the HTTPS port: an answer, then the connection ends (curl exits).
        let viaCurl = try await run("/usr/bin/curl", ["-sS", "-i", "http://127.0.0.1:\(server.port)/_fakeentra/health"], timeout: .seconds(15))
        #expect(viaCurl.hasExited && !viaCurl.diedOfSignal, "curl was killed: the server hung")
        #expect(statusCodes(in: viaCurl.out) == [400])
        #expect(viaCurl.out.contains("Connection: close"))

        // A raw client that keeps its side open still sees the server close.
        let outcome = try await blocking { () throws -> (String, Bool) in
            let connection = try TCPConnection(port: server.port, receiveTimeoutSeconds: 15)
            connection.send(rawRequest("GET", "/_fakeentra/health"))
            let (text, closed) = connection.receiveUntilClosed()
            return (text, closed)
        }
        #expect(statusCodes(in: outcome.0) == [400])
        #expect(outcome.1, "the server did not close the connection")
    }

    @Test func aClientThatSendsNothingDoesNotStopTheServer() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        // Connected, no ClientHello: it waits on the handshake timeout while others are served.
        let silent = try await blocking { try TCPConnection(port: server.port) }
        defer { withExtendedLifetime(silent) {} }
        let result = try await curl(server, ["/_fakeentra/health"])
        #expect(result.status == 0)
    }
}
