import EntraHTTP
import Foundation
import Graph
import ExchangeKernel
import IdentityPlatform

/// Microsoft Graph's failures as the Graph module renders them (`GraphError`: body, `request-id`,
/// `client-request-id`, `Retry-After`, `WWW-Authenticate`), for answers the engine gives itself.
enum GraphFaults {
    static func defaultMessage(code: String) -> String {
        switch code {
        case GraphError.insufficientPrivileges.code: GraphError.insufficientPrivileges.message
        case GraphError.accessDenied.code: GraphError.accessDenied.message
        case "TooManyRequests": GraphError.throttled(retryAfter: 0).message
        case "serviceNotAvailable": GraphError.serviceUnavailable().message
        case "InvalidAuthenticationToken": "Access token validation failure. Invalid audience."
        case "Request_ResourceNotFound": "Resource could not be discovered."
        default: "An unspecified error has occurred."
        }
    }

    /// `receipt`: where the error notes what it answered.
    static func trace(_ request: HTTPRequest, now: Date, receipt: ReceiptRecorder) -> GraphTrace {
        GraphTrace(requestID: UUID().uuidString.lowercased(), clientRequestID: request.headers["client-request-id"], date: now, receipt: receipt)
    }

    static func error(status: Int, code: String, message: String, retryAfter: Int?, request: HTTPRequest, now: Date, receipt: ReceiptRecorder) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        if let retryAfter { headers.set("Retry-After", String(max(0, retryAfter))) }
        return GraphError(status: HTTPStatus(status), code: code, message: message, headers: headers).response(in: trace(request, now: now, receipt: receipt))
    }

    /// 429 / 5xx in Graph's own words.
    static func serviceError(_ spec: ServiceErrorSpec, request: HTTPRequest, now: Date, receipt: ReceiptRecorder) -> HTTPResponse {
        var error: GraphError = switch spec.status {
        case 429: .throttled(retryAfter: spec.retryAfter ?? 0)
        case 503: .serviceUnavailable(retryAfter: spec.retryAfter)
        default: GraphError(status: HTTPStatus(spec.status), code: spec.status == 504 ? "GatewayTimeout" : "generalException",
                            message: "An unspecified error has occurred.", headers: spec.retryAfter.map { ["Retry-After": String($0)] } ?? [:])
        }
        if spec.status == 429, spec.retryAfter == nil { error.headers.remove("Retry-After") }
        if let header = spec.retryAfterHeader(now: now) { error.headers.set("Retry-After", header) }
        if let message = spec.message { error.message = message }
        return error.response(in: trace(request, now: now, receipt: receipt))
    }

    /// The CAE challenge Graph sends after a critical event: 401 `InvalidAuthenticationToken` with
    /// `WWW-Authenticate: Bearer …, error="insufficient_claims", claims="<base64>"`.
    static func claimsChallenge(claims: String?, request: HTTPRequest, context: RequestContext, now: Date, receipt: ReceiptRecorder) -> HTTPResponse {
        let text = claims ?? #"{"access_token":{"nbf":{"essential":true, "value":"\#(CalendarRange.wholeSeconds(now.timeIntervalSince1970))"}}}"#
        let encoded = Data(text.utf8).base64EncodedString()
        let error = GraphError(
            status: .unauthorized, code: "InvalidAuthenticationToken",
            message: "Continuous access evaluation resulted in challenge with result: InteractionRequired and code: TokenIssuedBeforeRevocationTimestamp",
            headers: ["WWW-Authenticate": GraphError.bearerChallenge(authorityOrigin: authorityOrigin(request, context: context),
                                                                     extra: [("error", "insufficient_claims"), ("claims", encoded)])]
        )
        return error.response(in: trace(request, now: now, receipt: receipt))
    }

    /// Where the challenge sends the client to sign in: FakeEntra itself, unless Graph's real host was mapped here.
    static func authorityOrigin(_ request: HTTPRequest, context: RequestContext) -> String {
        if request.hostName == "graph.microsoft.com" { return "https://login.microsoftonline.com" }
        return PublicOrigin(request: request, context: context).url
    }
}
