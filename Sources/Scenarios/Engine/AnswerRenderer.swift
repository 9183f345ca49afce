import LocatedJSON
import EntraCrypto
import B2C
import EntraHTTP
import Graph
package import Foundation
import ExchangeKernel
import IdentityPlatform
import ResourceManager
import Synchronization

/// Renders a rule's answer in the format of the endpoint it replaces: token-endpoint JSON, an
/// /authorize error redirect or page, or a Graph error.
struct AnswerRenderer {
    let request: HTTPRequest
    let context: RequestContext
    let receipt: ReceiptRecorder
    let facts: RequestFacts
    let service: IdentityService
    let now: Date
    let trace: TraceContext

    init(request: HTTPRequest, context: ExchangeContext, facts: RequestFacts, service: IdentityService) {
        self.request = request
        self.context = context.connection
        receipt = context.receipt
        self.facts = facts
        self.service = service
        now = service.clock.now()
        let origin = PublicOrigin(request: request, context: context.connection).url
        let correlation = request.headers["client-request-id"] ?? facts.parameters["client-request-id"] ?? UUID().uuidString.lowercased()
        let version = (facts.isB2C ? nil : IdentityRoute.parse(request))?.endpoint.version ?? .v2
        trace = TraceContext(traceID: context.requestID, correlationID: correlation, timestamp: now, origin: origin, receipt: context.receipt,
                             endpointVersion: version, grantType: facts.kind == .token ? facts.parameters["grant_type"] : nil)
    }

    func render(_ action: RuleAction) -> HTTPResponse {
        var response: HTTPResponse
        switch action {
        case .oauthError(let spec): response = oauthError(spec)
        case .serviceError(let spec): response = serviceError(spec)
        case .dropConnection: return HTTPResponse(status: .internalServerError, directives: TransportDirectives(dropConnection: true))
        case .graphError(let spec):
            receipt.answered(error: spec.code)
            response = GraphFaults.error(status: spec.status, code: spec.code, message: spec.message, retryAfter: spec.retryAfter, request: request, now: now,
                                         receipt: receipt)
        case .claimsChallenge(let spec):
            response = GraphFaults.claimsChallenge(claims: spec.claims, request: request, context: context, now: now, receipt: receipt)
        case .response(let canned): response = cannedResponse(canned)
        default: preconditionFailure("\(action.fileName) does not answer a request")
        }
        // A page reads a scripted answer as it reads the service's own: with CORS (MSAL.js's token requests, a
        // single-page app's Graph calls).
        switch facts.kind {
        case .graph:
            CrossOrigin.decorate(&response, for: request)
        case .arm, .managedidentity:
            break   // their own headers, not Entra's front end's
        case _ where facts.isB2C:
            response.headers.set("x-ms-request-id", trace.traceID)
            B2CHandler.addFrontEndHeaders(to: &response, discovery: false)
        default:
            IdentityHandler.addStandardHeaders(to: &response, request: request, parameters: facts.parameters, trace: trace)
            if facts.kind == .token { TokenEndpoint.allowCrossOrigin(&response, for: request) }
        }
        return response
    }

    // MARK: OAuth errors

    func identityError(_ spec: OAuthErrorSpec) -> IdentityError {
        let family: IdentityError.Family = spec.family == .aadb2c ? .aadb2c : .aadsts
        var error = IdentityError(error: spec.error, code: spec.code, message: message(for: spec), suberror: spec.suberror,
                                  claims: spec.claims, status: spec.status, family: family)
        if spec.message == nil, spec.family == .aadsts, let dated = datedCatalogueError(code: spec.code) {
            error.message = dated.message
        }
        if spec.family == .aadsts, let entry = ErrorCatalogue.entry(code: spec.code) { error.linksErrorPage = entry.linksErrorPage }
        return error
    }

