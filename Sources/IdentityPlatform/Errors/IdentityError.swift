package import ExchangeKernel
package import EntraHTTP
package import FoundationGaps
package import LocatedJSON

/// An error of the Entra ID (or B2C) endpoints. It renders itself the way the real service does:
/// as a token-endpoint JSON body, as /authorize redirect parameters, or as an error page.
package struct IdentityError: HTTPResponseError, Sendable, Equatable {
    /// The OAuth `error` value (`invalid_grant`, `interaction_required`, …).
    package var error: String
    /// The service's numeric code: AADSTS<code> for Entra, AADB2C<code> for B2C.
    package var code: Int
    /// The message after `AADSTSnnnn: `.
    package var message: String
    package var suberror: String?
    /// A claims challenge (JSON text) the client must pass back on its next /authorize.
    package var claims: String?
    package var status: Int
    package var family: Family
    /// Whether a JSON answer links the code's page (`error_uri`): every AADSTS answer does, except the
    /// refusals the service words when a federated issuer cannot be read (recorded without it, 2022-2025).
    package var linksErrorPage = true

    package typealias Family = ErrorFamily

    package init(error: String, code: Int, message: String, suberror: String? = nil, claims: String? = nil, status: Int? = nil, family: Family = .aadsts) {
        self.error = error
        self.code = code
        self.message = message
        self.suberror = suberror
        self.claims = claims
        self.status = status ?? Self.defaultStatus(for: error)
        self.family = family
    }

    static func defaultStatus(for error: String) -> Int { error == "invalid_client" ? 401 : 400 }

    /// The status when it is not the one its `error` implies (a catalogue entry's own, such as 429).
    package var explicitStatus: Int? { status == Self.defaultStatus(for: error) ? nil : status }

    package var prefixedCode: String { "\(family.rawValue)\(code)" }
}

/// Trace and correlation ids of one request, as they appear in every error the service returns.
package struct TraceContext: Sendable, Equatable {
    package var traceID: String
    package var correlationID: String
    package var timestamp: Date
    /// `https://host[:port]`: error URIs point at FakeEntra itself.
    package var origin: String
    /// The endpoint version answering and the token request's `grant_type`: the v1 endpoint and the
    /// grants word some errors differently.
    package var endpointVersion: EndpointVersion
    package var grantType: String?

    package init(traceID: String, correlationID: String, timestamp: Date, origin: String,
                 endpointVersion: EndpointVersion = .v2, grantType: String? = nil) {
        self.traceID = traceID
        self.correlationID = correlationID
        self.timestamp = timestamp
        self.origin = origin
        self.endpointVersion = endpointVersion
        self.grantType = grantType
    }

    package static func == (lhs: TraceContext, rhs: TraceContext) -> Bool {
        lhs.traceID == rhs.traceID && lhs.correlationID == rhs.correlationID && lhs.timestamp == rhs.timestamp && lhs.origin == rhs.origin
    }

    /// Entra's timestamp format: `2025-01-01 12:00:00Z`.
    package var formattedTimestamp: String { InternetDate.entraTimestamp(secondsSince1970: timestamp.timeIntervalSince1970) }
}

/// How an AADSTS description joins its message and its Trace ID, Correlation ID and Timestamp lines.
package enum TraceLineJoin: Sendable {
    /// A JSON error body's: one space. Every raw capture of login.microsoftonline.com's token endpoint since
    /// 2024 joins them so, where the same recorders captured CRLF in 2022 (AADSTS70016 with the same ids:
    /// Content-Length 510 in 2022-03, 501 in 2024-05, 2024-11 and 2025-04; azure-sdk-assets' JS identity
    /// recordings, kubelogin's 2025-02 cassettes; Tests/Fidelity/recordings/*-2024-*, *-2025-*).
    case space
    /// An /authorize redirect's and an error page's: CRLF, as every recorded one shows; none is recorded
    /// since 2024 to say whether they changed with the JSON bodies.
    case lineBreak
}

extension IdentityError {
    /// `AADSTS700082: message Trace ID: … Correlation ID: … Timestamp: …`, the parts joined as `join` says.
    package func description(in trace: TraceContext, join: TraceLineJoin) -> String {
        switch family {
        case .aadsts:
            [ "\(prefixedCode): \(message)", "Trace ID: \(trace.traceID)", "Correlation ID: \(trace.correlationID)",
              "Timestamp: \(trace.formattedTimestamp)" ].joined(separator: join == .space ? " " : "\r\n")
        case .aadb2c:
            // B2C ends its Timestamp line too (a CRLF at the very end), as recorded from *.b2clogin.com.
            "\(prefixedCode): \(message)\r\nCorrelation ID: \(trace.correlationID)\r\nTimestamp: \(trace.formattedTimestamp)\r\n"
        }
    }

    /// Codes the v1 endpoint and the on-behalf-of grant answer `interaction_required` where v2.0's other
    /// grants answer `invalid_grant`, as recorded from login.microsoftonline.com: a v1 refresh grant
    /// (AADSTS50076, 2022), a v1 grant with a claims challenge (AADSTS50079, 2017), a v1 password grant
    /// (AADSTS53003, 2023) and a v2.0 on-behalf-of exchange (AADSTS50079), against v2.0 refresh and code
    /// grants answered `invalid_grant` (AADSTS50076, 2023 and 2025). Tests/Fidelity/recordings.
    static let interactionRequiredCodes: Set<Int> = [50076, 50079, 53003]
    static let onBehalfOfGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The `error` value as the answering endpoint words it. An unknown tenant is `invalid_tenant` to
    /// discovery but `invalid_request` to a token request (recorded AADSTS90002, 2020).
    package func errorValue(in trace: TraceContext) -> String {
        if family == .aadsts, code == 90002, trace.grantType != nil { return "invalid_request" }
        guard family == .aadsts, error == "invalid_grant", Self.interactionRequiredCodes.contains(code),
              trace.endpointVersion == .v1 || trace.grantType == Self.onBehalfOfGrantType else { return error }
        return "interaction_required"
    }

