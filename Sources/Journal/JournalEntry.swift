package import ExchangeKernel
import EntraHTTP
package import FoundationGaps
package import LocatedJSON

/// One request and its response as the journal shows them: secrets redacted, bodies parsed when possible.
/// Until an entry is first read (`RecordedExchange`), the journal holds the exchange as it was, in memory only.
package struct JournalEntry: Sendable {
    package var id: Int
    package var time: Date
    package var method: String
    package var path: String
    /// Query parameters, redacted.
    package var query: [(String, String)]
    package var status: Int
    /// `token`, `authorize`, `instance_discovery`, `graph`, `b2c`, … (`RequestRoute.journalKind`).
    package var kind: String
    package var durationMilliseconds: Double
    package var requestHeaders: [(String, String)]
    package var responseHeaders: [(String, String)]
    /// JSON text describing each body (`describeBody`, read back by `JournalBody`).
    package var requestBody: String
    package var responseBody: String
    /// What the platform did (tokens issued, codes, the flow step, the error, the rules that fired); no secrets.
    package var receipt: Receipt = Receipt()
    /// A form body's name/value pairs, redacted as `requestBody` describes them: the request's parameters
    /// for a reader that takes them as a form (the conformance judge), without reading the description.
    package var requestForm: [(String, String)] = []

    /// Approximate memory cost, for the journal's byte bound.
    var approximateSize: Int {
        Self.approximateSize(text: path.utf8.count + requestBody.utf8.count + responseBody.utf8.count,
                             pairs: [query, requestHeaders, responseHeaders, requestForm], receipt: receipt)
    }

    /// The byte bound's estimate, for a described entry and a recorded exchange alike: its text, its
    /// name/value pairs, and a fixed cost per entry, token and grant handle.
    static func approximateSize(text: Int, pairs: [[(String, String)]], receipt: Receipt) -> Int {
        text + pairs.joined().reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count } + 128
            + receipt.tokens.count * 192 + receipt.grants.count * 64
    }

    /// What a journal filter tests before the path (`RequestJournal.Filter.matchesRecorded`).
    var summary: JournalSlot.Summary {
        JournalSlot.Summary(id: id, time: time, method: method, status: status, kind: kind, world: receipt.world)
    }

    /// Request headers worth keeping (client telemetry, correlation, cookies redacted).
    static let requestHeaderNames: FieldNameSet = [
        "host", "content-type", "content-length", "user-agent", "authorization", "cookie", "origin", "referer",
        "client-request-id", "return-client-request-id", "x-client-sku", "x-client-ver", "x-client-os", "x-client-cpu",
        "x-app-name", "x-app-ver", "x-ms-lib-capability", "x-anchormailbox", "prefer", "consistencylevel",
        // Managed identity: IMDS refuses a request without `Metadata: true`; App Service's secret is redacted.
        "metadata", "x-identity-header",
    ]
    static let responseHeaderNames: FieldNameSet = [
        "content-type", "location", "set-cookie", "www-authenticate", "retry-after", "x-ms-request-id",
        "client-request-id", "request-id", "cache-control",
    ]

    /// The headers named in `names`, not yet redacted (`RecordedExchange.described` redacts them).
    static func keptHeaders(_ headers: HTTPHeaders, names: FieldNameSet) -> [(String, String)] {
        var kept: [(String, String)] = []
        kept.reserveCapacity(headers.fields.count)
        for field in headers.fields where names.contains(field.name) { kept.append((field.name, field.value)) }
        return kept
    }

    private static let jsonMarker = Array("json".utf8)

    /// Bodies longer than this keep only their length (pages, photos).
    static let maximumBodyText = 16 * 1024

    /// How a body is described: by its content type and size.
    private enum BodyKind {
        case empty, json, form, plainText, sizeOnly
    }

    private static func kind(of body: [UInt8], contentType: String?) -> BodyKind {
        guard !body.isEmpty else { return .empty }
        let type = contentType?.fastLowercased ?? ""
        if Redaction.contains(type, bytes: jsonMarker) { return body.count <= maximumBodyText * 4 ? .json : .sizeOnly }
        if type.hasPrefix("application/x-www-form-urlencoded"), body.count <= maximumBodyText * 4 { return .form }
        // HTML pages can carry codes and tokens (form_post): only their size is kept.
        if type.hasPrefix("text/plain"), body.count <= maximumBodyText { return .plainText }
        return .sizeOnly
    }

    /// True when describing the body means parsing it (what `RecordedBody` defers).
    static func isParsedWhenDescribed(_ body: [UInt8], contentType: String?) -> Bool {
        switch kind(of: body, contentType: contentType) {
        case .json, .form, .plainText: true
        case .empty, .sizeOnly: false
        }
    }

    /// A body as the entry shows it: JSON text (JSON parsed and redacted, a form as an object of its
    /// redacted parameters, text truncated, the rest described) and, for a form, its redacted pairs in the
    /// order sent (`requestForm`; none for any other body). A form is redacted once, for both.
    static func describeBody(_ body: [UInt8], contentType: String?) -> (text: String, form: [(String, String)]) {
        switch kind(of: body, contentType: contentType) {
        case .empty:
            return ("null", [])
        case .json:
            if let parsed = LocatedJSON.parse(body: body) { return (redactedText(parsed, capacity: body.count), []) }
            // What only a lenient reader takes (a repeated member name, a trailing comma, UTF-16) is still
            // shown, and redacted, members sorted by name as `text/plain` JSON is.
            if let parsed = LocatedJSON.parse(lenientBody: body) { return (redactedText(parsed.sortingKeys, capacity: body.count), []) }
        case .form:
            let pairs = Redaction.redact(FormParameters(decoding: String(decoding: body, as: UTF8.self)))
            return (groupedObject(pairs).compactText, pairs)
        case .plainText:
            return (JSONValue.quoted(redactPlainText(String(decoding: body, as: UTF8.self))), [])
        case .sizeOnly:
            break
        }
        return (JSONValue.quoted("[\(contentType ?? "body") \(body.count) bytes]"), [])
    }

    /// Name/value pairs as a JSON object, names in the order they first appear: a name given once with its
    /// value, a repeated one (Set-Cookie, a repeated query or form parameter) with the array of its values,
    /// so that the journal stays JSON a strict reader takes.
    static func groupedObject(_ pairs: [(String, String)]) -> JSONValue {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for (name, value) in pairs {
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(value)
        }
        return .object(order.map { name in
            let list = values[name]!
            return (name, list.count == 1 ? .string(list[0]) : .strings(list))
        })
    }

    /// `value` redacted (`Redaction.writeRedacted`), as JSON text.
    private static func redactedText(_ value: JSONValue, capacity: Int) -> String {
        var writer = JSONWriter(capacity: capacity)
        Redaction.writeRedacted(value, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Text a client labelled `text/plain` can still be JSON or a form (`client_secret=…`): its
    /// sensitive members are redacted by name as they would be under their real content type. JSON is
    /// read leniently, as a reader that guesses at text would, and written with its members sorted by name.
    static func redactPlainText(_ text: String) -> String {
        if let parsed = LocatedJSON.parse(lenientBody: text.utf8), parsed.members != nil || parsed.array != nil {
            return redactedText(parsed.sortingKeys, capacity: text.utf8.count)
        }
        guard text.contains("=") else { return text }
        // name=value pairs, one per line or joined by '&'.
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.contains("=") ? Redaction.redactParameterString(String(line)) : String(line)
        }.joined(separator: "\n")
    }

    /// The entry with every value that is a secret by shape or by memory replaced, in every field.
    func scrubbed(with memory: SecretMemory) -> JournalEntry {
        func pairs(_ list: [(String, String)]) -> [(String, String)] {
            list.map { (Redaction.scrub($0.0, memory: memory), Redaction.scrub($0.1, memory: memory)) }
        }
        var copy = self
        // Segment by segment: a secret may contain '/', which free text does not split on.
        copy.path = path.split(separator: "/", omittingEmptySubsequences: false).map { Redaction.scrub(String($0), memory: memory) }.joined(separator: "/")
        copy.query = pairs(query)
        copy.requestHeaders = pairs(requestHeaders)
        copy.responseHeaders = pairs(responseHeaders)
        copy.requestBody = Redaction.scrub(requestBody, memory: memory)
        copy.requestForm = pairs(requestForm)
        copy.responseBody = Redaction.scrub(responseBody, memory: memory)
        return copy
    }

    /// The entry as the journal API and exports write it; bodies are embedded as the JSON they were
    /// stored as.
    package var value: JSONValue {
        JSONValue.object([
            ("id", .int(id)),
            ("time", .string(InternetDate.format(secondsSince1970: time.timeIntervalSince1970))),
            ("kind", .string(kind)),
            ("method", .string(method)),
            ("path", .string(path)),
            ("query", Self.groupedObject(query)),
            ("status", .int(status)),
            ("durationMs", .decimal(durationMilliseconds, fractionDigits: 3)),
            ("request", .object([("headers", Self.groupedObject(requestHeaders)), ("body", JournalBody(requestBody).value)])),
            ("response", .object([("headers", Self.groupedObject(responseHeaders)), ("body", JournalBody(responseBody).value)])),
            ("receipt", receipt.json),
        ])
    }

}

/// A body as the journal stores it (`JournalEntry.describeBody`), read back: the one reading of the
/// HAR export and the console.
package enum JournalBody: Sendable {
    /// The request or answer had none (`null`).
    case absent
    /// A JSON string: the text sent, or what the journal says of a body it keeps only the size of; also
    /// text that is not JSON, as it stands.
    case text(String)
    /// A JSON body, redacted, or a form's parameters as an object (a repeated one as an array).
    case json(JSONValue)

    package init(_ journalBody: String) {
        guard let value = LocatedJSON.parse(body: journalBody.utf8, source: "journal") else {
            self = .text(journalBody)
            return
        }
        switch value.kind {
        case .null: self = .absent
        case .string(let text): self = .text(text)
        case .bool, .number, .array, .object: self = .json(value)
        }
    }

    /// The body as it is embedded in the journal's own JSON.
    package var value: JSONValue {
        switch self {
        case .absent: .null
        case .text(let text): .string(text)
        case .json(let value): value
        }
    }
}
