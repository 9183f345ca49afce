import EntraHTTP
import Testing

@Suite struct DecoderLimitTests {
    func expectError(_ text: String, _ kind: HTTPDecodingError.Kind, status: Int, limits: HTTPRequestDecoder.Limits = .init(),
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let (whole, bytewise) = decodeEverySplit(text, limits: limits)
        #expect(whole.error?.kind == kind, sourceLocation: sourceLocation)
        #expect(whole.error?.status.code == status, sourceLocation: sourceLocation)
        #expect(bytewise.error?.kind == kind, "byte by byte", sourceLocation: sourceLocation)
        #expect(whole.requests.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func headJustUnderTheLimitIsAccepted() {
        let head = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: "
        let padding = String(repeating: "a", count: 64 * 1024 - head.utf8.count - 4)
        let decoded = decode(head + padding + "\r\n\r\n")
        #expect(decoded.error == nil)
        #expect(decoded.requests.count == 1)
    }

    @Test func headOverTheLimitIs431() {
        let head = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: "
        let padding = String(repeating: "a", count: 64 * 1024 - head.utf8.count - 3)
        expectError(head + padding + "\r\n\r\n", .headersTooLarge, status: 431)
    }

    @Test func unterminatedHeadOverTheLimitIs431WithoutWaitingForTheEnd() {
        expectError("GET / HTTP/1.1\r\nX: " + String(repeating: "b", count: 70_000), .headersTooLarge, status: 431)
    }

    @Test func trailersOverTheLimitAre431() {
        let limits = HTTPRequestDecoder.Limits(maxHeadBytes: 100)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + String(repeating: "t", count: 200) + "\r\n\r\n",
                    .headersTooLarge, status: 431, limits: limits)
    }

    @Test func declaredBodyOverTheLimitIs413BeforeTheBodyArrives() {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048577\r\n\r\n", .bodyTooLarge, status: 413)
        let atLimit = decode("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048576\r\n\r\n")
        #expect(atLimit.error == nil)
    }

    @Test func bodyLimitIsConfigurable() {
        let limits = HTTPRequestDecoder.Limits(maxBodyBytes: 4)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n", .bodyTooLarge, status: 413, limits: limits)
        #expect(decode("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nabcd", limits: limits).requests.count == 1)
    }

    @Test func chunkedBodyOverTheLimitIs413FromChunkSizes() {
        let limits = HTTPRequestDecoder.Limits(maxBodyBytes: 8)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n4\r\n", .bodyTooLarge, status: 413, limits: limits)
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFF\r\n", .bodyTooLarge, status: 413)
    }

    @Test(arguments: [
        "GET\r\n\r\n",
        "GET /\r\n\r\n",
        "GET  / HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET / HTTP/1.1 \r\nHost: h\r\n\r\n",
        "G(T / HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET /a\u{7F} HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET / HTTP/1.x\r\nHost: h\r\n\r\n",
        "GET / http/1.1\r\nHost: h\r\n\r\n",
        "GET / HTTP/11\r\nHost: h\r\n\r\n",
        "\u{16}\u{03}\u{01}\u{02}\u{00}\r\n\r\n",
    ])
    func malformedRequestLineIs400(text: String) {
        expectError(text, .malformedRequestLine, status: 400)
    }

    @Test func nonHTTP1VersionIs400() {
        expectError("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion, status: 400)
        expectError("GET / HTTP/0.9\r\nHost: h\r\n\r\n", .unsupportedVersion, status: 400)
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: h\r\nNo colon here\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nBad Name: v\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nName : v\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\n: v\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
    ])
    func malformedHeaderIs400(text: String) {
        expectError(text, .malformedHeader, status: 400)
    }

    @Test func obsoleteLineFoldingIs400() {
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX-Long: a\r\n  b\r\n\r\n", .obsoleteLineFolding, status: 400)
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX-Long: a\r\n\tb\r\n\r\n", .obsoleteLineFolding, status: 400)
    }

    @Test func contentLengthWithTransferEncodingIs400() {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", .conflictingFraming, status: 400)
    }

    @Test(arguments: ["-1", "abc", "1 2", "", "3, 4", "+5", "0x10", "99999999999999999999", "1234567890123456789", "\u{0665}"])
    func invalidContentLengthIs400(value: String) {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \(value)\r\n\r\n", .invalidContentLength, status: 400)
    }

    /// A single field of digits takes the short path; at its edges it answers as the general one: 18 digits
    /// are a length (too large here), leading zeros count for nothing, `0` is no body, spaces around are trimmed.
    @Test func singleContentLengthsAtTheShortPathsEdges() {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 123456789012345678\r\n\r\n", .bodyTooLarge, status: 413)
        #expect(decode("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 007\r\n\r\nabcdefg").requests.first?.body == Array("abcdefg".utf8))
        #expect(decode("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n").requests.first?.body == [])
        #expect(decode("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:  5 \r\n\r\nabcde").requests.first?.body == Array("abcde".utf8))
        #expect(decode("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\nabcde").requests.first?.body == Array("abcde".utf8))
    }

    @Test func missingOrRepeatedHostIs400() {
        expectError("GET / HTTP/1.1\r\n\r\n", .invalidHost, status: 400)
        expectError("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .invalidHost, status: 400)
        #expect(decode("GET / HTTP/1.0\r\n\r\n").requests.count == 1)
    }

    @Test(arguments: [
        "zz\r\n",
        "\r\n",
        "5 x\r\n",
        "1\r\nab\r\n",
        "10000000000000000\r\n",
        "5;ext\u{1}\r\n",
    ])
    func badChunkIs400(chunk: String) {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk, .malformedChunk, status: 400)
    }

    @Test func otherTransferCodingsAre501() {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferEncoding, status: 501)
    }

    @Test func otherExpectationsAre417() {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nExpect: the-unexpected\r\nContent-Length: 1\r\n\r\nx", .unsupportedExpectation, status: 417)
    }

    @Test func errorsRenderAPlainTextResponseThatCloses() {
        let error = HTTPDecodingError(.headersTooLarge, "too big")
        let response = error.response
        #expect(response.status.code == 431)
        #expect(response.directives.closeAfterResponse)
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(response.bodyText == "431 Request Header Fields Too Large: too big\n")
    }
}

