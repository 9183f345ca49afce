package import EntraHTTP
import Foundation
import LocatedJSON
import Scenarios

/// `GET /_fakeentra/health`: liveness for scripts and CI fixtures that wait for readiness.
package struct HealthHandler: HTTPHandler {
    package static let path = "/_fakeentra/health"
    package let version: String
    /// Measured on the monotonic clock: uptime must not jump when the virtual clock moves.
    package let startedAt: ContinuousClock.Instant

    package init(version: String, startedAt: ContinuousClock.Instant = .now) {
        self.version = version
        self.startedAt = startedAt
    }

    package func handle(_ request: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        guard request.rawPath == Self.path else { return nil }
        guard request.method == "GET" || request.method == "HEAD" else {
            // A control endpoint: its refusal is in the control API's one error shape.
            var response = ScenarioEngineError(status: 405, code: "method_not_allowed", message: "the health check answers GET and HEAD").response
            response.headers.set("Allow", "GET, HEAD")
            return response
        }
        let uptime = ContinuousClock.now - startedAt
        let seconds = Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("status")
        writer.string("ok")
        writer.key("version")
        writer.string(version)
        writer.key("uptimeSeconds")
        writer.raw(String(format: "%.3f", seconds))
        writer.endObject()
        return HTTPResponse(status: .ok, headers: ["Cache-Control": "no-store", "Content-Type": "application/json"], body: writer.bytes)
    }
}
