package import ExchangeKernel
import LocatedJSON
package import EntraHTTP
import FoundationGaps
import IdentityPlatform

/// An error of Azure Resource Manager, in its own JSON (`{"error": {"code", "message"}}`), as recorded
/// (Tests/Fidelity/recordings/arm--*: MissingApiVersionParameter, InvalidAuthenticationToken*).
package struct ResourceManagerError: Error, Sendable, Equatable {
    package var status: HTTPStatus
    package var code: String
    package var message: String
    /// A 401's `WWW-Authenticate` when it is not the generic one (a continuous access evaluation challenge).
    package var challenge: String?
    /// Refused by ARM's gateway before a resource provider saw the request (`x-ms-failure-cause: gateway`).
    package var byGateway = false

    package init(status: HTTPStatus, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    package func response(correlationID: String) -> HTTPResponse {
        let body = JSONValue.object([("error", .object([("code", .string(code)), ("message", .string(message))]))])
        var headers = ResourceManagerHandler.standardHeaders(correlationID: correlationID)
        if status == .unauthorized {
            // What ARM sends a client without a usable token: where to get one.
            headers.set("WWW-Authenticate", challenge ?? #"Bearer authorization_uri="https://login.windows.net/", error="invalid_token", error_description="The authentication failed because of missing 'Authorization' header.""#)
        }
        // ARM's gateway names itself as the cause of what it refuses before a resource provider sees the
        // request: an unknown subscription (recorded 2023, azure-sdk-assets .NET ConstructWithInvalidSubscription),
        // a revoked session (2022).
        if byGateway || code == Self.subscriptionNotFoundCode { headers.set("x-ms-failure-cause", "gateway") }
        return HTTPResponse(status: status, headers: headers, body: body.bytes).stating(StatedError(code: code, body: .init(error: code)))
    }

    static let missingAPIVersion = ResourceManagerError(
        status: .badRequest, code: "MissingApiVersionParameter", message: "The api-version query parameter (?api-version=) is required for all requests."
    )

    static let missingAuthorization = ResourceManagerError(
        status: .unauthorized, code: "AuthenticationFailed", message: "Authentication failed. The 'Authorization' header is missing."
    )

    static func invalidToken(_ reason: String) -> ResourceManagerError {
        ResourceManagerError(status: .unauthorized, code: "InvalidAuthenticationToken", message: "The access token is invalid. \(reason)")
    }

    /// Both times in ARM's own format (`5/13/2024 6:05:58 PM`), as recorded in 2017, 2019, 2024 and 2025.
    static func expiredToken(expiredAt: Date, now: Date) -> ResourceManagerError {
        ResourceManagerError(status: .unauthorized, code: "ExpiredAuthenticationToken",
                             message: "The access token expiry UTC time '\(armTime(expiredAt))' is earlier than current UTC time '\(armTime(now))'.")
    }

    /// `M/d/yyyy h:mm:ss tt` in UTC, as .NET's invariant culture writes a date.
    static func armTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let hour = c.hour ?? 0
        let twoDigits = { (value: Int?) in value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(c.month ?? 1)/\(c.day ?? 1)/\(c.year ?? 1970) \(hour % 12 == 0 ? 12 : hour % 12):\(twoDigits(c.minute)):\(twoDigits(c.second)) \(hour < 12 ? "AM" : "PM")"
    }

    /// A CAE-capable client's token issued before its user's sessions were revoked, as recorded in 2022
    /// (azure-sdk-for-js identity CAE recordings): the generic AuthenticationFailed body, and the claims the
    /// client must sign in again with in the challenge. Other clients keep their token until it expires.
    static func sessionRevoked(notBefore: Date) -> ResourceManagerError {
        var error = ResourceManagerError(status: .unauthorized, code: "AuthenticationFailed", message: "Authentication failed.")
        let claims = Data(BearerAccessToken.revocationClaims(notBefore: notBefore).utf8).base64EncodedString()
        error.challenge = #"Bearer authorization_uri="https://login.windows.net/", error="invalid_token", error_description="User session has been revoked", claims="\#(claims)""#
        error.byGateway = true
        return error
    }

    static func wrongAudience(_ audience: String) -> ResourceManagerError {
        let allowed = ResourceManagerHandler.audiences.sorted().map { "'\($0)'" }.joined(separator: ",")
        return ResourceManagerError(status: .unauthorized, code: "InvalidAuthenticationTokenAudience",
                                    message: "The access token has been obtained for wrong audience or resource '\(audience)'. It should exactly match with one of the allowed audiences \(allowed).")
    }

    /// The recorded wording (InvalidAuthenticationTokenTenant), naming the tenant to sign in to instead.
    static func wrongTenant(tokenIssuer: String, owner: String) -> ResourceManagerError {
        ResourceManagerError(status: .unauthorized, code: "InvalidAuthenticationTokenTenant",
                             message: "The access token is from the wrong issuer '\(tokenIssuer)'. It must match the tenant '\(Issuer.v1(tenantID: owner))' associated with this subscription. Please use the authority (URL) 'https://login.windows.net/\(owner)' to get the token. Note, if the subscription is transferred to another tenant there is no impact to the services, but information about new tenant could take time to propagate (up to an hour). If you just transferred your subscription and see this error message, please try back later.")
    }

    static let subscriptionNotFoundCode = "SubscriptionNotFound"

    static func subscriptionNotFound(_ id: String) -> ResourceManagerError {
        ResourceManagerError(status: .notFound, code: subscriptionNotFoundCode, message: "The subscription '\(id)' could not be found.")
    }

    /// Paths below ARM's root that FakeEntra does not model (resource groups, providers): ARM's error form,
    /// naming what is served.
    static func notServed(_ path: String) -> ResourceManagerError {
        ResourceManagerError(status: .notFound, code: "InvalidResourceType",
                             message: "FakeEntra's Resource Manager serves /tenants, /subscriptions, /subscriptions/{id} and /metadata/endpoints, not '\(path)'.")
    }

    static let methodNotAllowed = ResourceManagerError(
        status: .methodNotAllowed, code: "MethodNotAllowed", message: "The requested method is not allowed on this resource; FakeEntra's Resource Manager answers GET."
    )
}