    private func oauthError(_ spec: OAuthErrorSpec) -> HTTPResponse {
        let error = identityError(spec)
        guard facts.kind == .authorize || facts.kind == .logout || facts.kind == .devicelogin else {
            if spec.code == 0 { return codelessTokenError(error) }
            return error.tokenEndpointResponse(in: trace)
        }
        guard !spec.asPage, facts.kind == .authorize, let redirectURI = facts.parameters["redirect_uri"], !redirectURI.isEmpty else {
            let text = spec.code == 0 ? error.message : error.description(in: trace, join: .lineBreak)
            return ErrorPage.response(status: 200, detail: text, trace: trace)
        }
        let mode = ResponseMode(rawValue: facts.parameters["response_mode"] ?? "query") ?? .query
        return AuthorizeErrorRedirect(error, redirectURI: redirectURI, mode: mode, state: facts.parameters["state"],
                                      subcode: spec.errorSubcode, withoutCode: spec.code == 0).response(in: trace)
    }

    /// An error without an AADSTS code (`authorization_pending` style): no prefix, no code list.
    private func codelessTokenError(_ error: IdentityError) -> HTTPResponse {
        var members: [(String, JSONFragment)] = [("error", .string(error.error)), ("error_description", .string(error.message)),
                                                 ("timestamp", .string(trace.formattedTimestamp)), ("trace_id", .string(trace.traceID)),
                                                 ("correlation_id", .string(trace.correlationID))]
        if let suberror = error.suberror { members.append(("suberror", .string(suberror))) }
        if let claims = error.claims { members.append(("claims", .string(claims))) }
        receipt.answered(Receipt.Answer(error: error.error, suberror: error.suberror))
        return HTTPResponse(status: HTTPStatus(error.status), headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store, no-cache"],
                            body: Array(JSONFragment.object(members).utf8))
    }

    /// The catalogue's wording with the request's details filled in.
    private func message(for spec: OAuthErrorSpec) -> String {
        let template = spec.message ?? spec.family.catalogueEntry(code: spec.code)?.message ?? spec.error
        let directory = service.currentDirectory
        let clientID = facts.clientID ?? "00000000-0000-0000-0000-000000000000"
        let values: [String: String] = [
            "{client_id}": clientID,
            "{app_name}": directory.application(clientID: clientID)?.displayName ?? clientID,
            "{resource}": resourceAppID(directory: directory),
            "{tenant}": tenantName(directory: directory),
            "{scope}": facts.parameters["scope"] ?? "",
            "{user}": "{EUII Hidden}",
            "{redirect_uri}": facts.parameters["redirect_uri"] ?? "",
            "{policy}": facts.policy ?? "",
            "{issued}": IdentityErrorDates.iso(now.addingTimeInterval(-86400)),
            "{lifetime}": "1.00:00:00",
            "{now}": IdentityErrorDates.iso(now),
        ]
        let quotesAssertion = template.contains("{issuer}") || template.contains("{subject}") || template.contains("{audience}")
        return values.merging(quotesAssertion ? assertionValues() : [:]) { first, _ in first }
            .reduce(template) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }

    /// What a federated credential's refusal quotes of the presented client assertion: its issuer,
    /// subject and audience (AADSTS70021, 700211–700213).
    private func assertionValues() -> [String: String] {
        guard let assertion = ParsedJWT(facts.parameters["client_assertion"] ?? "") else { return [:] }
        return ["{issuer}": assertion.string("iss") ?? "", "{subject}": assertion.string("sub") ?? "", "{audience}": assertion.strings("aud").first ?? ""]
    }

    /// 700082 and 50173 quote when the refresh token was issued: use the presented token's record.
    private func datedCatalogueError(code: Int) -> IdentityError? {
        let record = facts.parameters["refresh_token"].flatMap { service.lookUpRefreshToken($0).record }
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
        if let segment = facts.tenantSegment, let tenant = directory.tenant(matching: segment) { return tenant.id }
        if let user = facts.userNames.lazy.compactMap({ directory.user(id: $0) }).first { return user.tenantID }
        return facts.tenantSegment ?? "common"
    }