    /// The suberror as the answering endpoint words it: a revoked grant (AADSTS50173) is `bad_token` to the
    /// v2.0 token endpoint (recorded 2021-10, MSAL for Node's refresh) and has none on v1.0 (recorded 2021-01,
    /// the Azure CLI's ADAL refresh).
    package func suberror(in trace: TraceContext) -> String? {
        if suberror == nil, family == .aadsts, code == 50173, trace.endpointVersion == .v2, trace.grantType != nil { return "bad_token" }
        return suberror
    }

    /// The claims challenge an MFA answer carries: the Conditional Access policy that asked for it
    /// (`capolids`), except on a refresh or password grant, whose recorded answers carry none (AADSTS50076
    /// and 50079 recorded with it on code, on-behalf-of and ADAL grants; without it on refresh grants, 2022
    /// and 2025, and on MSAL for Go's password grant, 2025).
    package func claimsChallenge(in trace: TraceContext) -> String? {
        if let claims { return claims }
        guard family == .aadsts, code == 50076 || code == 50079, let grant = trace.grantType, grant != "refresh_token", grant != "password" else { return nil }
        return #"{"access_token":{"capolids":{"essential":true,"values":["\#(Self.demoConditionalAccessPolicyID)"]}}}"#
    }

    /// The id of the Conditional Access policy FakeEntra's MFA answers name.
    static let demoConditionalAccessPolicyID = "6f4b3c2a-1d0e-4f9a-8b7c-5e3d2c1b0a99"

    /// The token endpoint's JSON error body with its status (AADSTS and AADB2C alike); an /authorize
    /// error travels as `redirectParameters` or a page instead.
    package func response(in trace: TraceContext) -> HTTPResponse { tokenEndpointResponse(in: trace) }

    /// The token endpoint's JSON error body with its status.
    /// `extraMembers`: what an error carries besides the OAuth members (native authentication's
    /// `continuation_token`, `required_attributes`, `invalid_attributes`).
    /// `conditionalAccessClaims`: whether a multi-factor refusal names the Conditional Access policy in a
    /// `claims` challenge, as the token endpoint's grants do (the native authentication API's do not).
    /// An error of code 0 is one the reference names without an AADSTS code (External ID's
    /// `attribute_validation_failed`, `unsupported_auth_method`): no code is made up for it, so the body has
    /// no `error_codes` and the description is the message alone, as in MSAL's own fixtures of them.
    package func tokenEndpointResponse(in trace: TraceContext, extraHeaders: HTTPHeaders = [:], extraMembers: [(String, JSONValue)] = [],
                                       conditionalAccessClaims: Bool = true) -> HTTPResponse {
        let oauthError = errorValue(in: trace)
        let hasCode = code != 0
        let coded = hasCode && family == .aadsts
        var body: [(String, JSONValue)] = [
            ("error", .string(oauthError)),
            ("error_description", .string(hasCode ? description(in: trace, join: .space) : message)),
        ]
        if coded { body.append(("error_codes", .array([.int(code)]))) }
        // B2C's token endpoint answers the two members above alone (recorded from *.b2clogin.com, 2017 and 2025).
        if family == .aadsts {
            body += [
                ("timestamp", .string(trace.formattedTimestamp)),
                ("trace_id", .string(trace.traceID)),
                ("correlation_id", .string(trace.correlationID)),
            ]
        }
        if coded, linksErrorPage { body.append(("error_uri", .string("\(trace.origin)/error?code=\(code)"))) }
        let suberror = suberror(in: trace)
        if let suberror { body.append(("suberror", .string(suberror))) }
        if conditionalAccessClaims, let claims = claimsChallenge(in: trace) { body.append(("claims", .string(claims))) }
        body += extraMembers
        var headers = extraHeaders
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "no-store, no-cache")
        headers.set("Pragma", "no-cache")
        headers.set("Expires", "-1")
        headers.set("x-ms-request-id", trace.traceID)
        // The error's telemetry line, as the service sends it (`1,7000215,0,,`): MSAL.NET reads the code.
        if coded { headers.set("x-ms-clitelem", "1,\(code),0,,") }
        return HTTPResponse(status: HTTPStatus(status), headers: headers, body: JSONValue.object(body).bytes)
            .stating(StatedError(code: stated?.code, body: .init(error: oauthError, suberror: suberror, errorCodes: coded ? [code] : [])))
    }

    /// What a redirect or a page showing this error states: its code; nothing for an error of code 0,
    /// which the reference names without one.
    package var stated: StatedError? { code == 0 ? nil : StatedError(code: prefixedCode) }

    /// Parameters of an /authorize error redirect (`error`, `error_description`, `error_uri`, `suberror`, `state`).
    package func redirectParameters(in trace: TraceContext, state: String?) -> [(String, String)] {
        var parameters = [("error", errorValue(in: trace)), ("error_description", description(in: trace, join: .lineBreak))]
        if family == .aadsts { parameters.append(("error_uri", "\(trace.origin)/error?code=\(code)")) }
        if let suberror { parameters.append(("suberror", suberror)) }
        if let claims { parameters.append(("claims", claims)) }
        if let state { parameters.append(("state", state)) }
        return parameters
    }
}
