import EntraHTTP
import Foundation
import IdentityPlatform

/// How the engine renders Microsoft Graph's own failures (errors, throttling, CAE challenges).
/// A protocol so that the Graph module's renderers can stand in once they exist.
public protocol GraphFaultRendering: Sendable {
    func error(status: Int, code: String, message: String, retryAfter: Int?, request: HTTPRequest, now: Date) -> HTTPResponse
    func claimsChallenge(claims: String, request: HTTPRequest, now: Date) -> HTTPResponse
}

/// Graph's wire format: `{"error":{"code","message","innerError":{"date","request-id","client-request-id"}}}`
/// with `request-id` / `client-request-id` headers, as documented for Microsoft Graph.
public struct GraphFaults: GraphFaultRendering {
    public init() {}

    public static func defaultMessage(code: String) -> String {
        switch code {
        case "Authorization_RequestDenied": "Insufficient privileges to complete the operation."
        case "InvalidAuthenticationToken": "Access token validation failure. Invalid audience."
        case "TooManyRequests", "activityLimitReached": "Too many requests from Identifier under category. Please try again later."
        case "Request_ResourceNotFound": "Resource could not be discovered."
        case "ErrorAccessDenied": "Access is denied. Check credentials and try again."
        case "serviceNotAvailable": "The service is temporarily unavailable. Please try again later."
        case "generalException": "An unspecified error has occurred."
        default: "The request failed."
        }
    }

    public func error(status: Int, code: String, message: String, retryAfter: Int?, request: HTTPRequest, now: Date) -> HTTPResponse {
        let requestID = UUID().uuidString.lowercased()
        let clientRequestID = request.headers["client-request-id"] ?? requestID
        var inner: [(String, JSONFragment)] = [("date", .string(Self.dateText(now))), ("request-id", .string(requestID))]
        inner.append(("client-request-id", .string(clientRequestID)))
        let body = JSONFragment.object([("error", .object([("code", .string(code)), ("message", .string(message)), ("innerError", .object(inner))]))])
        var headers: HTTPHeaders = [:]
        headers.set("Content-Type", "application/json")
        headers.set("request-id", requestID)
        headers.set("client-request-id", clientRequestID)
        if let retryAfter { headers.set("Retry-After", String(retryAfter)) }
        return HTTPResponse(status: HTTPStatus(status), headers: headers, body: Array(body.text.utf8))
    }

    public func claimsChallenge(claims: String, request: HTTPRequest, now: Date) -> HTTPResponse {
        var response = error(status: 401, code: "InvalidAuthenticationToken", message: "Continuous access evaluation resulted in challenge with result: InteractionRequired and code: TokenIssuedBeforeRevocationTimestamp",
                             retryAfter: nil, request: request, now: now)
        let encoded = Data(claims.utf8).base64EncodedString()
        response.headers.set("WWW-Authenticate", "Bearer realm=\"\", authorization_uri=\"https://login.microsoftonline.com/common/oauth2/authorize\", client_id=\"00000003-0000-0000-c000-000000000000\", error=\"insufficient_claims\", claims=\"\(encoded)\"")
        return response
    }

    static func dateText(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date).replacingOccurrences(of: "Z", with: "")
    }
}
