import LocatedJSON
import EntraCrypto
package import EntraHTTP
package import ExchangeKernel
package import FoundationGaps

/// A scenario rule's answer as Entra's and B2C's endpoints give it: token-endpoint JSON, an /authorize
/// error redirect or the error page, throttling and outages in the platform's own words, or a recorded
/// answer as it was. Rendered before the endpoint does any work, as the service's front end would.
package struct ScriptedIdentityAnswer {
    /// How the endpoint answers an error.
    package enum Endpoint: Sendable {
        /// Redirects to the app when it can, else the error page.
        case authorize
        /// The error page: sign-out, the device code's page.
        case page
        /// JSON with cross-origin headers (a single-page app reads it).
        case token
        /// JSON: discovery, keys, device authorization, native authentication.
        case other
        /// A step of native authentication V2 (`/api/v2.0/…`): its errors in the nested shape.
        case nativeAuthV2Step
    }

    let exchange: IdentityExchange
    let endpoint: Endpoint
    let family: ErrorFamily
    /// The B2C user flow or custom policy the request names.
    let policy: String?
    /// The request's parameters and, on a page that continues an /authorize, that request's.
    let parameters: FormParameters
    let trace: TraceContext
    private let continued: GrantFacts

    package init(_ exchange: IdentityExchange, endpoint: Endpoint, family: ErrorFamily = .aadsts, policy: String? = nil) {
        self.exchange = exchange
        self.endpoint = endpoint
        self.family = family
        self.policy = policy
        let request = exchange.request
        var parameters = request.query
        for pair in request.form.pairs { parameters.append(pair.name, pair.value) }
        let handles = ["refresh_token", "code"].compactMap { parameters[$0] }
        continued = exchange.service.grantFacts(flow: parameters[IdentityService.flowFieldName], handles: handles)
        for (name, value) in (continued.flowParameters ?? [:]).sorted(by: { $0.key < $1.key }) where parameters[name] == nil {
            parameters.append(name, value)
        }
        self.parameters = parameters
        var trace = exchange.trace
        trace.correlationID = request.headers["client-request-id"] ?? parameters["client-request-id"] ?? trace.correlationID
        trace.grantType = endpoint == .token ? parameters["grant_type"] : nil
        self.trace = trace
    }

    /// The answer, or nil when `answer` is another service's kind (a Graph error).
    package func render(_ answer: ScriptedAnswer) -> HTTPResponse? {
        var response: HTTPResponse
        switch answer {
        case .oauthError(let spec): response = oauthError(spec)
        case .serviceError(let spec): response = serviceError(spec)
        case .response(let canned): response = canned.response(receipt: exchange.receipt)
        case .browserRequired(let reason):
            guard exchange.route.handsJourneyToBrowser else { return nil }
            if case .nativeAuthV2 = exchange.route.endpoint {
                response = NativeAuthV2.browserRequired(exchange)
            } else {
                response = NativeAuthResponse.redirect(reason ?? Self.browserRequiredReason)
            }
        case .graphError, .claimsChallenge: return nil
        }
        if endpoint == .token { TokenEndpoint.allowCrossOrigin(&response, for: exchange.request) }
        return response
    }

    /// V1's `redirect_reason` when a scenario gives none.
    static let browserRequiredReason = "The client does not support the authentication method the tenant requires."

    // MARK: OAuth errors

    package func identityError(_ spec: OAuthErrorSpec) -> IdentityError {
        var error = IdentityError.scripted(spec, message: message(for: spec))
        if spec.message == nil, spec.family == .aadsts, let dated = datedCatalogueError(code: spec.code) {
            error.message = dated.message
        }
        if spec.family == .aadsts, let entry = ErrorCatalogue.entry(code: spec.code) { error.linksErrorPage = entry.linksErrorPage }
        return error
    }

    private func oauthError(_ spec: OAuthErrorSpec) -> HTTPResponse {
        let error = identityError(spec)
        if endpoint == .nativeAuthV2Step { return NativeAuthV2StepRefusal.scripted(error).response(in: trace) }
        guard endpoint == .authorize || endpoint == .page else {
            return error.tokenEndpointResponse(in: trace)
        }
        guard !spec.asPage, endpoint == .authorize, let redirectURI = parameters["redirect_uri"], !redirectURI.isEmpty else {
            let text = spec.code == 0 ? error.message : error.description(in: trace, join: .lineBreak)
            return ScriptedErrorPage.response(status: 200, detail: text, trace: trace).stating(error.stated)
        }
        let mode = ResponseMode(rawValue: parameters["response_mode"] ?? "query") ?? .query
        return AuthorizeErrorRedirect(error, redirectURI: redirectURI, mode: mode, state: parameters["state"],
                                      subcode: spec.errorSubcode).response(in: trace)
    }

    /// The catalogue's wording with the request's details filled in.
    private func message(for spec: OAuthErrorSpec) -> String {
        let template = spec.message ?? spec.family.catalogueEntry(code: spec.code)?.message ?? spec.error
        let directory = exchange.service.currentDirectory
        let clientID = PresentedClientCredentials(parameters: parameters, headers: exchange.request.headers).clientID
            ?? "00000000-0000-0000-0000-000000000000"
        let values: [String: String] = [
            "{client_id}": clientID,
            "{app_name}": directory.application(clientID: clientID)?.displayName ?? clientID,
            "{resource}": resourceAppID(directory: directory),
            "{tenant}": tenantName(directory: directory),
            "{scope}": parameters["scope"] ?? "",
            "{user}": "{EUII Hidden}",
            "{redirect_uri}": parameters["redirect_uri"] ?? "",
            "{policy}": policy ?? "",
            "{issued}": IdentityErrorDates.iso(exchange.now.addingTimeInterval(-86400)),
            "{lifetime}": "1.00:00:00",
            "{now}": IdentityErrorDates.iso(exchange.now),
        ]
        let quotesAssertion = template.contains("{issuer}") || template.contains("{subject}") || template.contains("{audience}")
        return values.merging(quotesAssertion ? assertionValues() : [:]) { first, _ in first }
            .reduce(template) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }

    /// What a federated credential's refusal quotes of the presented client assertion: its issuer,
    /// subject and audience (AADSTS70021, 700211–700213).
    private func assertionValues() -> [String: String] {
        guard let assertion = ParsedJWT(parameters["client_assertion"] ?? "") else { return [:] }
        return ["{issuer}": assertion.string("iss") ?? "", "{subject}": assertion.string("sub") ?? "", "{audience}": assertion.strings("aud").first ?? ""]
    }

    /// 700082 and 50173 quote when the refresh token was issued: use the presented token's record.
    private func datedCatalogueError(code: Int) -> IdentityError? {
        let service = exchange.service, now = exchange.now
        let record = parameters["refresh_token"].flatMap { service.lookUpRefreshToken($0).record }
        let issued = record?.issuedAt ?? now.addingTimeInterval(-service.options.refreshTokenInactivity)
        switch code {
        case 700082:
            // The rule says the token outlived its inactivity window; a just-used token's real idle time (seconds)
            // would make the service's sentence contradict itself ("inactive for 00:00:00").
            let idle = now.timeIntervalSince(record?.lastUsedAt ?? issued)
            return .refreshTokenExpired(issuedAt: issued, inactiveFor: max(idle, service.options.refreshTokenInactivity))
        case 50173: return .grantRevoked(issuedAt: issued, validFrom: now)
        default: return nil
        }
    }

    /// The tenant as the service names it in messages: its id, from the authority or else from the request's user.
    private func tenantName(directory: Directory) -> String {
        let segment = exchange.route.tenantSegment
        if let tenant = directory.tenant(matching: segment) { return tenant.id }
        let users = continued.owners + [continued.flowUserID].compactMap { $0 }
        if let user = users.lazy.compactMap({ directory.user(id: $0) }).first { return user.tenantID }
        let hints = ["login_hint", "username", "login"].compactMap { parameters[$0] }.filter { !$0.isEmpty }
        if let user = hints.lazy.compactMap({ directory.user(signInName: $0) }).first { return user.tenantID }
        return segment
    }

    private func resourceAppID(directory: Directory) -> String {
        for scope in (parameters["scope"] ?? "").split(separator: " ") {
            let text = String(scope)
            guard text.contains("/"), let slash = text.range(of: "/", options: .backwards) else { continue }
            if let resource = directory.resource(named: String(text[..<slash.lowerBound])) { return resource.appID }
        }
        return parameters["resource"].flatMap { directory.resource(named: $0)?.appID } ?? Resource.graphAppID
    }

    // MARK: Throttling and outages

    private func serviceError(_ spec: ServiceErrorSpec) -> HTTPResponse {
        var response: HTTPResponse
        if endpoint == .authorize || endpoint == .page {
            let detail = spec.message ?? (spec.status == 429 ? "Too many requests. Please try again later." : "The service is temporarily unavailable. Please try again later.")
            response = ScriptedErrorPage.response(status: spec.status, detail: detail, trace: trace)
        } else {
            response = outage(spec).tokenEndpointResponse(in: trace)
        }
        if let retryAfter = spec.retryAfterHeader(now: exchange.now) { response.headers.set("Retry-After", retryAfter) }
        return response
    }

    /// Throttling (AADSTS90055, AADB2C90229) or an outage (AADSTS90033, AADB2C90000) in the family's words.
    private func outage(_ spec: ServiceErrorSpec) -> IdentityError {
        switch family {
        case .aadb2c where spec.status == 429: .b2cThrottled(message: spec.message)
        case .aadb2c: .b2cUnavailable(status: spec.status, message: spec.message)
        case .aadsts where spec.status == 429: .throttled(message: spec.message)
        case .aadsts: .transientError(status: spec.status, message: spec.message)
        }
    }
}

package enum IdentityErrorDates {
    package static func iso(_ date: Date) -> String {
        InternetDate.format(secondsSince1970: date.timeIntervalSince1970)
    }
}

/// The service's plain error page for a scripted answer (shown instead of a redirect when the app cannot
/// be trusted or asked for it), in the platform's own page frame.
enum ScriptedErrorPage {
    static func response(status: Int, detail: String, trace: TraceContext) -> HTTPResponse {
        let lines = detail.components(separatedBy: "\r\n").map { HTML(raw: HTML.escape($0)) }
        let content: HTML = """
            <p id="error-detail">\(HTML(raw: lines.map(\.markup).joined(separator: "<br>")))</p>
            <p>Request Id: \(trace.traceID)<br>Correlation Id: \(trace.correlationID)<br>Timestamp: \(trace.formattedTimestamp)</p>
            """
        let page = PageLayout.document(title: "Sign in", heading: "Sorry, but we’re having trouble signing you in.", content: content)
        return PageLayout.response(page, status: HTTPStatus(status), headers: ["Cache-Control": "no-store, no-cache"])
    }
}
