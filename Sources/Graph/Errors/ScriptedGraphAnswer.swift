import EntraHTTP
package import ExchangeKernel
package import FoundationGaps

/// A scenario rule's answer in Graph's own words. Graph's gateway throttles and fails before it looks at
/// the token; the workload's errors and continuous access evaluation's challenge come after the token was
/// accepted, so a client that sends no valid token meets the token error first, as it would on Graph.
extension GraphError {
    /// Graph's wording of a code a scenario names without a message.
    package static func wording(ofCode code: String) -> String {
        switch code {
        case insufficientPrivileges.code: insufficientPrivileges.message
        case accessDenied.code: accessDenied.message
        case "TooManyRequests": throttled(retryAfter: 0).message
        case "serviceNotAvailable": serviceUnavailable().message
        case "InvalidAuthenticationToken": "Access token validation failure. Invalid audience."
        case "Request_ResourceNotFound": "Resource could not be discovered."
        default: "An unspecified error has occurred."
        }
    }

    /// A scripted Graph error: the spec's status, code and message, with `Retry-After` when it gives one.
    package static func scripted(_ spec: GraphErrorSpec) -> GraphError {
        var headers: HTTPHeaders = [:]
        if let retryAfter = spec.retryAfter { headers.set("Retry-After", String(max(0, retryAfter))) }
        return GraphError(status: HTTPStatus(spec.status), code: spec.code, message: spec.message ?? wording(ofCode: spec.code), headers: headers)
    }

    /// Throttling (429 `TooManyRequests`) or an outage (503 `serviceNotAvailable`, 504 `GatewayTimeout`,
    /// else `generalException`) as the gateway answers it.
    package static func scripted(_ spec: ServiceErrorSpec, now: Date) -> GraphError {
        var error: GraphError = switch spec.status {
        case 429: .throttled(retryAfter: spec.retryAfter ?? 0)
        case 503: .serviceUnavailable(retryAfter: spec.retryAfter)
        default: GraphError(status: HTTPStatus(spec.status), code: spec.status == 504 ? "GatewayTimeout" : "generalException",
                            message: "An unspecified error has occurred.", headers: spec.retryAfter.map { ["Retry-After": String($0)] } ?? [:])
        }
        if spec.status == 429, spec.retryAfter == nil { error.headers.remove("Retry-After") }
        if let header = spec.retryAfterHeader(now: now) { error.headers.set("Retry-After", header) }
        if let message = spec.message { error.message = message }
        return error
    }
}
