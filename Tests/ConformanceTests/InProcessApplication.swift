import EntraHTTP
import FakeEntraApp

extension FakeEntraApplication {
    /// One request as a loopback client of `https://127.0.0.1:8443` sends it; `body` is JSON unless `form`.
    func send(_ method: String, _ target: String, body: String = "", form: Bool = false) -> HTTPResponse {
        var headers: HTTPHeaders = ["Host": "127.0.0.1:8443"]
        if !body.isEmpty { headers.set("Content-Type", form ? "application/x-www-form-urlencoded" : "application/json") }
        return responder.respond(to: HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)),
                                 context: ConnectionFacts(remoteAddress: "127.0.0.1", isSecure: true, localPort: 8443))
    }
}
