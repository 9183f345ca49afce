package import EntraHTTP

/// CORS as Graph answers browsers (single-page apps calling Graph with MSAL.js): any origin may read
/// responses, which carry no cookies; preflights succeed without a token.
package enum CrossOrigin {
    static let exposedHeaders = "ETag, Location, Preference-Applied, Content-Range, request-id, client-request-id, ReadWriteConsistencyToken, SdkVersion, WWW-Authenticate, x-ms-client-gcc-tenant, Retry-After"

    /// Adds `Access-Control-Allow-Origin`/`-Expose-Headers` when the request came from a page (`Origin`).
    package static func decorate(_ response: inout HTTPResponse, for request: HTTPRequest) {
        guard request.headers["Origin"] != nil else { return }
        response.headers.set("Access-Control-Allow-Origin", "*")
        response.headers.set("Access-Control-Expose-Headers", exposedHeaders)
    }

    /// The answer to `OPTIONS`: 200, allowing the method and headers the browser asks for.
    static func preflight(_ request: HTTPRequest, trace: GraphTrace) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, headers: trace.commonHeaders)
        response.headers.set("Access-Control-Allow-Origin", "*")
        response.headers.set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
        let asked = request.headers["Access-Control-Request-Headers"] ?? "authorization, content-type, client-request-id, prefer, consistencylevel"
        response.headers.set("Access-Control-Allow-Headers", asked)
        response.headers.set("Access-Control-Max-Age", "3600")
        return response
    }
}
