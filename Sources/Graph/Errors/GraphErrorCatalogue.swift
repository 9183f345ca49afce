import EntraHTTP
package import FoundationGaps
package import IdentityPlatform

/// The errors Graph returns, with the codes and messages of responses the real service sent, as quoted in
/// public issue trackers and Graph's docs: "Access token is empty.", the IDX14100 text (2024), "Signature is
/// invalid." (2024), "Lifetime validation failed, the token is expired." (2025; older: "Access token has
/// expired or is not yet valid."), "…Invalid audience.", `ImageNotFound` with the Fast.Profile exception text
/// (current; Exchange used to say `ErrorItemNotFound` "The photo wasn't found."), calendarView's
/// `ErrorInvalidParameter`, the CAE message. Inferred by analogy, not seen verbatim: "…not yet valid.",
/// "…Invalid issuer.", "…missing an Expiration Time.", "The query parameter '$x' is not supported.",
/// "Invalid version: v2.0".
extension GraphError {
    /// `Bearer realm="", authorization_uri="<login origin>/common/oauth2/authorize", client_id="<Graph app id>"`,
    /// optionally followed by more parameters (a CAE challenge).
    package static func bearerChallenge(authorityOrigin: String, extra: [(String, String)] = []) -> String {
        var parts = [
            #"realm="""#,
            #"authorization_uri="\#(authorityOrigin)/common/oauth2/authorize""#,
            #"client_id="\#(Resource.graphAppID)""#,
        ]
        parts += extra.map { #"\#($0.0)="\#($0.1)""# }
        return "Bearer " + parts.joined(separator: ", ")
    }

    /// 401 `InvalidAuthenticationToken` with the bearer challenge.
    package static func invalidAuthenticationToken(_ message: String, authorityOrigin: String) -> GraphError {
        GraphError(
            status: .unauthorized, code: "InvalidAuthenticationToken", message: message,
            headers: ["WWW-Authenticate": bearerChallenge(authorityOrigin: authorityOrigin)]
        )
    }

    /// 403 `Authorization_RequestDenied`: the token lacks every permission the directory resource accepts.
    package static let insufficientPrivileges = GraphError(
        status: .forbidden, code: "Authorization_RequestDenied", message: "Insufficient privileges to complete the operation."
    )

    /// 403 as the Outlook workload (mail, calendar) answers a token without the permission.
    package static let accessDenied = GraphError(
        status: .forbidden, code: "ErrorAccessDenied", message: "Access is denied. Check credentials and try again."
    )

    /// 404 for a user (or other directory object) that does not exist or is not visible in the token's tenant.
    package static func resourceNotFound(_ id: String) -> GraphError {
        GraphError(
            status: .notFound, code: "Request_ResourceNotFound",
            message: "Resource '\(id)' does not exist or one of its queried reference-property objects are not present."
        )
    }

    /// 400 for a path segment Graph does not know.
    package static func segmentNotFound(_ segment: String) -> GraphError {
        GraphError(status: .badRequest, code: "BadRequest", message: "Resource not found for the segment '\(segment)'.")
    }

    /// 400 for an API version other than v1.0 and beta.
    package static func invalidVersion(_ version: String) -> GraphError {
        GraphError(status: .badRequest, code: "BadRequest", message: "Invalid version: \(version)")
    }

    /// 400 for a `$`-option the resource does not support.
    package static func unsupportedQueryOption(_ name: String) -> GraphError {
        GraphError(status: .badRequest, code: "BadRequest", message: "The query parameter '\(name)' is not supported.")
    }

    /// 400 for `?api-version=` on a Graph resource (as answered to SDKs that appended Azure AD Graph's).
    package static let apiVersionNotAllowed = GraphError(
        status: .badRequest, code: "BadRequest", message: "Query parameter api-version not allowed"
    )

    /// 400 for a `$select`/`$orderby` property the type does not have.
    package static func unknownProperty(_ name: String, type: String, inSelect: Bool) -> GraphError {
        let prefix = inSelect ? "Parsing OData Select and Expand failed: " : ""
        return GraphError(
            status: .badRequest, code: "BadRequest",
            message: "\(prefix)Could not find a property named '\(name)' on type 'microsoft.graph.\(type)'."
        )
    }

    /// 400 for a `$top`/`$skip` value that is not a non-negative integer.
    package static func invalidIntegerOption(_ name: String, value: String) -> GraphError {
        GraphError(
            status: .badRequest, code: "BadRequest",
            message: "Invalid value '\(value)' for \(name) query option found. The \(name) query option requires a non-negative integer value."
        )
    }

    /// 400 for `$top` beyond the directory's page limit.
    package static func invalidPageSize(_ value: Int) -> GraphError {
        GraphError(
            status: .badRequest, code: "Request_UnsupportedQuery",
            message: "Invalid page size specified: '\(value)'. Must be between 1 and 999 inclusive."
        )
    }

    /// 400 for a `$filter` the directory cannot evaluate.
    package static let unsupportedQuery = GraphError(status: .badRequest, code: "Request_UnsupportedQuery", message: "Unsupported Query.")

    /// A `$filter` on a property the directory does not filter by (recorded: groups' createdDateTime).
    package static func unsupportedFilterProperty(_ property: String, resource: String) -> GraphError {
        GraphError(status: .badRequest, code: "Request_UnsupportedQuery",
                   message: "Unsupported or invalid query filter clause specified for property '\(property)' of resource '\(resource)'.")
    }

    /// An operator only advanced queries take, asked without `$count=true` and `ConsistencyLevel: eventual`.
    package static func advancedOperator(_ name: String) -> GraphError {
        GraphError(status: .badRequest, code: "Request_UnsupportedQuery",
                   message: "Operator '\(name)' is not supported because the required parameters might be missing. Try adding $count=true query parameter and ConsistencyLevel:eventual header. Refer to https://aka.ms/graph-docs/advanced-queries for more information")
    }

    /// 400 for `/me` with an app-only token.
    package static let meRequiresDelegatedFlow = GraphError(
        status: .badRequest, code: "BadRequest", message: "/me request is only valid with delegated authentication flow."
    )

    /// 404 for a user without a profile photo (the current service's wording).
    package static let imageNotFound = GraphError(
        status: .notFound, code: "ImageNotFound",
        message: "Exception of type 'Microsoft.Fast.Profile.Core.Exception.ImageNotFoundException' was thrown."
    )

    /// 400 for `calendarView` without its time window.
    package static let calendarViewWindowRequired = GraphError(
        status: .badRequest, code: "ErrorInvalidParameter",
        message: "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime."
    )

    /// 400 for a `startDateTime`/`endDateTime` that is not an ISO 8601 date and time.
    package static func invalidDateTimeParameter(_ name: String, value: String) -> GraphError {
        GraphError(status: .badRequest, code: "ErrorInvalidParameter", message: "The value '\(value)' of parameter '\(name)' is invalid.")
    }

    /// 400 for a `calendarView` window whose end is before its start (an empty window, end == start, is
    /// allowed). Graph's code for window errors; the exact wording of this one was not found in public
    /// captures, so it is written in the style of the other window errors.
    package static let calendarViewWindowReversed = GraphError(
        status: .badRequest, code: "ErrorInvalidParameter",
        message: "The value of parameter 'EndDateTime' must be later than or equal to the value of parameter 'StartDateTime'."
    )

    /// 404 for an event id the mailbox does not hold.
    package static let eventNotFound = GraphError(
        status: .notFound, code: "ErrorItemNotFound", message: "The specified object was not found in the store."
    )

    /// 405 for a method the resource does not accept.
    package static let methodNotAllowed = GraphError(
        status: .methodNotAllowed, code: "Request_BadRequest", message: "Specified HTTP method is not allowed for the request target."
    )

    /// 429 with `Retry-After` (seconds). Defaults to the gateway's generic throttling answer; pass a workload's
    /// own code and message (e.g. `activityLimitReached` + inner `throttledRequest`) to imitate it.
    package static func throttled(
        retryAfter seconds: Int, code: String = "TooManyRequests", message: String = "Too many requests. Please try again later.",
        innerCode: String? = nil
    ) -> GraphError {
        GraphError(status: .tooManyRequests, code: code, message: message, innerCode: innerCode, headers: ["Retry-After": String(max(0, seconds))])
    }

    /// 503 with `Retry-After`, as Graph answers during an outage.
    package static func serviceUnavailable(retryAfter seconds: Int? = nil) -> GraphError {
        GraphError(
            status: .serviceUnavailable, code: "serviceNotAvailable", message: "Service unavailable. Please try again later.",
            headers: seconds.map { ["Retry-After": String(max(0, $0))] } ?? [:]
        )
    }

    /// A continuous access evaluation challenge: 401 whose `WWW-Authenticate` carries `error="insufficient_claims"`
    /// and `claims` (base64 of `{"access_token":{"nbf":{"essential":true, "value":"<epoch>"}}}`, byte for byte as
    /// Graph sends it). Only clients that declared the `cp1` capability receive one: nil for any other token,
    /// so the caller lets the request through as the real service would.
    package static func claimsChallenge(
        for token: BearerAccessToken, notBefore: Date, authorityOrigin: String,
        reason: String = "TokenIssuedBeforeRevocationTimestamp"
    ) -> GraphError? {
        guard token.isCAECapable else { return nil }
        return claimsChallenge(claims: notBeforeClaims(notBefore), authorityOrigin: authorityOrigin, reason: reason)
    }

    /// The claims a revocation challenge asks for: a token issued at or after `notBefore`.
    package static func notBeforeClaims(_ notBefore: Date) -> String {
        BearerAccessToken.revocationClaims(notBefore: notBefore)
    }

    /// The challenge with `claims` (JSON text) as the client must pass them back.
    package static func claimsChallenge(claims: String, authorityOrigin: String, reason: String = "TokenIssuedBeforeRevocationTimestamp") -> GraphError {
        let encoded = Data(claims.utf8).base64EncodedString()
        return GraphError(
            status: .unauthorized, code: "InvalidAuthenticationToken",
            message: "Continuous access evaluation resulted in challenge with result: InteractionRequired and code: \(reason)",
            headers: ["WWW-Authenticate": bearerChallenge(authorityOrigin: authorityOrigin, extra: [("error", "insufficient_claims"), ("claims", encoded)])]
        )
    }
}
