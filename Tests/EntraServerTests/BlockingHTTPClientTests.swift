@testable import EntraServer
import Testing
import EntraHTTP
import Foundation
import Synchronization
#if os(Linux)
import Glibc
#else
import Darwin
#endif

/// The response framing of `fakeentra browse`'s client, from bytes: Content-Length, chunked, to the end.
@Suite struct BlockingHTTPClientTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func contentLengthBoundsTheBody() throws {
        let response = try BlockingHTTPClient.parse(Self.bytes("HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 3\r\n\r\nabcEXTRA"))
        #expect(response.status.code == 302 && response.headers["Location"] == "/next" && response.bodyText == "abc")
    }

    @Test func chunkedBodiesAreDecoded() throws {
        let response = try BlockingHTTPClient.parse(Self.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\n<htm\r\n2\r\nl>\r\n0\r\n\r\n"))
        #expect(response.bodyText == "<html>")
    }

    @Test func aBodyWithoutLengthRunsToTheEnd() throws {
        // Python's http.server (MSAL's redirect listener) answers HTTP/1.0 without Content-Length.
        let response = try BlockingHTTPClient.parse(Self.bytes("HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nAuthentication complete."))
        #expect(response.bodyText == "Authentication complete.")
    }

    @Test func truncatedAnswersAreErrorsNotCrashes() {
        #expect(throws: HTTPClientError.self) { try BlockingHTTPClient.parse(Self.bytes("HTTP/1.1 200 OK\r\nContent-Len")) }
        #expect(throws: HTTPClientError.self) { try BlockingHTTPClient.parse(Self.bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")) }
        #expect(throws: HTTPClientError.self) { try BlockingHTTPClient.parse(Self.bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")) }
        #expect(throws: HTTPClientError.self) { try BlockingHTTPClient.parse(Self.bytes("NOT HTTP\r\n\r\n")) }
    }

    /// A peer that trickles a TLS handshake a byte at a time keeps every read within the socket's timeout;
    /// the deadline still ends the exchange (a hang guard: trickled to its end it would take 13 minutes).
    @Test func theDeadlineEndsAHandshakeTrickledAByteAtATime() throws {
        let caFile = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]
            .first { FileManager.default.isReadableFile(atPath: $0) }
        guard let caFile else { return }
        let listener = try Socket.makeListener(try Socket.resolve(host: "127.0.0.1", port: 0)[0], port: 0, backlog: 4)
        defer { Socket.close(listener) }
        let port = Socket.localAddress(listener).port
        let stopped = Atomic<Bool>(false)
        let peer = Thread {
            var fd: Int32 = -1
            while fd < 0 && !stopped.load(ordering: .relaxed) {
                fd = accept(listener, nil, nil)
                if fd < 0 { usleep(5_000) }
            }
            guard fd >= 0 else { return }
            defer { Socket.close(fd) }
            // A handshake record announcing 16 KB, then its bytes one every 50 ms.
            var bytes: [UInt8] = [0x16, 0x03, 0x03, 0x40, 0x00]
            while !stopped.load(ordering: .relaxed) {
                let sent = bytes.withUnsafeBytes { Socket.send(fd, $0) }
                if sent <= 0 { return }
                bytes = [0x02]
                usleep(50_000)
            }
        }
        peer.start()
        defer { stopped.store(true, ordering: .relaxed) }
        var client = BlockingHTTPClient(trust: try TLSClientTrust(caFile: caFile))
        client.deadline = .milliseconds(400)
        let started = ContinuousClock.now
        do {
            _ = try client.exchange(secure: true, host: "127.0.0.1", port: port, method: "GET", target: "/")
            Issue.record("a handshake that never completed answered")
        } catch {
            #expect(error.isTimeout, "\(error)")
        }
        #expect(started.duration(to: .now) < .seconds(5))
    }
}
