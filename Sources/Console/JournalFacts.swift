import ControlPlane
import EntraCrypto
import EntraHTTP
import FoundationGaps
import ExchangeKernel
import Journal
import IdentityPlatform
import LocatedJSON
import Scenarios

/// What the console reads out of a journal entry: the tokens it carried (decoded from the ledger where
/// the journal redacted them), the client and the user, for the filters and the list's columns.
struct JournalFacts {
    struct FoundToken {
        /// Where it was: `access_token`, `Authorization`, `id_token`, …
        var label: String
        var token: String?
        /// The journal's short hash when the ledger no longer holds the token.
        var hash: String?
    }

    let entry: JournalEntry
    let tokens: [FoundToken]
    let inspections: [(label: String, inspection: TokenInspection)]
    let client: String?
    let user: String?

    init(_ entry: JournalEntry, ledger: TokenLedger, keys: [SigningCredential]) {
        self.entry = entry
        let pairs = Self.namedValues(entry)
        var tokens: [FoundToken] = []
        var seen = Set<String>()
        for (name, value) in pairs {
            for token in JWTScanner.tokens(in: Array(value.utf8)) where seen.insert(token).inserted {
                tokens.append(FoundToken(label: name, token: token))
            }
            for hash in Redaction.markerHashes(in: value) {
                if let token = ledger.token(hashPrefix: hash) {
                    if seen.insert(token).inserted { tokens.append(FoundToken(label: name, token: token)) }
                } else if Self.tokenNames.contains(name.lowercased()), seen.insert(hash).inserted {
                    tokens.append(FoundToken(label: name, hash: hash))
                }
            }
        }
        self.tokens = tokens
        let inspected = tokens.compactMap { found -> (label: String, inspection: TokenInspection)? in
            guard let token = found.token, let inspection = TokenInspection(token, keys: keys) else { return nil }
            return (label: found.label, inspection: inspection)
        }
        inspections = inspected
        let claim = { (names: [String]) -> String? in
            for name in names {
                if let value = inspected.lazy.compactMap({ $0.inspection.claim(name) }).first { return value }
            }
            return nil
        }
        let parameter = { (names: [String]) -> String? in
            pairs.first { names.contains($0.0.lowercased()) && !$0.1.isEmpty && !$0.1.hasPrefix("[redacted") }?.1
        }
        client = parameter(["client_id"]) ?? claim(["azp", "appid"])
        user = claim(["preferred_username", "upn", "unique_name", "email"]) ?? parameter(["login_hint", "username", "login", "loginfmt", "signinname", "email"])
    }

    /// Names of members that hold tokens (a redacted value under another name is a password or code).
    static let tokenNames: Set<String> = ["access_token", "id_token", "authorization", "id_token_hint", "assertion", "client_assertion", "location"]

    /// Every (name, value) of the entry: query, headers, form or JSON members (nested too), and the
    /// parameters inside a `Location` (redirects carry codes and tokens in the query or fragment).
    static func namedValues(_ entry: JournalEntry) -> [(String, String)] {
        var pairs = entry.query + entry.requestHeaders + entry.responseHeaders
        for (name, value) in entry.responseHeaders where name.lowercased() == "location" {
            for part in value.split(whereSeparator: { $0 == "?" || $0 == "#" }).dropFirst() {
                pairs += FormParameters(decoding: String(part)).pairs.map { ($0.name, $0.value) }
            }
        }
        for body in [entry.requestBody, entry.responseBody] {
            guard let tree = try? LocatedJSON.parse(Array(body.utf8), file: "journal") else { continue }
            collect(tree, name: "body", into: &pairs)
        }
        return pairs
    }

    static func collect(_ value: JSONValue, name: String, into pairs: inout [(String, String)]) {
        switch value.kind {
        case .string(let text): pairs.append((name, text))
        case .object(let members): for member in members { collect(member.value, name: member.key, into: &pairs) }
        case .array(let items): for item in items { collect(item, name: name, into: &pairs) }
        default: break
        }
    }

    /// The request's form or JSON body as text for people: JSON indented, members in their order.
    static func readableBody(_ journalBody: String) -> String? {
        switch JournalBody(journalBody) {
        case .absent: nil
        case .text(let text): text
        case .json(let value): value.pretty()
        }
    }
}
