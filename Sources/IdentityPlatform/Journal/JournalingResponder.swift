package import EntraHTTP
import Foundation

/// Wraps the server's responder so that every exchange (Entra, B2C, Graph alike) lands in the journal,
/// with its route's kind and the receipt of what the platform did.
package struct JournalingResponder: ExchangeResponder {
    package let inner: any ExchangeResponder
    package let journal: RequestJournal
    package let clock: any TimeSource

    package var routes: RouteResolver { inner.routes }

    package init(wrapping inner: any ExchangeResponder, journal: RequestJournal, clock: any TimeSource) {
        self.inner = inner
        self.journal = journal
        self.clock = clock
    }

    package func respond(to request: HTTPRequest, context: ExchangeContext) -> HTTPResponse {
        let response = inner.respond(to: request, context: context)
        let receipt = context.receipt.current
        // Secrets named in either direction are remembered first, so the entry (and every later one)
        // redacts them wherever they appear — passwords and client secrets the control API sets included.
        SecretHarvest.learn(from: request, response: response, receipt: receipt, into: journal.secrets)
        // The control API (journal reads, health probes, scenario loads) is not itself journaled: the
        // journal shows what clients asked of the identity platform and Graph.
        switch context.route {
        case .control, .console: return response
        default: break
        }
        let elapsed = ContinuousClock.now - context.startedAt
        journal.record(RecordedExchange(
            time: clock.now(), method: request.method, path: request.rawPath, rawQuery: request.rawQuery,
            status: response.status.code, kind: context.route.journalKind,
            durationMilliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
            requestHeaders: JournalEntry.keptHeaders(request.headers, names: JournalEntry.requestHeaderNames),
            responseHeaders: JournalEntry.keptHeaders(response.headers, names: JournalEntry.responseHeaderNames),
            requestBody: RecordedBody(request.body, contentType: request.headers["Content-Type"]),
            responseBody: RecordedBody(response.body, contentType: response.headers["Content-Type"]),
            receipt: receipt.withoutSecrets
        ))
        return response
    }
}

/// `GET /_fakeentra/journal` (JSON, filters `path`, `status`, `since`, `limit`, `kind`, `method`) and
/// `DELETE /_fakeentra/journal`; loopback callers only. `format=har` answers a HAR 1.2 log instead.
package struct JournalHandler: HTTPHandler {
    package static let path = "/_fakeentra/journal"
    package let journal: RequestJournal
    /// The server's version, named as the HAR log's creator.
    package let serverVersion: String

    package init(journal: RequestJournal, serverVersion: String = "dev") {
        self.journal = journal
        self.serverVersion = serverVersion
    }

    package func handle(_ request: HTTPRequest, context: RequestContext) -> HTTPResponse? {
        let path = request.rawPath.fastLowercased
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
            if let format = query["format"], format.fastLowercased == "har" {
                let host = request.headers["Host"] ?? "127.0.0.1:\(context.localPort)"
                let har = JournalHAR.render(entries, scheme: context.isSecure ? "https" : "http", defaultHost: host, creatorVersion: serverVersion)
                return Self.json(status: .ok, har)
            } else if let format = query["format"], format.fastLowercased != "json" {
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
