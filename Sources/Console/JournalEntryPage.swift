import EntraHTTP
import FoundationGaps
import ExchangeKernel
import Journal
import IdentityPlatform

extension ConsolePage {
    /// One exchange: request, response and the tokens it carried, decoded and checked (an offline jwt.ms).
    func journalEntry(id text: String) -> HTTPResponse {
        guard let id = Int(text), let entry = console.journal.entries(matching: .init(sinceID: id - 1)).first(where: { $0.id == id }) else {
            return frame(.journal, heading: "Journal entry", lede: "",
                         "<p class=\"alert\" role=\"alert\" id=\"entryMissing\">No journal entry \(text): it may have been cleared or pushed out by the journal's bounds. <a href=\"\(Tab.journal.path)\">Back to the journal</a></p>",
                         status: .notFound)
        }
        let facts = JournalFacts(entry, ledger: console.ledger, keys: console.signingKeys)
        let now = console.now
        let tokens = facts.inspections.map { TokenView.render($0.inspection, label: $0.label, now: now) }
        let forgotten = facts.tokens.filter { $0.token == nil }.map { found -> HTML in
            "<p class=\"notice\">A token in <code>\(found.label)</code> (sha256 <code>\(found.hash)</code>) is no longer in the console's memory of recent tokens.</p>"
        }
        let tokenSection: HTML = tokens.isEmpty && forgotten.isEmpty ? .empty : """
        <section id="tokens"><h2>Tokens</h2>\(tokens)\(forgotten)</section>
        """
        let summary: HTML = """
        <table class="grid" id="entrySummary"><tbody>
        <tr><th>time</th><td class="mono">\(ConsoleFormat.dateTime(entry.time))</td><th>endpoint</th><td>\(entry.kind)</td></tr>
        <tr><th>status</th><td>\(Self.statusPill(entry.status))</td><th>duration</th><td class="mono">\(String(format: "%.2f ms", entry.durationMilliseconds))</td></tr>
        <tr><th>client</th><td class="mono" id="entryClient">\(facts.client ?? "–")</td><th>user</th><td id="entryUser">\(facts.user ?? "–")</td></tr>
        </tbody></table>
        """
        let content: HTML = """
        <p><a href="\(Tab.journal.path)" id="backToJournal">← Journal</a>\(neighbours(entry.id))</p>
        <div id="entry" data-entry-id="\(entry.id)">
        \(summary)
        \(tokenSection)
        <section id="request"><h2>Request</h2>
        <p><code>\(entry.method) \(entry.path)</code></p>
        \(pairs("requestQuery", "Query", entry.query))
        \(pairs("requestHeaders", "Headers", entry.requestHeaders))
        \(body("requestBody", entry.requestBody))
        </section>
        <section id="response"><h2>Response</h2>
        <p>\(Self.statusPill(entry.status)) \(HTTPStatus.standardReason(entry.status))</p>
        \(pairs("responseHeaders", "Headers", entry.responseHeaders))
        \(body("responseBody", entry.responseBody))
        </section>
        </div>
        """
        return frame(.journal, heading: "\(entry.method) \(Self.shortPath(entry.path))", lede: "Journal entry \(entry.id)", content)
    }

    func neighbours(_ id: Int) -> HTML {
        let ids = console.journal.ids
        let older = ids.last { $0 < id }, newer = ids.first { $0 > id }
        var links: HTML = .empty
        if let older { links = links + " · <a href=\"\(Self.base)/journal/\(older)\" id=\"olderEntry\">older</a>" }
        if let newer { links = links + " · <a href=\"\(Self.base)/journal/\(newer)\" id=\"newerEntry\">newer</a>" }
        return links
    }

    func pairs(_ id: String, _ caption: String, _ list: [(String, String)]) -> HTML {
        guard !list.isEmpty else { return .empty }
        let rows = list.map { name, value -> HTML in "<tr><th scope=\"row\"><code>\(name)</code></th><td><code>\(value)</code></td></tr>" }
        return "<table class=\"claims\" id=\"\(id)\"><caption>\(caption)</caption><tbody>\(rows)</tbody></table>"
    }

    func body(_ id: String, _ journalBody: String) -> HTML {
        guard let text = JournalFacts.readableBody(journalBody) else { return "<p class=\"muted\" id=\"\(id)\">No body.</p>" }
        return "<h3>Body</h3><pre id=\"\(id)\">\(text)</pre>"
    }

    /// The last path segments, for a heading that fits: `…/oauth2/v2.0/token`.
    static func shortPath(_ path: String) -> String {
        let parts = path.split(separator: "/")
        return parts.count > 3 ? "…/" + parts.suffix(3).joined(separator: "/") : path
    }
}
