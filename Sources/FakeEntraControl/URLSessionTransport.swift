public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The control API over URLSession: what an iOS unit or UI test has. The server runs on the Mac; from
/// the Simulator `http://127.0.0.1:PORT` (`fakeentra serve --http-port`) needs only ATS's local-networking
/// exception, and an HTTPS origin a session that trusts FakeEntra's CA (docs/testing-swift.md).
public struct FakeEntraURLSessionTransport: FakeEntraControlTransport {
    public let baseURL: URL
    public let session: URLSession

    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    public func exchange(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) async throws -> (status: Int, body: [UInt8]) {
        guard let url = URL(string: baseURL.absoluteString.trimmingCharacters(in: ["/"]) + path) else {
            throw FakeEntraControlError("not a path on \(baseURL): \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if !body.isEmpty { request.httpBody = Data(body) }
        let session = self.session
        return try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: FakeEntraControlError("\(method) \(url): \(error.localizedDescription)"))
                } else if let http = response as? HTTPURLResponse {
                    continuation.resume(returning: (http.statusCode, Array(data ?? Data())))
                } else {
                    continuation.resume(throwing: FakeEntraControlError("\(method) \(url): not an HTTP answer"))
                }
            }.resume()
        }
    }
}

extension FakeEntraControl {
    /// Over URLSession to `baseURL` (the server's origin, as `fakeentra serve` prints it).
    public init(baseURL: URL, controlSecret: String? = nil, session: URLSession = .shared) {
        self.init(transport: FakeEntraURLSessionTransport(baseURL: baseURL, session: session), controlSecret: controlSecret)
    }
}
