import EntraHTTP
import EntraServer
import FakeEntraApp
import Foundation
import HeadlessBrowser

/// How a `FakeEntraClient` reaches the server, as HummingbirdTesting's `.router` and `.live`.
public enum FakeEntraTestingMode: Sendable, Equatable {
    /// Requests go straight into the application's responder: no socket, no TLS, no event loop.
    case router
    /// Requests go over a socket to the server's listener (TLS verified against its CA, or plain HTTP).
    case live
}

/// The requests of a `.router` client: the application's responder, called in process with the
/// context a loopback connection to `origin` would have.
struct RouterTransport: BrowserTransport, Sendable {
    let responder: any HTTPResponder
    let origin: BrowserURL

    func send(_ request: BrowserRequest) throws -> HTTPResponse {
        var headers = request.headers
        // A Host given by the test wins: it is how a router test reaches graph.microsoft.com or *.b2clogin.com.
        if headers["Host"] == nil { headers.set("Host", request.url.authority) }
        if !request.body.isEmpty || request.method == "POST" { headers.set("Content-Length", String(request.body.count)) }
        let raw = HTTPRequest(method: request.method, target: request.url.target, headers: headers, body: request.body)
        let context = ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: request.url.scheme == "https", localPort: origin.port, isInProcess: true)
        return responder.respond(to: raw, context: context)
    }
}

/// The requests of a `.live` client: one connection per exchange through `BlockingHTTPClient`, which
/// verifies the server's certificate against the generated CA and its host name.
struct LiveTransport: BrowserTransport, Sendable {
    let client: BlockingHTTPClient

    func send(_ request: BrowserRequest) throws -> HTTPResponse {
        guard request.headers["Host"] == nil else {
            throw FakeEntraTestingError("a .live request names its host by its URL, not a Host header (\(request.headers["Host"] ?? "")): the socket goes to 127.0.0.1")
        }
        return try client.exchange(secure: request.url.scheme == "https", host: request.url.host, port: request.url.port, method: request.method,
                            target: request.url.target, headers: request.headers.fields.map { ($0.name, $0.value) }, body: request.body)
    }
}

/// Stands in for the app at its redirect URI during a sign-in: what the pages deliver there is kept
/// for the test (the authorization code), never sent on; every other request goes to the server.
final class RedirectCatcher: BrowserTransport, @unchecked Sendable {
    private let server: any BrowserTransport
    private let redirect: BrowserURL
    // Written and read by the one thread that runs the walk.
    private(set) var delivered: BrowserRequest?

    init(server: any BrowserTransport, redirect: BrowserURL) {
        self.server = server
        self.redirect = redirect
    }

    func send(_ request: BrowserRequest) throws -> HTTPResponse {
        guard request.url.isWithin(redirect) else { return try server.send(request) }
        delivered = request
        return HTTPResponse(status: .ok, text: "FakeEntraTesting received the redirect.", contentType: "text/plain; charset=utf-8")
    }
}

/// Runs blocking socket work on its own thread, so a live exchange never holds one of the few threads
/// of Swift's cooperative pool (the tests around it keep running).
func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
