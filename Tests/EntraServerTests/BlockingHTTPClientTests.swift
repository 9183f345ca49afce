@testable import EntraServer
import Testing
import EntraHTTP

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
}
