package import EntraHTTP

/// One request of the headless browser, to an absolute URL.
package struct BrowserRequest: Sendable, Equatable {
    package var method: String
    package var url: BrowserURL
    package var headers: HTTPHeaders
    package var body: [UInt8]

    package init(method: String, url: BrowserURL, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// How the walker reaches servers: over sockets and TLS in `fakeentra browse`, straight into the
/// application's responder in tests. Request in, response out; a failure to connect is thrown.
package protocol BrowserTransport {
    func send(_ request: BrowserRequest) throws -> HTTPResponse
}
