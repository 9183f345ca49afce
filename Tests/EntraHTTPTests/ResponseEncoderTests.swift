import EntraHTTP
import Testing

@Suite struct ResponseEncoderTests {
    let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func encodesStatusHeadersLengthDateAndConnection() {
        let response = HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: Array("{}".utf8))
        #expect(text(HTTPResponseEncoder.encode(response, keepAlive: true, date: date))
            == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nDate: \(date)\r\nConnection: keep-alive\r\n\r\n{}")
        #expect(text(HTTPResponseEncoder.encode(response, keepAlive: false, date: date)).hasSuffix("\r\nConnection: close\r\n\r\n{}"))
    }

    @Test func headKeepsContentLengthButOmitsTheBody() {
        let response = HTTPResponse(status: .ok, body: Array("hello".utf8))
        let encoded = text(HTTPResponseEncoder.encode(response, isHead: true, keepAlive: true, date: date))
        #expect(encoded.contains("Content-Length: 5\r\n"))
        #expect(encoded.hasSuffix("\r\n\r\n"))
    }

    @Test func aHandlersDateIsSentOnceInsteadOfTheTransports() {
        let virtual = "Mon, 01 Jan 2035 00:00:00 GMT"
        let encoded = text(HTTPResponseEncoder.encode(HTTPResponse(status: .ok, headers: ["Date": virtual]), keepAlive: true, date: date))
        #expect(encoded.contains("Date: \(virtual)\r\n"))
        #expect(!encoded.contains(date))
        #expect(encoded.ranges(of: "Date: ").count == 1)
    }

    @Test func transportHeadersFromHandlersAreReplaced() {
        let response = HTTPResponse(status: .ok, headers: ["Content-Length": "99", "Connection": "upgrade", "Transfer-Encoding": "chunked"], body: [65])
        let encoded = text(HTTPResponseEncoder.encode(response, keepAlive: true, date: date))
        #expect(!encoded.contains("Content-Length: 99"))
        #expect(!encoded.contains("upgrade"))
        #expect(!encoded.contains("chunked"))
        #expect(encoded.contains("Content-Length: 1\r\n"))
    }

    @Test func noContentHasNoLengthOrBody() {
        let encoded = text(HTTPResponseEncoder.encode(HTTPResponse(status: HTTPStatus(204), body: [65, 66]), keepAlive: true, date: date))
        #expect(!encoded.contains("Content-Length"))
        #expect(encoded.hasSuffix("\r\n\r\n"))
    }

    @Test func headerInjectionIsNeutralised() {
        let response = HTTPResponse(status: .found, headers: ["Location": "/x\r\nSet-Cookie: evil=1"])
        let encoded = text(HTTPResponseEncoder.encode(response, keepAlive: true, date: date))
        #expect(encoded.contains("Location: /x  Set-Cookie: evil=1\r\n"))
    }

    @Test func multiDigitStatusAndLength() {
        let response = HTTPResponse(status: HTTPStatus(599, "Custom"), body: Array(repeating: 0, count: 1_234_567))
        let encoded = HTTPResponseEncoder.encode(response, keepAlive: true, date: date)
        #expect(text(Array(encoded.prefix(80))).hasPrefix("HTTP/1.1 599 Custom\r\nContent-Length: 1234567\r\n"))
        #expect(encoded.count == 1_234_567 + encoded.firstRange(of: [13, 10, 13, 10])!.upperBound)
    }

    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_798_761_599, "Thu, 31 Dec 2026 23:59:59 GMT"),
    ])
    func imfFixdate(seconds: Int, expected: String) {
        #expect(HTTPDate.format(secondsSince1970: seconds) == expected)
    }
}
