import ExchangeKernel
import EntraHTTP
import FoundationGaps
import Synchronization

/// An exchange as the request's thread records it: what describing it needs, not yet described.
///
/// Describing an entry (parsing and redacting its bodies, scrubbing every field of remembered and
/// secret-shaped values) was the journal's largest cost per request, about 5 % of a token's CPU, and
/// most entries are never read. It is done when an entry is first read, or earlier if the secret
/// memory is about to forget values (`RequestJournal.describePendingThenForget`): described later, an
/// entry is redacted with every value remembered when it was recorded, and with the ones learned since.
struct RecordedExchange: Sendable {
    var time: Date
    var method: String
    var path: String
    var rawQuery: String?
    var status: Int
    var kind: String
    var durationMilliseconds: Double
    /// The headers the journal keeps, not yet redacted.
    var requestHeaders: [(String, String)]
    var responseHeaders: [(String, String)]
    var requestBody: RecordedBody
    var responseBody: RecordedBody
    var receipt: Receipt

    /// Close to the described entry's `approximateSize`: counted when recorded, for the journal's byte bound.
    var approximateSize: Int {
        JournalEntry.approximateSize(text: path.utf8.count + (rawQuery?.utf8.count ?? 0) + requestBody.approximateSize + responseBody.approximateSize,
                                     pairs: [requestHeaders, responseHeaders], receipt: receipt)
    }

    func summary(id: Int) -> JournalSlot.Summary {
        JournalSlot.Summary(id: id, time: time, method: method, status: status, kind: kind, world: receipt.world)
    }

    /// The entry as readers see it: every field redacted by name, then scrubbed with `memory`.
    func described(id: Int, with memory: SecretMemory) -> JournalEntry {
        func redacted(_ headers: [(String, String)]) -> [(String, String)] {
            headers.map { ($0.0, Redaction.redactHeader(name: $0.0, value: $0.1)) }
        }
        let request = requestBody.shown
        return JournalEntry(
            id: id, time: time, method: method, path: path, query: Redaction.redact(FormParameters(decoding: rawQuery ?? "")),
            status: status, kind: kind, durationMilliseconds: durationMilliseconds,
            requestHeaders: redacted(requestHeaders), responseHeaders: redacted(responseHeaders),
            requestBody: request.text, responseBody: responseBody.shown.text, receipt: receipt, requestForm: request.form
        ).scrubbed(with: memory)
    }
}

/// A body as recorded: what only its size describes is described at once (pages, images, large
/// bodies); JSON, forms and short text are kept as bytes and parsed when the entry is described.
enum RecordedBody: Sendable {
    case described(String)
    case bytes([UInt8], contentType: String?)

    init(_ body: [UInt8], contentType: String?) {
        self = JournalEntry.isParsedWhenDescribed(body, contentType: contentType)
            ? .bytes(body, contentType: contentType) : .described(JournalEntry.describeBody(body, contentType: contentType).text)
    }

    /// The body as the entry shows it (`JournalEntry.describeBody`): its text, and a form's redacted pairs.
    var shown: (text: String, form: [(String, String)]) {
        switch self {
        case .described(let text): (text: text, form: [])
        case .bytes(let body, let contentType): JournalEntry.describeBody(body, contentType: contentType)
        }
    }

    var approximateSize: Int {
        switch self {
        case .described(let text): text.utf8.count
        case .bytes(let body, _): body.count
        }
    }
}

/// One place in the journal: an exchange recorded and not yet described, or its entry.
final class JournalSlot: Sendable {
    private enum Content: Sendable {
        case recorded(RecordedExchange)
        case described(JournalEntry)
    }

    /// What a reader's filter can test before the entry is described (all but the path, which is shown
    /// scrubbed).
    struct Summary: Sendable {
        var id: Int
        var time: Date
        var method: String
        var status: Int
        var kind: String
        var world: String?
    }

    let summary: Summary
    var id: Int { summary.id }
    /// The size the journal's byte bound counts: the recorded exchange's, then the described entry's.
    /// Changed and read only under the journal's lock, so that its total is the sum of its slots'.
    let size: Atomic<Int>
    private let content: Mutex<Content>

    init(id: Int, recorded exchange: RecordedExchange) {
        summary = exchange.summary(id: id)
        size = Atomic(exchange.approximateSize)
        content = Mutex(.recorded(exchange))
    }

    init(id: Int, described entry: JournalEntry) {
        var entry = entry
        entry.id = id
        summary = entry.summary
        size = Atomic(entry.approximateSize)
        content = Mutex(.described(entry))
    }

    var isDescribed: Bool {
        content.withLock { if case .described = $0 { true } else { false } }
    }

    /// The described entry, and whether it was described by this call (once, under the slot's lock).
    func entry(with memory: SecretMemory) -> (entry: JournalEntry, describedNow: Bool) {
        content.withLock { content in
            switch content {
            case .described(let entry):
                return (entry, false)
            case .recorded(let exchange):
                let entry = exchange.described(id: id, with: memory)
                content = .described(entry)
                return (entry, true)
            }
        }
    }
}
