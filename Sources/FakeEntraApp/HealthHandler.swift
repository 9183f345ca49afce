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

    /// A GET of the health path, which needs no control credentials (`ControlAPI`): what the event loop
    /// answers itself. HEAD goes the long way, behind the control API's guard.
    static func isProbe(_ request: HTTPRequest) -> Bool {
        request.method == "GET" && request.rawPath == path
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
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("status")
        writer.string("ok")
        writer.key("version")
        writer.string(version)
        writer.key("uptimeSeconds")
        writer.raw(Self.secondsWithMilliseconds(uptime))
        writer.endObject()
        return HTTPResponse(status: .ok, headers: ["Cache-Control": "no-store", "Content-Type": "application/json"], body: writer.bytes)
    }

    /// `12.345`: a probe's answer is formatted without `String(format:)`, which costs more than the rest
    /// of the request.
    static func secondsWithMilliseconds(_ duration: Duration) -> String {
        let milliseconds = max(0, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
