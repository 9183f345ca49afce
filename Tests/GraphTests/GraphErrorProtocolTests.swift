import EntraHTTP
import Foundation
import Graph
import Testing

@Suite struct GraphErrorProtocolTests {
    func render<E: HTTPResponseError>(_ error: E, in trace: E.Trace) -> HTTPResponse { error.response(in: trace) }

    @Test func aGraphErrorRendersThroughTheOneErrorProtocol() {
        let trace = GraphTrace(requestID: "r-1", clientRequestID: "c-1", date: Date(timeIntervalSince1970: 1_736_337_600))
        let response = render(GraphError.resourceNotFound("u-1"), in: trace)
        #expect(response.status.code == 404)
        #expect(response.headers["request-id"] == "r-1")
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"error":{"code":"Request_ResourceNotFound""#))
    }
}
