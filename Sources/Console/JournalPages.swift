import EntraHTTP
import FoundationGaps
import ExchangeKernel
import Journal
import IdentityPlatform

/// The journal's filters as the console takes them from the query: client, user, endpoint, status.
struct JournalQuery {
    var client: String?
    var user: String?
    var kind: String?
    var status: String?

    init(_ query: FormParameters) {
        let value = { (name: String) -> String? in query[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 } }
        client = value("client")
        user = value("user")
        kind = value("kind")
        status = value("status")
    }

    var journalFilter: RequestJournal.Filter {
        var filter = RequestJournal.Filter(status: status)
        filter.kind = kind
        return filter
    }

    func matches(_ facts: JournalFacts) -> Bool {
        if let client, !(facts.client ?? "").localizedCaseInsensitiveContains(client) { return false }
        if let user, !(facts.user ?? "").localizedCaseInsensitiveContains(user) { return false }
        return true
    }

    var encoded: String {
        [("client", client), ("user", user), ("kind", kind), ("status", status)].compactMap { name, value in
            value.map { "\(name)=\(FormCoding.encodeComponent($0))" }
        }.joined(separator: "&")
    }

    static let kinds = ["token", "authorize", "graph", "b2c", "openid_configuration", "keys", "instance_discovery", "device_code",
                        "device_login", "logout", "user_realm", "error_lookup", "other"]
}

extension ConsolePage {
    static let journalRowLimit = 200

    /// The journal's newest entries that pass the filters, as facts (tokens decoded, client and user).
    func journalFacts(_ query: JournalQuery, after: Int? = nil) -> [JournalFacts] {
        var filter = query.journalFilter
        filter.sinceID = after
        let keys = console.signingKeys
        var result: [JournalFacts] = []
        for entry in console.journal.entries(matching: filter).reversed() {
            let facts = JournalFacts(entry, ledger: console.ledger, keys: keys)
            if query.matches(facts) { result.append(facts) }
            if result.count == Self.journalRowLimit { break }
        }
        return result
    }

    func journalList() -> HTTPResponse {
        let query = JournalQuery(request.query)
        if let status = query.status, !Self.isStatusFilter(status) {
            return frame(.journal, heading: "Journal", lede: "", "<p class=\"alert\" role=\"alert\" id=\"filterError\">Status must be a code (400) or a class (4xx).</p>", status: .badRequest)
        }
        let rows = journalFacts(query).map(journalRow)
        let kindOptions = ([""] + JournalQuery.kinds).map { kind -> HTML in
            "<option value=\"\(kind)\"\(HTML(raw: kind == (query.kind ?? "") ? " selected" : ""))>\(kind.isEmpty ? "any endpoint" : kind)</option>"
        }
        let live = "\(Self.base)/journal/rows?\(query.encoded)"
        let content: HTML = """
        <form method="get" action="\(Tab.journal.path)" class="filters" id="journal-filters">
        <label for="f-client">Client<input id="f-client" name="client" value="\(query.client)" placeholder="client id"></label>
        <label for="f-user">User<input id="f-user" name="user" value="\(query.user)" placeholder="UPN or name"></label>
        <label for="f-kind">Endpoint<select id="f-kind" name="kind">\(kindOptions)</select></label>
        <label for="f-status">Status<input id="f-status" name="status" value="\(query.status)" placeholder="400 or 4xx"></label>
        <button type="submit" class="primary small" id="applyFilters">Filter</button>
        <a href="\(Tab.journal.path)" id="clearFilters">Clear</a>
        <a href="\(request.rawPath)\(request.rawQuery.map { "?" + $0 } ?? "")" id="refresh">Refresh</a><span class="live" id="live">Live updates need JavaScript</span>
        </form>
        <table class="grid" id="journal" data-live="\(live)">
        <thead><tr><th>time</th><th>method</th><th>path</th><th>endpoint</th><th>status</th><th>client</th><th>user</th><th>ms</th></tr></thead>
        <tbody>\(rows.isEmpty ? "<tr class=\"none\"><td colspan=\"8\" class=\"empty\">No requests match yet. Sign in from an app and they appear here.</td></tr>" : HTML(raw: rows.map(\.markup).joined(separator: "\n")))</tbody>
        </table>
        <p class="muted">The newest \(Self.journalRowLimit) matching entries. Secrets and tokens are redacted in the journal; the console decodes the tokens it saw. Export with <code>fakeentra journal --har out.har</code>.</p>
        """
        return frame(.journal, heading: "Journal", lede: "Every request clients made and what FakeEntra answered, newest first.", content)
    }

    /// `…/journal/rows?after=N&filters`: the rows newer than N, for the live list.
    func journalRows() -> HTTPResponse {
        let query = JournalQuery(request.query)
        let after = request.query["after"].flatMap { Int($0) } ?? 0
        let rows = journalFacts(query, after: after).map(journalRow)
        var headers: HTTPHeaders = [:]
        headers.set("Cache-Control", "no-store")
        return HTTPResponse(status: .ok, headers: headers, text: rows.map(\.markup).joined(separator: "\n"), contentType: "text/html; charset=utf-8")
    }

    func journalRow(_ facts: JournalFacts) -> HTML {
        let e = facts.entry
        let link = "\(Self.base)/journal/\(e.id)"
        return """
        <tr data-entry-id="\(e.id)" data-kind="\(e.kind)" data-status="\(e.status)"><td class="mono nowrap">\(ConsoleFormat.clockTime(e.time))</td><td>\(e.method)</td>\
        <td><a href="\(link)" class="mono path">\(Self.breakablePath(e.path))</a></td><td>\(e.kind)</td><td>\(Self.statusPill(e.status))</td>\
        <td class="mono">\(facts.client)</td><td>\(facts.user)</td><td class="mono nowrap">\(String(format: "%.1f", e.durationMilliseconds))</td></tr>
        """
    }

    /// A path that wraps after its slashes rather than inside a word.
    static func breakablePath(_ path: String) -> HTML {
        HTML(raw: path.split(separator: "/", omittingEmptySubsequences: false).map { HTML.escape(String($0)) }.joined(separator: "/<wbr>"))
    }

    static func statusPill(_ status: Int) -> HTML {
        "<span class=\"status s\(min(max(status / 100, 1), 5))\">\(status)</span>"
    }

    static func isStatusFilter(_ text: String) -> Bool {
        let lower = text.lowercased()
        if lower.count == 3, lower.hasSuffix("xx"), lower.first?.isNumber == true { return true }
        return Int(lower).map { (100...599).contains($0) } ?? false
    }
}
