import EntraHTTP
import Testing

@Suite struct RequestDecoderTests {
    @Test func simpleGetAtEverySplitPoint() throws {
        let text = "GET /a/b?x=1 HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n"
        for size in [1, 2, 3, 7, 100] {
            let decoded = decode(text, chunkSize: size)
            #expect(decoded.error == nil)
            #expect(decoded.requests.count == 1)
            let request = try #require(decoded.requests.first)
            #expect(request.method == "GET")
            #expect(request.target == "/a/b?x=1")
            #expect(request.version == .http11)
            #expect(request.headers["accept"] == "*/*")
            #expect(request.wantsKeepAlive)
        }
    }

    @Test func headerValuesAreTrimmedAndKeepOrder() throws {
        let decoded = decode("GET / HTTP/1.1\r\nHost: h\r\nX-A:  one \t\r\nX-A:two\r\nEmpty:\r\n\r\n")
        let request = try #require(decoded.requests.first)
        #expect(request.headers.values(for: "x-a") == ["one", "two"])
        #expect(request.headers["Empty"] == "")
    }

    @Test func bareLineFeedsAndLeadingBlankLinesAreAccepted() {
        let (whole, bytewise) = decodeEverySplit("\r\n\nGET / HTTP/1.1\nHost: h\n\n")
        #expect(whole == bytewise)
        #expect(whole.requests.map(\.target) == ["/"])
    }

    @Test func contentLengthBody() throws {
        let (whole, bytewise) = decodeEverySplit("POST /token HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\na=1&b=x+y%21")
        #expect(whole == bytewise)
        let request = try #require(whole.requests.first)
        #expect(request.body == Array("a=1&b=x+y%2".utf8))
        #expect(request.form["b"] == "x y%2")
        #expect(whole.requests.count == 1)
    }

    @Test func incompleteBodyWaits() {
        let decoded = decode("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nabc")
        #expect(decoded.events.isEmpty)
        #expect(decoded.error == nil)
    }

    @Test func repeatedIdenticalContentLengthIsOneLength() {
        let decoded = decode("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc")
        #expect(decoded.requests.first?.body == Array("abc".utf8))
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() throws {
        let text = "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n1A\r\n abcdefghijklmnopqrstuvwxy\r\n0\r\nX-Checksum: 42\r\n\r\n"
        let (whole, bytewise) = decodeEverySplit(text)
        #expect(whole == bytewise)
        let request = try #require(whole.requests.first)
        #expect(String(decoding: request.body, as: UTF8.self) == "hello abcdefghijklmnopqrstuvwxy")
        #expect(request.trailers["X-Checksum"] == "42")
        #expect(request.headers["X-Checksum"] == nil)
    }

    @Test func chunkedBodyWithoutTrailers() {
        let (whole, bytewise) = decodeEverySplit("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        #expect(whole == bytewise)
        #expect(whole.requests.first?.body == Array("abc".utf8))
    }

    @Test func pipelinedRequestsComeOutInOrder() {
        let text = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi"
            + "POST /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nyo\r\n0\r\n\r\n"
            + "HEAD /4 HTTP/1.1\r\nHost: h\r\n\r\n"
        let (whole, bytewise) = decodeEverySplit(text)
        #expect(whole == bytewise)
        #expect(whole.requests.map(\.target) == ["/1", "/2", "/3", "/4"])
        #expect(whole.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["", "hi", "yo", ""])
        #expect(whole.requests.last?.isHead == true)
    }

    @Test func keepAliveRules() {
        func keepAlive(_ head: String) -> Bool? { decode(head + "\r\n").requests.first?.wantsKeepAlive }
        #expect(keepAlive("GET / HTTP/1.1\r\nHost: h\r\n") == true)
        #expect(keepAlive("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n") == false)
        #expect(keepAlive("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, CLOSE\r\n") == false)
        #expect(keepAlive("GET / HTTP/1.0\r\n") == false)
        #expect(keepAlive("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n") == true)
        #expect(keepAlive("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n") == false)
    }

    @Test func expectContinueIsSignalledBeforeTheBody() throws {
        var decoder = HTTPRequestDecoder()
        decoder.append(contentsOf: "PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 4\r\n\r\n".utf8)
        #expect(try decoder.next() == .continueExpected)
        #expect(try decoder.next() == nil)
        decoder.append(contentsOf: "body".utf8)
        let event = try decoder.next()
        guard case .request(let request)? = event else {
            Issue.record("expected a request, got \(String(describing: event))")
            return
        }
        #expect(request.body == Array("body".utf8))
    }

    @Test func expectContinueIsNotSignalledWhenTheBodyAlreadyArrivedOrForHTTP10() {
        #expect(decode("PUT / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx").events.count == 1)
        #expect(decode("PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n").events.isEmpty)
        #expect(decode("GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n").events.count == 1)
    }

    @Test func byteByByteFeedingMatchesWholeFeedingForErrors() {
        for text in ["GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"] {
            let (whole, bytewise) = decodeEverySplit(text)
            #expect(whole.error != nil)
            #expect(whole == bytewise)
        }
    }

    @Test func afterAnErrorTheDecoderStaysFailed() {
        var decoder = HTTPRequestDecoder()
        decoder.append(contentsOf: "BAD\r\n\r\n".utf8)
        #expect(throws: HTTPDecodingError.self) { try decoder.next() }
        decoder.append(contentsOf: "GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        #expect(throws: HTTPDecodingError.self) { try decoder.next() }
    }

    @Test func insideRequestTracksPartialInput() throws {
        var decoder = HTTPRequestDecoder()
        #expect(!decoder.isInsideRequest)
        decoder.append(contentsOf: "\r\n".utf8)
        _ = try decoder.next()
        #expect(!decoder.isInsideRequest)
        decoder.append(contentsOf: "GET / HT".utf8)
        _ = try decoder.next()
        #expect(decoder.isInsideRequest)
        decoder.append(contentsOf: "TP/1.1\r\nHost: h\r\n\r\n".utf8)
        _ = try decoder.next()
        #expect(!decoder.isInsideRequest)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func largeBodiesFedInPiecesCompactTheBuffer() throws {
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var bytes: [UInt8] = []
        for index in 0..<3 {
            bytes += Array("POST /\(index) HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        }
        let decoded = decode(bytes, chunkSize: 16_384)
        #expect(decoded.error == nil)
        #expect(decoded.requests.map(\.target) == ["/0", "/1", "/2"])
        #expect(decoded.requests.allSatisfy { $0.body == body })
    }
}
