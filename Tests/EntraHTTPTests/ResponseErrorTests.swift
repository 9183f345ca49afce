import EntraHTTP
import Testing

/// Renders any error family through the one protocol, as callers do.
func rendered<E: HTTPResponseError>(_ error: E, in trace: E.Trace) -> HTTPResponse { error.response(in: trace) }

@Suite struct ResponseErrorTests {
    @Test func aDecodingErrorRendersPlainTextAndClosesTheConnection() {
        let response = rendered(HTTPDecodingError(.bodyTooLarge, "the body exceeds 1048576 bytes"), in: ())
        #expect(response.status.code == 413)
        #expect(String(decoding: response.body, as: UTF8.self) == "413 Content Too Large: the body exceeds 1048576 bytes\n")
        #expect(response.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(response.directives.closeAfterResponse)
    }

    @Test func aTimedOutRequestRenders408() {
        let response = HTTPDecodingError(.requestTimedOut, "the request did not arrive in time").response
        #expect(response.status.code == 408)
        #expect(String(decoding: response.body, as: UTF8.self) == "408 Request Timeout: the request did not arrive in time\n")
    }
}