    private func resourceAppID(directory: Directory) -> String {
        for scope in (facts.parameters["scope"] ?? "").split(separator: " ") {
            let text = String(scope)
            guard text.contains("/"), let slash = text.range(of: "/", options: .backwards) else { continue }
            if let resource = directory.resource(named: String(text[..<slash.lowerBound])) { return resource.appID }
        }
        return facts.parameters["resource"].flatMap { directory.resource(named: $0)?.appID } ?? Resource.graphAppID
    }

    // MARK: Throttling and outages

    private func serviceError(_ spec: ServiceErrorSpec) -> HTTPResponse {
        var response: HTTPResponse
        switch facts.kind {
        case .graph:
            return GraphFaults.serviceError(spec, request: request, now: now, receipt: receipt)
        case .arm:
            // ARM's own throttling and outage codes.
            let code = spec.status == 429 ? "SubscriptionRequestsThrottled" : (spec.status == 500 ? "InternalServerError" : "ServiceUnavailable")
            let message = spec.message ?? (spec.status == 429 ? "Number of read requests for this subscription exceeded the limit." : "The service is temporarily unavailable. Please try again later.")
            response = ResourceManagerError(status: HTTPStatus(spec.status), code: code, message: message)
                .response(correlationID: trace.correlationID, receipt: receipt)
        case .managedidentity:
            // IMDS documents its faults by status alone (404 and 410 while it updates, 429 when throttled,
            // 5xx; learn.microsoft.com, "How to use managed identities for Azure resources on an Azure VM to
            // acquire an access token", Error handling), and no body of them is recorded: the status alone.
            response = HTTPResponse(status: HTTPStatus(spec.status))
        case .authorize, .devicelogin, .logout:
            let detail = spec.message ?? (spec.status == 429 ? "Too many requests. Please try again later." : "The service is temporarily unavailable. Please try again later.")
            response = ErrorPage.response(status: spec.status, detail: detail, trace: trace)
        default:
            let error: IdentityError
            if facts.isB2C {
                error = IdentityError(error: spec.status == 429 ? "temporarily_unavailable" : "server_error", code: spec.status == 429 ? 90229 : 90000,
                                      message: spec.message ?? (spec.status == 429 ? "Too many requests. Try again later." : "The service is temporarily unavailable. Please try again later."),
                                      status: spec.status, family: .aadb2c)
            } else if spec.status == 429 {
                error = IdentityError(error: "temporarily_unavailable", code: 90055, message: spec.message ?? ErrorCatalogue.entry(code: 90055)!.message, status: 429)
            } else {
                error = IdentityError(error: spec.status == 500 ? "server_error" : "temporarily_unavailable", code: 90033,
                                      message: spec.message ?? ErrorCatalogue.entry(code: 90033)!.message, status: spec.status)
            }
            response = error.tokenEndpointResponse(in: trace)
        }
        if let retryAfter = spec.retryAfterHeader(now: now) { response.headers.set("Retry-After", retryAfter) }
        return response
    }

    private func cannedResponse(_ canned: CannedResponse) -> HTTPResponse {
        receipt.answered(canned.answer)
        var headers = HTTPHeaders()
        for header in canned.headers { headers.add(header.name, header.value) }
        if !headers.contains("Content-Type"), let first = canned.body.first(where: { !$0.isWhitespace }) {
            headers.set("Content-Type", first == "{" || first == "[" ? "application/json; charset=utf-8" : "text/plain; charset=utf-8")
        }
        return HTTPResponse(status: HTTPStatus(canned.status), headers: headers, body: Array(canned.body.utf8))
    }

}

package enum IdentityErrorDates {
    package static func iso(_ date: Date) -> String {
        InternetDate.format(secondsSince1970: date.timeIntervalSince1970)
    }
}

/// The service's plain error page (shown instead of a redirect when the app cannot be trusted or asked
/// for it), in the platform's own page frame.
enum ErrorPage {
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
