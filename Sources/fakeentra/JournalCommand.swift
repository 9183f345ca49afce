#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import FoundationGaps
import LocatedJSON

struct JournalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Print the request journal of a running server, or export it as HAR 1.2.",
        discussion: "Reads GET /_fakeentra/journal (loopback only). The server's certificate is checked against <certs>/ca.pem."
    )

    @OptionGroup var server: RunningServerOptions
    @Option(help: "Only entries of this kind (token, authorize, graph, b2c, …).") var kind: String?
    @Option(help: "Only entries with this status (400) or class (4xx).") var status: String?
    @Option(help: "Only entries whose path contains this text.") var path: String?
    @Option(help: "The most recent N matching entries.") var limit: Int?
    @Option(help: ArgumentHelp("Write the entries as HAR 1.2 to this file (- for standard output) instead of printing them.", valueName: "out.har")) var har: String?
    @Flag(help: "Clear the journal (after printing or exporting).") var clear = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() throws {
        let client = try server.client()
        var query: [(String, String)] = [("kind", kind), ("status", status), ("path", path), ("limit", limit.map(String.init))].compactMap { name, value in value.map { (name, $0) } }
        if let har {
            query.append(("format", "har"))
            let body = try client.send("GET", JournalPath.path, query: query, expecting: 200)
            guard har != "-" else {
                FileHandle.standardOutput.write(Data((body + "\n").utf8))
                return try clearIfAsked(client)
            }
            do { try Data(body.utf8).write(to: URL(fileURLWithPath: har), options: .atomic) } catch {
                throw failure("cannot write \(har): \(error.localizedDescription)")
            }
            let count = LocatedJSON.object(lenientBody: body.utf8)?["log"]?["entries"]?.array?.count ?? 0
            print("\(count) entries written to \(har)")
        } else {
            let body = try client.send("GET", JournalPath.path, query: query, expecting: 200)
            // Read leniently, as every answer of a server: another FakeEntra build may write what strict JSON
            // refuses (a form's repeated parameter as repeated members), and a line per entry needs none of it.
            guard let root = LocatedJSON.object(lenientBody: body.utf8), let entries = root["entries"]?.array,
                  entries.allSatisfy({ $0.members != nil }) else {
                throw failure("\(client.baseURL) answered something that is not a FakeEntra journal")
            }
            for line in JournalLines.format(entries) { print(line) }
            if entries.isEmpty { FileHandle.standardError.write(Data("fakeentra: no journal entries match\n".utf8)) }
            if let dropped = root["dropped"]?.int, dropped > 0 {
                FileHandle.standardError.write(Data("fakeentra: \(dropped) older entries were dropped by the journal's bounds\n".utf8))
            }
        }
        try clearIfAsked(client)
    }

    func clearIfAsked(_ client: ControlClient) throws {
        if clear { _ = try client.send("DELETE", JournalPath.path, query: [], expecting: 204) }
    }

}

enum JournalPath {
    static let path = "/_fakeentra/journal"
}

/// One aligned line per journal entry: time, kind, method, path, status, milliseconds.
enum JournalLines {
    static func format(_ entries: [JSONValue]) -> [String] {
        let rows: [[String]] = entries.map { entry in
            let time = entry["time"]?.string.map(clockTime) ?? "-"
            let query = entry["query"]?.members.map { $0.isEmpty ? "" : "?…" } ?? ""
            let ms = entry["durationMs"]?.double.map { String(format: "%.1f ms", $0) } ?? "-"
            return [time, entry["kind"]?.string ?? "-", entry["method"]?.string ?? "-", (entry["path"]?.string ?? "-") + query,
                    entry["status"]?.int.map(String.init) ?? "-", ms]
        }
        let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, text in
                // The last column and the status are right-aligned, the rest left-aligned.
                column >= 4 ? String(repeating: " ", count: widths[column] - text.count) + text
                    : text.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    /// `2026-11-21T09:41:07.123Z` → `09:41:07.123`.
    static func clockTime(_ iso: String) -> String {
        guard let t = iso.firstIndex(of: "T") else { return iso }
        return String(iso[iso.index(after: t)...].prefix(12))
    }
}
