import Foundation
import Testing

/// Bodies of the responses in a raw exchange: what follows each blank line up to the next status line.
private func bodies(in text: String) -> [String] {
    text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { response in
        response.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    }
}

private func writeFile(_ bytes: Int, repeating character: Character = "a") throws -> String {
    let path = try temporaryDirectory() + "/body"
    try String(repeating: character, count: bytes).write(toFile: path, atomically: false, encoding: .utf8)
    return path
}

@Suite("HTTP/1.1 over TLS")
struct HTTPTests {
    @Test func keepAliveReusesTheConnectionForTwoURLs() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await curl(server, ["/_fakeentra/health", "/_fakeentra/health"], ["-v"])
        #expect(result.status == 0)
        #expect(result.err.contains("Re-using existing connection"), "\(result.err)")
        #expect(result.err.components(separatedBy: "TLS handshake, Client hello").count == 2, "one handshake only")
        #expect(result.out.components(separatedBy: "\"status\":\"ok\"").count == 3)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        // Three requests written at once; -quiet keeps reading until the server closes after the third.
        let input = rawRequest("GET", "/_fakeentra/health") + rawRequest("GET", "/no/such/page") + rawRequest("GET", "/_fakeentra/missing", close: true)
        let result = try await sClient(server, ["-quiet"], input: input)
        #expect(result.hasExited && !result.diedOfSignal)
        #expect(statusCodes(in: result.out) == [200, 404, 404], "\(result.out)")
        let answered = bodies(in: result.out)
        #expect(answered.count == 3)
        if answered.count == 3 {
            #expect(answered[0].contains("\"status\":\"ok\""))
            #expect(answered[1].hasPrefix("404 Not Found"))
            #expect(answered[2].contains("\"error\":{\"code\":\"not_found\""))
        }
    }

    @Test func fiftyPipelinedRequestsComeBackInOrder() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let expected = (0..<50).map { $0 % 3 == 0 ? 200 : 404 }
        let input = expected.enumerated().map { index, status in
            rawRequest("GET", status == 200 ? "/_fakeentra/health" : "/page/\(index)", close: index == expected.count - 1)
        }.joined()
        let result = try await sClient(server, ["-quiet"], input: input)
        #expect(statusCodes(in: result.out) == expected)
        // The access log, written in answer order, shows the same order by path.
        let log = await server.waitForLog("/page/49 404")
        let loggedPages: [String] = log.split(separator: "\n").compactMap { line in
            let path = line.split(separator: " ").dropFirst().first.map(String.init)
            return path?.hasPrefix("/page/") == true ? path : nil
        }
        let pages: [String] = (0..<50).filter { $0 % 3 != 0 }.map { "/page/\($0)" }
        #expect(loggedPages == pages)
    }

    @Test func manyConcurrentClientsAreAllServed() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let results = try await withThrowingTaskGroup(of: ChildProcess.Snapshot.self) { group in
            for _ in 0..<16 {
                group.addTask { try await curl(server, Array(repeating: "/_fakeentra/health", count: 5)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.status == 0 })
        #expect(results.map { $0.out.components(separatedBy: "\"status\":\"ok\"").count - 1 }.reduce(0, +) == 80)
    }

    @Test func headAnswersHeadersWithoutABodyAndKeepsFraming() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let input = rawRequest("HEAD", "/_fakeentra/health") + rawRequest("GET", "/_fakeentra/health", close: true)
        let result = try await sClient(server, ["-quiet"], input: input)
        #expect(statusCodes(in: result.out) == [200, 200], "\(result.out)")
        let answered = bodies(in: result.out)
        #expect(answered.first == "", "HEAD must not carry a body")
        #expect(answered.last?.contains("\"status\":\"ok\"") == true)
        // HEAD still announces the length GET would have.
        #expect(result.out.components(separatedBy: "Content-Length: ").count == 3)

        let viaCurl = try await curl(server, ["/_fakeentra/health"], ["-I"])
        #expect(statusCodes(in: viaCurl.out) == [200])
    }

    @Test func chunkedRequestBodyIsDecodedAndTheConnectionStaysUsable() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let body = try writeFile(5000)
        // The body's framing must be consumed exactly, or the second request on the connection breaks.
        let result = try await run("/usr/bin/curl", ["-sS", "-v", "--cacert", server.caPath, "-H", "Transfer-Encoding: chunked",
                                                    "--data-binary", "@" + body, server.url + "/no/such/upload",
                                                    "--next", "--cacert", server.caPath, server.url + "/_fakeentra/health"])
        #expect(result.err.contains("> Transfer-Encoding: chunked"))
        #expect(receivedStatusCodes(inVerbose: result.err) == [404, 200])
        #expect(result.err.contains("Re-using existing connection"), "\(result.err)")
    }

    @Test func rawChunkedBodyWithExtensionsAndTrailersIsFramedCorrectly() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let chunked = "POST /no/such/upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n"
        let result = try await sClient(server, ["-quiet"], input: chunked + rawRequest("GET", "/_fakeentra/health", close: true))
        #expect(statusCodes(in: result.out) == [404, 200], "\(result.out)")
    }

    @Test func chunkedBodyOverTheLimitGets413() async throws {
        let server = try await LiveServer.start(["--max-body", "1000"])
        defer { server.stop() }
        let body = try writeFile(4000)
        let result = try await curl(server, ["/no/such/upload"], ["-i", "-H", "Transfer-Encoding: chunked", "--data-binary", "@" + body])
        #expect(statusCodes(in: result.out).last == 413, "\(result.out)\(result.err)")
        // Under the limit the same path answers normally.
        let small = try writeFile(900)
        let fine = try await curl(server, ["/no/such/upload"], ["-i", "-H", "Transfer-Encoding: chunked", "--data-binary", "@" + small])
        #expect(statusCodes(in: fine.out).last == 404)
    }

    @Test func expect100ContinueGetsAnInterimResponse() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let body = try writeFile(2000)
        let result = try await curl(server, ["/no/such/upload"], ["-v", "-H", "Expect: 100-continue", "--data-binary", "@" + body])
        #expect(result.err.contains("< HTTP/1.1 100 Continue"), "\(result.err)")
        #expect(result.err.contains("< HTTP/1.1 404"))
        // curl gives up waiting for 100 after 1 s and sends anyway; "Done waiting" would mean we never sent it.
        #expect(!result.err.contains("Done waiting for 100-continue"))
    }

    @Test func expect100ContinueWithATooLargeBodyIsRefusedWithoutContinue() async throws {
        let server = try await LiveServer.start(["--max-body", "1000"])
        defer { server.stop() }
        let body = try writeFile(5000)
        let result = try await curl(server, ["/no/such/upload"], ["-v", "-H", "Expect: 100-continue", "--data-binary", "@" + body])
        #expect(result.err.contains("< HTTP/1.1 413"), "\(result.err)")
        #expect(!result.err.contains("< HTTP/1.1 100 Continue"))
    }

    @Test func bodyOverMaxBodyGets413AndAClose() async throws {
        let server = try await LiveServer.start(["--max-body", "1000"])
        defer { server.stop() }
        let body = try writeFile(1001)
        let result = try await curl(server, ["/no/such/upload"], ["-i", "--data-binary", "@" + body])
        #expect(statusCodes(in: result.out) == [413], "\(result.out)\(result.err)")
        #expect(result.out.contains("Connection: close"))
        let exact = try writeFile(1000)
        let fine = try await curl(server, ["/no/such/upload"], ["-i", "--data-binary", "@" + exact])
        #expect(statusCodes(in: fine.out) == [404])
    }

    @Test func defaultBodyLimitIsOneMebibyte() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let body = try writeFile((1 << 20) + 1)
        let result = try await curl(server, ["/no/such/upload"], ["-i", "--data-binary", "@" + body])
        #expect(statusCodes(in: result.out) == [413])
    }

    @Test func headersOver64KiBGet431() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let big = String(repeating: "b", count: 66 * 1024)
        let result = try await curl(server, ["/_fakeentra/health"], ["-i", "-H", "X-Big: " + big])
        #expect(statusCodes(in: result.out) == [431], "\(result.out)\(result.err)")
        // Many headers adding up past the limit count too.
        let many = (0..<40).flatMap { ["-H", "X-Part-\($0): " + String(repeating: "c", count: 2000)] }
        let summed = try await curl(server, ["/_fakeentra/health"], ["-i"] + many)
        #expect(statusCodes(in: summed.out) == [431])
        // Below the limit the request is served.
        let fine = try await curl(server, ["/_fakeentra/health"], ["-i", "-H", "X-Big: " + String(repeating: "d", count: 8 * 1024)])
        #expect(statusCodes(in: fine.out) == [200])
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET /_fakeentra/health HTTP/9.9\r\nHost: localhost\r\n\r\n",
        "GET /_fakeentra/health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
        "POST /x HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "GET /_fakeentra/health HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n",
    ])
    func malformedRequestsGet400AndTheConnectionCloses(request: String) async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        // No Connection: close in the request: s_client returning proves the server closed.
        let result = try await sClient(server, ["-quiet"], input: request, timeout: .seconds(15))
        #expect(result.hasExited && !result.diedOfSignal, "the server kept the connection open")
        #expect(statusCodes(in: result.out) == [400], "\(result.out)")
    }

    @Test func http10RequestIsAnsweredAndClosed() async throws {
        let server = try await LiveServer.start(plainHTTP: true)
        defer { server.stop() }
        let (answer, closed) = try await blocking { () throws -> (String, Bool) in
            let connection = try TCPConnection(port: server.plainPort ?? 0)
            connection.send("GET /_fakeentra/health HTTP/1.0\r\n\r\n")
            return connection.receiveUntilClosed()
        }
        #expect(statusCodes(in: answer) == [200], "\(answer)")
        #expect(answer.contains("\"status\":\"ok\""))
        #expect(closed, "an HTTP/1.0 request without keep-alive must end with a close")
    }

    /// RFC 9112 §3.2.2: a server MUST accept the absolute form of a request target (clients send it
    /// through proxies); it is routed by its path.
    @Test func absoluteFormTargetIsServedLikeItsPath() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await sClient(server, ["-quiet"], input: rawRequest("GET", "https://localhost:\(server.port)/_fakeentra/health", close: true))
        #expect(statusCodes(in: result.out) == [200], "\(result.out)")
        #expect(result.out.contains("\"status\":\"ok\""), "\(result.out)")
    }

    @Test func unknownPathGets404() async throws {
        let server = try await LiveServer.start()
        defer { server.stop() }
        let result = try await curl(server, ["/this/does/not/exist?x=1"], ["-i"])
        #expect(statusCodes(in: result.out) == [404])
    }

    @Test func plainHTTPPortServesAlongsideHTTPS() async throws {
        let server = try await LiveServer.start(plainHTTP: true)
        defer { server.stop() }
        let plainURL = try #require(server.plainURL)
        #expect(plainURL.hasPrefix("http://127.0.0.1:"))
        #expect(server.plainPort != server.port)
        let plain = try await run("/usr/bin/curl", ["-sS", "-i", plainURL + "/_fakeentra/health"])
        #expect(statusCodes(in: plain.out) == [200], "\(plain.err)")
        let secure = try await curl(server, ["/_fakeentra/health"], ["-i"])
        #expect(statusCodes(in: secure.out) == [200])
        // The plain port does not speak TLS.
        let tlsToPlain = try await run("/usr/bin/curl", ["-sS", "--cacert", server.caPath, "https://127.0.0.1:\(server.plainPort ?? 0)/_fakeentra/health"], timeout: .seconds(15))
        #expect(tlsToPlain.hasExited && !tlsToPlain.diedOfSignal)
        #expect(tlsToPlain.status != 0)
    }
}
