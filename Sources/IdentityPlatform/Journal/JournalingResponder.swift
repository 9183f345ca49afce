import EntraHTTP
import Foundation

/// Wraps the server's responder so that every exchange (Entra, B2C, Graph alike) lands in the journal.
public struct JournalingResponder: HTTPResponder {
    public let inner: any HTTPResponder
    public let journal: RequestJournal
    public let clock: any TimeSource
    public let classify: @Sendable (HTTPRequest) -> String

    public init(wrapping inner: any HTTPResponder, journal: RequestJournal, clock: any TimeSource, classify: @escaping @Sendable (HTTPRequest) -> String = JournalingResponder.defaultKind) {
        self.inner = inner
        self.journal = journal
        self.clock = clock
        self.classify = classify
    }

    public func respond(to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        let started = ContinuousClock.now
        let response = inner.respond(to: request, context: context)
        // Secrets named in either direction are remembered first, so the entry (and every later one)
        // redacts them wherever they appear — passwords and client secrets the control API sets included.
        SecretHarvest.learn(from: request, response: response, into: journal.secrets)
        // The control API (journal reads, health probes, scenario loads) is not itself journaled: the
        // journal shows what clients asked of the identity platform and Graph.
        guard !request.rawPath.lowercased().hasPrefix("/_fakeentra/") else { return response }
        let elapsed = ContinuousClock.now - started
        var entry = JournalEntry(
            id: 0, time: clock.now(), method: request.method, path: request.rawPath,
            query: Redaction.redact(request.query), status: response.status.code, kind: classify(request),
            durationMilliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
            requestHeaders: JournalEntry.selectedHeaders(request.headers, names: JournalEntry.requestHeaderNames),
            responseHeaders: JournalEntry.selectedHeaders(response.headers, names: JournalEntry.responseHeaderNames),
            requestBody: JournalEntry.describeBody(request.body, contentType: request.headers["Content-Type"]),
            responseBody: JournalEntry.describeBody(response.body, contentType: response.headers["Content-Type"])
        )
        entry.world = response.world
        journal.record(scrubbing: entry)
        return response
    }

    /// The endpoint a request is for: Entra endpoint names from the route, else Graph, B2C or admin by path.
    @Sendable public static func defaultKind(_ request: HTTPRequest) -> String {
        let path = request.rawPath.lowercased()
        if path.hasPrefix("/_fakeentra") { return "admin" }
        if path.hasPrefix("/v1.0/") || path.hasPrefix("/beta/") || path == "/v1.0" || path.hasPrefix("/oidc/userinfo") { return "graph" }
        // B2C's `/{tenant}/oauth2/v2.0/authorize?p=B2C_1_…` form names the policy in the query (issue 4).
        let policyQuery = request.query["p"]?.lowercased().hasPrefix("b2c_1") ?? false
        if path.contains("/tfp/") || (request.hostName?.hasSuffix("b2clogin.com") ?? false) || path.contains("/b2c_1") || policyQuery { return "b2c" }
        guard let route = IdentityRoute.parse(request) else { return "other" }
        return switch route.endpoint {
        case .instanceDiscovery: "instance_discovery"
        case .openIDConfiguration: "openid_configuration"
        case .keys: "keys"
        case .authorize: "authorize"
        case .token: "token"
        case .deviceCode: "device_code"
        case .logout: "logout"
        case .userRealm: "user_realm"
        case .deviceLogin: "device_login"
        case .errorLookup: "error_lookup"
        }
    }
}

/// `GET /_fakeentra/journal` (JSON, filters `path`, `status`, `since`, `limit`, `kind`, `method`) and
/// `DELETE /_fakeentra/journal`; loopback callers only. `format=har` answers a HAR 1.2 log instead.
public struct JournalHandler: HTTPHandler {
    public static let path = "/_fakeentra/journal"
    public let journal: RequestJournal
    /// The server's version, named as the HAR log's creator.
    public let serverVersion: String

    public init(journal: RequestJournal, serverVersion: String = "dev") {
        self.journal = journal
        self.serverVersion = serverVersion
    }

    public func handle(_ request: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        let path = request.rawPath.lowercased()
        guard path == Self.path || path == Self.path + "/" else { return nil }
        guard context.isLoopback else {
            return Self.json(status: .forbidden, #"{"error":{"code":"forbidden","message":"The journal is only served to loopback clients."}}"#)
        }
        switch request.method {
        case "GET":
            let query = request.query
            let since = query["since"]
            var filter = RequestJournal.Filter(path: query["path"], status: query["status"], limit: query["limit"].flatMap { Int($0) })
            filter.kind = query["kind"]
            filter.method = query["method"]
            filter.world = query["world"]
            if let since {
                if let id = Int(since) { filter.sinceID = id } else { filter.sinceTime = Self.parseDate(since) }
                if filter.sinceID == nil && filter.sinceTime == nil {
                    return Self.json(status: .badRequest, #"{"error":{"code":"bad_request","message":"since must be an entry id or an ISO 8601 time."}}"#)
                }
            }
            let entries = journal.entries(matching: filter)
            if let format = query["format"], format.lowercased() == "har" {
                let host = request.headers["Host"] ?? "127.0.0.1:\(context.localPort)"
                let har = JournalHAR.render(entries, scheme: context.isSecure ? "https" : "http", defaultHost: host, creatorVersion: serverVersion)
                return Self.json(status: .ok, har)
            } else if let format = query["format"], format.lowercased() != "json" {
                return Self.json(status: .badRequest, #"{"error":{"code":"bad_request","message":"format must be json or har."}}"#)
            }
            let body = "{\"count\":\(entries.count),\"dropped\":\(journal.droppedCount),\"entries\":[" + entries.map(\.json).joined(separator: ",") + "]}"
            return Self.json(status: .ok, body)
        case "DELETE":
            journal.clear()
            return HTTPResponse(status: HTTPStatus(204))
        default:
            var response = Self.json(status: .methodNotAllowed, #"{"error":{"code":"method_not_allowed","message":"Use GET or DELETE."}}"#)
            response.headers.set("Allow", "GET, DELETE")
            return response
        }
    }

    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// Errors use the control API's one shape: `{"error": {"code", "message"}}`.
    static func json(status: HTTPStatus, _ text: String) -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: status, headers: headers, text: text, contentType: "application/json; charset=utf-8")
    }
}
