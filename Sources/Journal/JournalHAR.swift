import ExchangeKernel
import EntraHTTP
import FoundationGaps
import LocatedJSON

/// The journal as a HAR 1.2 log (http://www.softwareishard.com/blog/har-12-spec/), the format browser dev
/// tools, Proxyman and Charles export and `fakeentra replay` reads. Everything comes from the journal, so
/// secrets and tokens stay redacted; bodies the journal only describes (pages, images) keep that description.
package enum JournalHAR {
    /// `scheme` and `defaultHost` build each request's absolute URL: an entry's own `Host` header wins,
    /// since one server answers for several names (127.0.0.1, login.microsoftonline.com, graph.microsoft.com).
    package static func render(_ entries: [JournalEntry], scheme: String, defaultHost: String, creatorVersion: String) -> String {
        JSONValue.object([
            ("log", .object([
                ("version", .string("1.2")),
                ("creator", .object([("name", .string("FakeEntra")), ("version", .string(creatorVersion))])),
                ("pages", .array([])),
                ("entries", .array(entries.map { entry($0, scheme: scheme, defaultHost: defaultHost) })),
            ])),
        ]).compactText
    }

    static func entry(_ entry: JournalEntry, scheme: String, defaultHost: String) -> JSONValue {
        let host = header("host", in: entry.requestHeaders) ?? defaultHost
        let milliseconds = JSONValue.decimal(max(0, entry.durationMilliseconds), fractionDigits: 3)
        return .object([
            ("startedDateTime", .string(timestamp(entry.time))),
            ("time", milliseconds),
            ("request", request(entry, url: "\(scheme)://\(host)\(entry.path)" + queryString(entry.query))),
            ("response", response(entry)),
            ("cache", .object([])),
            // The journal measures the server's whole answer: all of it is `wait`.
            ("timings", .object([("send", .int(0)), ("wait", milliseconds), ("receive", .int(0))])),
            ("comment", .string("journal entry \(entry.id), kind \(entry.kind)")),
        ])
    }

    static func request(_ entry: JournalEntry, url: String) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("method", .string(entry.method)),
            ("url", .string(url)),
            ("httpVersion", .string("HTTP/1.1")),
            ("cookies", .array([])),
            ("headers", nameValues(entry.requestHeaders)),
            ("queryString", nameValues(entry.query)),
        ]
        let body = JournalBody(entry.requestBody)
        let contentType = header("content-type", in: entry.requestHeaders) ?? ""
        var size = 0
        if case .json = body, contentType.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            // The entry keeps a form's pairs redacted, in the order sent and repeats kept: encoded again,
            // they are the text a replay parses.
            let text = formEncoded(entry.requestForm)
            size = text.utf8.count
            members.append(("postData", .object([("mimeType", .string(contentType)), ("params", nameValues(entry.requestForm)), ("text", .string(text))])))
        } else if let text = harText(body, stored: entry.requestBody) {
            size = text.utf8.count
            members.append(("postData", .object([("mimeType", .string(contentType)), ("text", .string(text))])))
        }
        members.append(("headersSize", .int(-1)))
        members.append(("bodySize", .int(size)))
        return .object(members)
    }

    static func response(_ entry: JournalEntry) -> JSONValue {
        let body = harText(JournalBody(entry.responseBody), stored: entry.responseBody) ?? ""
        let mimeType = header("content-type", in: entry.responseHeaders) ?? ""
        return .object([
            ("status", .int(entry.status)),
            ("statusText", .string(HTTPStatus.standardReason(entry.status))),
            ("httpVersion", .string("HTTP/1.1")),
            ("cookies", .array([])),
            ("headers", nameValues(entry.responseHeaders)),
            ("content", .object([("size", .int(body.utf8.count)), ("mimeType", .string(mimeType)), ("text", .string(body))])),
            ("redirectURL", .string(header("location", in: entry.responseHeaders) ?? "")),
            ("headersSize", .int(-1)),
            ("bodySize", .int(body.utf8.count)),
        ])
    }

    /// A body as HAR carries it: the text itself, or for a JSON body the journal's (redacted) JSON text,
    /// `stored`; nil when there was none.
    static func harText(_ body: JournalBody, stored: String) -> String? {
        switch body {
        case .absent: nil
        case .text(let text): text
        case .json: stored
        }
    }

    /// The journal keeps the query redacted and apart from the path; the URL carries it again.
    static func queryString(_ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return "" }
        return "?" + formEncoded(pairs)
    }

    static func formEncoded(_ pairs: [(String, String)]) -> String {
        pairs.map { FormCoding.encodeComponent($0.0) + "=" + FormCoding.encodeComponent($0.1) }.joined(separator: "&")
    }

    static func header(_ name: String, in headers: [(String, String)]) -> String? {
        headers.first { $0.0.lowercased() == name }?.1
    }

    static func nameValues(_ pairs: [(String, String)]) -> JSONValue {
        .array(pairs.map { .object([("name", .string($0.0)), ("value", .string($0.1))]) })
    }


    static func timestamp(_ date: Date) -> String {
        InternetTimestamp.string(date)
    }
}