/// Refused and unfinished requests are named in the access log when their request line was read.
@Suite struct RequestLineOfRefusedRequestsTests {
    @Test(arguments: [
        ("POST /upload?secret=x HTTP/1.1\r\nHost: h\r\nContent-Length: 2000000\r\n\r\n", 413, "POST /upload?secret=x"),
        ("POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFF\r\n", 413, "POST /c"),
        ("GET /big?q=1 HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: 70_000) + "\r\n\r\n", 431, "GET /big?q=1"),
        ("GET /big?q=1 HTTP/1.1\r\nX: " + String(repeating: "a", count: 70_000), 431, "GET /big?q=1"),
        ("GET https://h/abs HTTP/1.1\r\nHost: h\r\n bad fold\r\n\r\n", 400, "GET /abs"),
        ("DELETE /two-hosts HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "DELETE /two-hosts"),
    ])
    func errorNamesTheRequest(text: String, status: Int, named: String) throws {
        for decoded in [decode(text), decode(text, chunkSize: 1)] {
            let error = try #require(decoded.error)
            #expect(error.status.code == status)
            let line = try #require(error.requestLine)
            #expect("\(line.method) \(line.target)" == named)
        }
    }

    @Test func anUnreadableRequestLineNamesNothing() {
        #expect(decode("NOT HTTP AT ALL\r\n\r\n").error?.requestLine == nil)
        #expect(decode("GET /" + String(repeating: "x", count: 70_000)).error?.requestLine == nil)
    }

    @Test func currentRequestLineWhileTheRequestArrives() throws {
        var decoder = HTTPRequestDecoder()
        #expect(decoder.currentRequestLine == nil)
        decoder.append(contentsOf: "\r\nGET /partial-targ".utf8)
        #expect(try decoder.next() == nil)
        #expect(decoder.currentRequestLine == nil)
        decoder.append(contentsOf: "et?a=1 HTTP/1.1\r\nHo".utf8)
        #expect(try decoder.next() == nil)
        #expect(decoder.currentRequestLine == HTTPRequestLine(method: "GET", target: "/partial-target?a=1"))
        decoder.append(contentsOf: "st: h\r\n\r\nPUT /body HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nab".utf8)
        #expect(try decoder.next() != nil)
        #expect(try decoder.next() == nil)
        #expect(decoder.currentRequestLine == HTTPRequestLine(method: "PUT", target: "/body"))
        decoder.append(contentsOf: "c".utf8)
        #expect(try decoder.next() != nil)
        #expect(decoder.currentRequestLine == nil)
    }
}
