#if os(Linux)
import EntraHTTP
import EntraServer
import Foundation
import Testing

/// The server's threads carry their names into the kernel, where `top -H` and `ps -L` read them: each
/// answer here is the name of the thread that gave it, read from /proc.
@Suite struct ThreadNameTests {
    private struct ThreadNameResponder: HTTPResponder {
        func respond(to request: HTTPRequest, route: Void, context: ConnectionFacts) -> HTTPResponse {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable"
            return HTTPResponse(status: .ok, text: name.trimmingCharacters(in: .newlines), contentType: "text/plain")
        }

        func answersOnLoop(_ request: HTTPRequest, route: Void) -> Bool { request.rawPath == "/loop" }
    }

    @Test func eventLoopsAndWorkersAreNamedInTheKernel() async throws {
        var configuration = ServerConfiguration(listeners: [ListenerConfiguration(host: "127.0.0.1", port: 0)], accessLog: .disabled)
        configuration.eventLoopCount = 2
        configuration.workerCount = 1
        let server = try HTTPServer(configuration: configuration, responder: ThreadNameResponder())
        let port = try server.start()[0].port
        // Connections are dealt to the loops in turn: the first goes to loop 0, the second to loop 1.
        var names: [String] = []
        for path in ["/loop", "/loop", "/worker"] {
            let client = try RawClient(port: port)
            try client.send("GET \(path) HTTP/1.1\r\nHost: h\r\n\r\n")
            names.append(client.readResponse()?.text ?? "no answer")
        }
        #expect(names == ["fe-loop-0", "fe-loop-1", "fe-worker-0"])
        await server.shutdown()
    }
}
#endif
