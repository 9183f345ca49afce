import EntraHTTP
import Foundation
import HeadlessBrowser
import Synchronization

/// Talks to a `FakeEntraServer` the same way in both modes: in process (`.router`) or over a socket
/// (`.live`). Paths are relative to the server's base URL. Keeps a cookie jar across sign-ins, as one
/// browser would (a second sign-in may then meet the account picker or single sign-on).
public final class FakeEntraClient: Sendable {
    public let mode: FakeEntraTestingMode
    /// The origin requests go to (`https://127.0.0.1:<port>`, or `https://localhost` for a router-only server).
    public var baseURL: String { origin.description.hasSuffix("/") ? String(origin.description.dropLast()) : origin.description }

    let origin: BrowserURL
    let transport: any BrowserTransport & Sendable
    let controlSecret: String?
    let cookies = Mutex(CookieJar())

    init(mode: FakeEntraTestingMode, origin: BrowserURL, transport: any BrowserTransport & Sendable, controlSecret: String?) {
        var origin = origin
        origin.target = "/"
        self.mode = mode
        self.origin = origin
        self.transport = transport
        self.controlSecret = controlSecret
    }

    /// Sends one request. `path` is a path with an optional query (`/common/oauth2/v2.0/token`) or an
    /// absolute URL; `form` becomes an `application/x-www-form-urlencoded` body, `json` a JSON body.
    ///
    ///     let token = try await client.execute(.post, "/common/oauth2/v2.0/token", form: [
    ///         "grant_type": "client_credentials", "client_id": clientID, "client_secret": secret, "scope": ".default",
    ///     ])
    public func execute(_ method: FakeEntraMethod, _ path: String, headers: KeyValuePairs<String, String> = [:],
                        form: KeyValuePairs<String, String>? = nil, json: [String: any Sendable]? = nil,
                        body: [UInt8] = []) async throws -> FakeEntraResponse {
        var request = try browserRequest(method, path, headers: headers.map { ($0.key, $0.value) })
        request.body = body
        if let form {
            request.headers.set("Content-Type", "application/x-www-form-urlencoded")
            request.body = Array(FormParameters(form.map { ($0.key, $0.value) }).encoded.utf8)
        }
        if let json {
            request.headers.set("Content-Type", "application/json")
            request.body = try FoundationJSON.bytes(of: json)
        }
        return FakeEntraResponse(try await send(request))
    }

    func browserRequest(_ method: FakeEntraMethod, _ path: String, headers: [(String, String)] = []) throws -> BrowserRequest {
        let url = BrowserURL.isAbsolute(path) ? BrowserURL(path) : origin.resolving(path.hasPrefix("/") ? path : "/" + path)
        guard let url else { throw FakeEntraTestingError("not a path or an http(s) URL: \(path)") }
        var request = BrowserRequest(method: method.name, url: url)
        for (name, value) in headers { request.headers.add(name, value) }
        return request
    }

    /// One exchange through this client's transport; live ones run on a thread of their own.
    func send(_ request: BrowserRequest) async throws -> HTTPResponse {
        try await perform { transport in try transport.send(request) }
    }

    /// Runs synchronous transport work: directly for `.router` (no I/O), on a thread of its own for `.live`.
    func perform<Value: Sendable>(_ work: @escaping @Sendable (any BrowserTransport & Sendable) throws -> Value) async throws -> Value {
        let transport = self.transport
        switch mode {
        case .router: return try work(transport)
        case .live: return try await offThePool { try work(transport) }
        }
    }
}
