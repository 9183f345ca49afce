import EntraHTTP
import EntraServer
import Foundation
import Testing

@Suite struct PlainServerTests {
    @Test func servesARequestAndReusesTheConnection() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            for _ in 0..<3 {
                try client.send("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
                let response = try #require(client.readResponse())
                #expect(response.status == 200)
                #expect(response.text == "hello")
                #expect(response.headers["Connection"] == "keep-alive")
                #expect(response.headers["Date"]?.hasSuffix(" GMT") == true)
            }
        }
    }

    @Test func pipelinedRequestsInOneWriteAreAnsweredInOrder() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("GET /delay?ms=150 HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 6\r\n\r\nsecond"
                + "GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            let bodies = (0..<3).compactMap { _ in client.readResponse()?.text }
            #expect(bodies == ["delayed 150", "second", "hello"])
        }
    }

    /// What the responder says it answers on the loop is answered there, even while every worker is busy,
    /// and in order with what the workers answer on the same connection.
    @Test func requestsTheResponderAnswersOnTheLoopSkipTheWorkers() async throws {
        let responder = TestResponder()
        try await withServer(responder: responder, configure: { $0.workerCount = 1 }) { server in
            let blocker = try RawClient(port: server.plainPort)
            try blocker.send("GET /block HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(responder.arrivals.wait(for: "/block"), "the only worker is taken")
            let client = try RawClient(port: server.plainPort)
            try client.send("GET /on-loop HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.text == "on loop", "answered while the worker is blocked")
            // Behind the blocked worker: the loop's answer waits for the one before it on this connection.
            try client.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\nGET /on-loop HTTP/1.1\r\nHost: h\r\n\r\n")
            responder.gate.open()
            #expect(blocker.readResponse()?.text == "unblocked")
            let bodies = (0..<2).compactMap { _ in client.readResponse()?.text }
            #expect(bodies == ["hello", "on loop"])
        }
    }

    @Test func chunkedRequestBodyWithTrailer() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n6\r\npedia!\r\n0\r\nX-Trailer: t\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.text == "Wikipedia!")
            #expect(response.headers["X-Trailer"] == "t")
        }
    }

    @Test func expectContinueGetsInterimResponseBeforeTheBody() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("PUT /echo HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            let interim = try #require(client.readResponse())
            #expect(interim.status == 100)
            try client.send("abcde")
            let final = try #require(client.readResponse())
            #expect(final.status == 200)
            #expect(final.text == "abcde")
        }
    }

    @Test func unknownExpectationIs417AndCloses() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("PUT /echo HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\nContent-Length: 5\r\n\r\n")
            #expect(client.readResponse()?.status == 417)
            #expect(client.waitForClose())
        }
    }

    @Test func headKeepsContentLengthWithoutBody() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("HEAD /hello HTTP/1.1\r\nHost: h\r\n\r\nGET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            let head = try #require(client.readResponse(isHead: true))
            #expect(head.headers["Content-Length"] == "5")
            #expect(head.body.isEmpty)
            #expect(client.readResponse()?.text == "hello")
        }
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() async throws {
        try await withServer { server in
            let closing = try RawClient(port: server.plainPort)
            try closing.send("GET /hello HTTP/1.0\r\n\r\n")
            #expect(closing.readResponse()?.headers["Connection"] == "close")
            #expect(closing.waitForClose())

            let keeping = try RawClient(port: server.plainPort)
            try keeping.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(keeping.readResponse()?.headers["Connection"] == "keep-alive")
            try keeping.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(keeping.readResponse()?.status == 200)
        }
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 70_000) + "\r\n\r\n", 431),
        ("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 2000000\r\n\r\n", 413),
        ("GET / HTTP/1.1\r\nHost: h\r\n folded: x\r\n\r\n", 400),
        ("NOT HTTP AT ALL\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    ])
    func limitsAndMalformedRequestsAnswerThenClose(request: String, status: Int) async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send(request)
            let response = try #require(client.readResponse())
            #expect(response.status == status)
            #expect(response.headers["Connection"] == "close")
            #expect(client.waitForClose())
        }
    }

    @Test func closeAndDropDirectives() async throws {
        try await withServer { server in
            let closing = try RawClient(port: server.plainPort)
            try closing.send("GET /close HTTP/1.1\r\nHost: h\r\n\r\n")
            let response = try #require(closing.readResponse())
            #expect(response.text == "bye")
            #expect(response.headers["Connection"] == "close")
            #expect(closing.waitForClose())

            let dropped = try RawClient(port: server.plainPort)
            try dropped.send("GET /drop HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(dropped.readResponse() == nil)
        }
    }

    @Test func headerTimeoutAnswers408AndCloses() async throws {
        try await withServer(configure: { $0.headerTimeout = .milliseconds(200) }) { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("GET /hello HTTP/1.1\r\nHost: h\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 408)
            #expect(client.waitForClose())
        }
    }

    @Test func idleKeepAliveConnectionIsClosed() async throws {
        try await withServer(configure: { $0.idleTimeout = .milliseconds(200) }) { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
            #expect(client.waitForClose())
            #expect(client.unreadText.isEmpty)
        }
    }

    @Test func slowClientDoesNotBlockAnother() async throws {
        try await withServer { server in
            let slow = try RawClient(port: server.plainPort)
            try slow.send("GET /hello HTTP/1.1\r\nHo")
            let fast = try RawClient(port: server.plainPort)
            try fast.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(fast.readResponse()?.text == "hello")
            try slow.send("st: h\r\n\r\n")
            #expect(slow.readResponse()?.text == "hello")
        }
    }

    /// Handlers run on workers: one that takes long (a scenario rule, a HAR export, a key generation)
    /// does not hold up the loop, which answers another connection meanwhile.
    @Test func aSlowHandlerDoesNotHoldUpItsLoop() async throws {
        let responder = TestResponder()
        defer { responder.gate.open() }
        try await withServer(responder: responder, configure: { $0.eventLoopCount = 1; $0.workerCount = 2 }) { server in
            let blocked = try RawClient(port: server.plainPort)
            try blocked.send("GET /block HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(responder.arrivals.wait(for: "/block"))
            let other = try RawClient(port: server.plainPort)
            try other.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(other.readResponse()?.text == "hello")
            responder.gate.open()
            #expect(blocked.readResponse()?.text == "unblocked")
        }
    }

    @Test func thousandIdleConnectionsStillLetARequestThrough() async throws {
        try await withServer { server in
            let idle = try (0..<1000).map { _ in try RawClient(port: server.plainPort) }
            // A few of them trickle a partial head too.
            for client in idle.prefix(50) { try client.send("GET / HTTP/1.1\r\n") }
            let client = try RawClient(port: server.plainPort)
            try client.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.text == "hello")
            #expect(idle.count == 1000)
        }
    }

    @Test func maxConnectionsRefusesTheExtraConnection() async throws {
        try await withServer(configure: { $0.maxConnections = 2 }) { server in
            let first = try RawClient(port: server.plainPort)
            let second = try RawClient(port: server.plainPort)
            try first.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            try second.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(first.readResponse()?.status == 200)
            #expect(second.readResponse()?.status == 200)
            let third = try RawClient(port: server.plainPort)
            #expect(third.waitForClose())
        }
    }

    @Test func accessLogRedactsQueryValues() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("GET /hello?code=secret&state=xyz HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
            try client.send("GET /missing HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.status == 404)
            let lines = server.log.all
            #expect(lines.count == 2)
            #expect(lines.first?.hasPrefix("GET /hello?code=…&state=… 200 ") == true)
            #expect(lines.first?.hasSuffix("ms") == true)
            #expect(!lines.joined().contains("secret"))
            #expect(lines.last?.hasPrefix("GET /missing 404 ") == true)
        }
    }

    /// Behaviour only, no clock: the answer owed comes, new connections are refused, the server stops.
    @Test func gracefulShutdownFinishesAnInFlightDelayedRequest() async throws {
        // A grace period far beyond the delay, so that a slow machine cannot cut the answer short.
        let configuration = ServerConfiguration(listeners: [ListenerConfiguration(port: 0)], shutdownGracePeriod: .seconds(60), accessLog: .disabled)
        let responder = TestResponder()
        let server = try HTTPServer(configuration: configuration, responder: responder)
        let port = try server.start()[0].port
        let busy = try RawClient(port: port)
        let idle = try RawClient(port: port)
        try idle.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(idle.readResponse()?.status == 200)
        try busy.send("GET /delay?ms=300 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(responder.arrivals.wait(for: "/delay"))
        server.beginShutdown()
        #expect(idle.waitForClose())
        #expect((try? RawClient(port: port)) == nil, "a new connection was accepted during shutdown")
        let response = try #require(busy.readResponse())
        #expect(response.text == "delayed 300")
        #expect(busy.waitForClose())
        await server.waitUntilStopped()
        #expect((try? RawClient(port: port)) == nil)
    }
}

@Suite struct AccessLogFormatTests {
    @Test func queryValuesAreReplacedAndFragmentsDropped() {
        #expect(AccessLog.redactedTarget("/token?a=1&b=2") == "/token?a=…&b=…")
        #expect(AccessLog.redactedTarget("/p?flag&x=") == "/p?…&x=…", "a piece without = may be a bare secret")
        #expect(AccessLog.redactedTarget("/p#frag") == "/p")
        #expect(AccessLog.redactedTarget("/p?") == "/p")
        #expect(AccessLog.line(method: "GET", target: "/x?c=s", status: 302, nanoseconds: 1_260_000) == "GET /x?c=… 302 1.3ms")
    }
}
