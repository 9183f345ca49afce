import EntraHTTP

/// One request of the headless browser, to an absolute URL.
public struct BrowserRequest: Sendable, Equatable {
    public var method: String
    public var url: BrowserURL
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: String, url: BrowserURL, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// How the walker reaches servers: over sockets and TLS in `fakeentra browse`, straight into the
/// application's responder in tests. Request in, response out; a failure to connect is thrown.
public protocol BrowserTransport {
    func send(_ request: BrowserRequest) throws -> HTTPResponse
}
