import EntraHTTP
import EntraServer
import Foundation
import Testing

/// Request-target forms and requests refused or cut short, seen through a real socket.
@Suite struct RequestFormTests {
    @Test func absoluteFormTargetIsRoutedByItsPath() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("GET http://localhost:\(server.plainPort)/hello?x=1 HTTP/1.1\r\nHost: elsewhere\r\n\r\n")
            #expect(client.readResponse()?.text == "hello")
            try client.send("POST https://login.example/echo HTTP/1.1\r\nHost: login.example\r\nContent-Length: 2\r\n\r\nok")
            #expect(client.readResponse()?.text == "ok")
            #expect(server.log.all.first?.hasPrefix("GET /hello?x=… 200 ") == true, "\(server.log.all)")
        }
    }

    @Test func optionsAsteriskIsAnsweredAndTheConnectionLives() async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.status == 404)
            try client.send("GET /hello HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(client.readResponse()?.text == "hello")
            #expect(server.log.all.first?.hasPrefix("OPTIONS * 404 ") == true, "\(server.log.all)")
        }
    }

    @Test(arguments: [
        ("POST /echo?secret=x HTTP/1.1\r\nHost: h\r\nContent-Length: 2000000\r\n\r\n", 413, "POST /echo?secret=… 413 "),
        ("GET /big?q=1 HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 70_000) + "\r\n\r\n", 431, "GET /big?q=… 431 "),
        ("PUT /echo HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\nContent-Length: 5\r\n\r\n", 417, "PUT /echo 417 "),
        ("NOT HTTP AT ALL\r\n\r\n", 400, "- - 400 "),
    ])
    func refusedRequestsAreLoggedWithTheirMethodAndPath(request: String, status: Int, logged: String) async throws {
        try await withServer { server in
            let client = try RawClient(port: server.plainPort)
            try client.send(request)
            #expect(client.readResponse()?.status == status)
            #expect(client.waitForClose())
            #expect(server.log.all.count == 1)
            #expect(server.log.all.first?.hasPrefix(logged) == true, "\(server.log.all)")
            #expect(!server.log.all.joined().contains("secret=x"))
        }
    }

    @Test func aTrickledBodyMeetsOneDeadlineForTheWholeBody() async throws {
        // Without a whole-body deadline every byte restarted the stall timer, so a byte every 20 ms
        // kept the request open for ever.
        try await withServer(configure: { $0.bodyTimeout = .milliseconds(300) }) { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("POST /echo?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 100000\r\n\r\n")
            // Pacing the input is what this client is about; the test itself waits for the answer.
            let trickler = Thread { while (try? client.send("x")) != nil { usleep(20_000) } }
            trickler.start()
            let response = try #require(client.readResponse())
            #expect(response.status == 408)
            #expect(client.waitForClose())
            #expect(server.log.all.contains { $0.hasPrefix("POST /echo?x=… 408 ") }, "\(server.log.all)")
        }
    }

    @Test func aBodyThatStopsArrivingTimesOutLikeAHead() async throws {
        try await withServer(configure: { $0.headerTimeout = .milliseconds(200) }) { server in
            let client = try RawClient(port: server.plainPort)
            try client.send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc")
            #expect(client.readResponse()?.status == 408)
            #expect(client.waitForClose())
            #expect(server.log.all.count == 1 && server.log.all[0].hasPrefix("POST /echo 408 "), "\(server.log.all)")
        }
    }

    @Test func bodiesOnAKeepAliveConnectionAndALargeFastUploadAreServed() async throws {
        try await withServer(configure: { $0.bodyTimeout = .seconds(5) }) { server in
            let client = try RawClient(port: server.plainPort)
            for index in 0..<3 {
                try client.send("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n")
                try client.send("\(index)!")
                #expect(client.readResponse()?.text == "\(index)!")
            }
            // A large body sent at full speed is unaffected by the deadline.
            let large = [UInt8](repeating: UInt8(ascii: "z"), count: 1_000_000)
            try client.send(Array("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: \(large.count)\r\n\r\n".utf8) + large)
            #expect(client.readResponse()?.body == large)
        }
    }
}
