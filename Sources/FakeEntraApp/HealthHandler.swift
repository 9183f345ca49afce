import EntraHTTP
import Foundation

/// `GET /_fakeentra/health`: liveness for scripts and CI fixtures that wait for readiness.
public struct HealthHandler: HTTPHandler {
    public static let path = "/_fakeentra/health"
    public let version: String
    /// Measured on the monotonic clock: uptime must not jump when the virtual clock moves.
    public let startedAt: ContinuousClock.Instant

    public init(version: String, startedAt: ContinuousClock.Instant = .now) {
        self.version = version
        self.startedAt = startedAt
    }

    public func handle(_ request: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        guard request.rawPath == Self.path else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: .methodNotAllowed, headers: ["Allow": "GET, HEAD"], text: "{\"error\":\"method_not_allowed\"}", contentType: "application/json")
        }
        let uptime = ContinuousClock.now - startedAt
        let seconds = Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18
        let body = "{\"status\":\"ok\",\"version\":\"\(version)\",\"uptimeSeconds\":\(String(format: "%.3f", seconds))}"
        return HTTPResponse(status: .ok, headers: ["Cache-Control": "no-store"], text: body, contentType: "application/json")
    }
}
