import EntraHTTP
import FoundationGaps
import ExchangeKernel
import Journal
import IdentityPlatform
import LocatedJSON
import Scenarios

/// `GET /_fakeentra/journal` (JSON, filters `path`, `status`, `since`, `limit`, `kind`, `method`, `world`)
/// and `DELETE /_fakeentra/journal`. `format=har` answers a HAR 1.2 log instead.
struct JournalEndpoint {
    let journal: RequestJournal
    /// The server's version, named as the HAR log's creator.
    let serverVersion: String

    func respond(to request: HTTPRequest, context: ConnectionFacts) -> HTTPResponse {
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
                    return ScenarioEngineError.badRequest("since must be an entry id or an ISO 8601 time").response
                }
            }
            let entries = journal.entries(matching: filter)
            if let format = query["format"], format.fastLowercased == "har" {
                let host = request.headers["Host"] ?? "127.0.0.1:\(context.localPort)"
                let har = JournalHAR.render(entries, scheme: context.isSecure ? "https" : "http", defaultHost: host, creatorVersion: serverVersion)
                return .controlJSON(status: 200, body: Array(har.utf8))
            } else if let format = query["format"], format.fastLowercased != "json" {
                return ScenarioEngineError.badRequest("format must be json or har").response
            }
            let body = JSONValue.object([("count", .int(entries.count)), ("dropped", .int(journal.droppedCount)), ("entries", .array(entries.map(\.value)))])
            return .controlJSON(status: 200, body: body.bytes)
        case "DELETE":
            journal.clear()
            return HTTPResponse(status: HTTPStatus(204))
        default:
            var response = ScenarioEngineError(status: 405, code: "method_not_allowed", message: "use GET or DELETE").response
            response.headers.set("Allow", "GET, DELETE")
            return response
        }
    }

    static func parseDate(_ text: String) -> Date? {
        InternetTimestamp.date(text)
    }

}
