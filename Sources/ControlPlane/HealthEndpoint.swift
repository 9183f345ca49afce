package import EntraHTTP
import FoundationGaps
package import ExchangeKernel
package import IdentityPlatform
import LocatedJSON
import Scenarios

/// `GET /_fakeentra/health`: liveness for scripts and CI fixtures that wait for readiness. It needs no
/// control credentials (load balancers, container health checks, `fakeentra` waiting for readiness).
package struct HealthEndpoint: Sendable {
    package static let path = "/_fakeentra/health"
    package let version: String
    /// Measured on the monotonic clock: uptime must not jump when the virtual clock moves.
    package let startedAt: ContinuousClock.Instant
    /// Whether `--state` has kept every change: a failed write makes the server `degraded` (503) until restarted.
    package let durability: StateDurability?

    package init(version: String, startedAt: ContinuousClock.Instant = .now, durability: StateDurability? = nil) {
        self.version = version
        self.startedAt = startedAt
        self.durability = durability
    }

    /// A GET of the health path without a body: what the event loop answers itself, before any other
    /// layer. HEAD, and a GET with a body (the cross-site guard reads it), go the long way.
    static func isProbe(_ request: HTTPRequest) -> Bool {
        request.method == "GET" && request.body.isEmpty && request.rawPath == path
    }

    package func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            // A control endpoint: its refusal is in the control API's one error shape.
            var response = ScenarioEngineError(status: 405, code: "method_not_allowed", message: "the health check answers GET and HEAD").response
            response.headers.set("Allow", "GET, HEAD")
            return response
        }
        let uptime = ContinuousClock.now - startedAt
        var writer = JSONWriter()
        writer.beginObject()
        let degraded = durability?.degradedReason
        writer.key("status")
        writer.string(degraded == nil ? "ok" : "degraded")
        if let degraded {
            writer.key("reason")
            writer.string(degraded)
        }
        writer.key("version")
        writer.string(version)
        writer.key("uptimeSeconds")
        writer.number(Self.secondsWithMilliseconds(uptime))
        writer.endObject()
        // Degraded is 503: a container's health check and a fixture's readiness wait both read the status.
        return HTTPResponse(status: degraded == nil ? .ok : .serviceUnavailable, headers: ["Cache-Control": "no-store", "Content-Type": "application/json"], body: writer.bytes)
    }

    /// `12.345`, rounded to the millisecond as `%.3f` did: a probe's answer is formatted without
    /// `String(format:)`, which cost more than the rest of the request.
    static func secondsWithMilliseconds(_ duration: Duration) -> String {
        let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let milliseconds = max(0, (microseconds + 500) / 1000)
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// The first layer: a health probe's answer is a constant-time JSON object that no scenario rule, world
/// or Host changes and the journal does not keep, given at once and on the event loop.
package struct HealthProbe: ExchangeLayer {
    package let endpoint: HealthEndpoint

    package init(_ endpoint: HealthEndpoint) { self.endpoint = endpoint }

    package func serves(_ route: RequestRoute) -> Bool { route == .control }

    package func respond(to request: HTTPRequest, context: ExchangeContext, next: ExchangeStack.Next) -> HTTPResponse {
        HealthEndpoint.isProbe(request) ? endpoint.respond(to: request) : next(request, context)
    }

    package func answersOnLoop(_ request: HTTPRequest, route: RequestRoute) -> Bool? {
        HealthEndpoint.isProbe(request) ? true : nil
    }
}
