import Foundation
import IdentityPlatform

/// The `$filter` subset the directory answers without advanced queries: `prop eq 'value'` and
/// `startswith(prop,'value')` on a few string properties, joined by `and` or by `or` (not both).
/// Anything else is 400 `Request_UnsupportedQuery`, as Graph answers filters it cannot evaluate.
struct UserFilter {
    enum Clause {
        case equals(String, String)
        case startsWith(String, String)
    }

    static let properties = ["id", "userPrincipalName", "displayName", "mail", "givenName", "surname", "jobTitle"]

    var clauses: [Clause]
    var conjunction: Bool

    init(parsing text: String) throws(GraphError) {
        let lowered = text.lowercased()
        let hasAnd = lowered.contains(" and "), hasOr = lowered.contains(" or ")
        guard !(hasAnd && hasOr) else { throw .unsupportedQuery }
        conjunction = !hasOr
        let parts = Self.split(text, on: hasOr ? " or " : " and ")
        var clauses: [Clause] = []
        for part in parts { clauses.append(try Self.clause(part.trimmingCharacters(in: .whitespaces))) }
        self.clauses = clauses
    }

    func matches(_ user: DirectoryUser) -> Bool {
        let results = clauses.map { clause -> Bool in
            switch clause {
            case .equals(let property, let value):
                Self.value(property, of: user)?.caseInsensitiveCompare(value) == .orderedSame
            case .startsWith(let property, let value):
                Self.value(property, of: user)?.lowercased().hasPrefix(value.lowercased()) ?? false
            }
        }
        return conjunction ? results.allSatisfy { $0 } : results.contains(true)
    }

    private static func value(_ property: String, of user: DirectoryUser) -> String? {
        switch property {
        case "id": user.id
        case "userPrincipalName": user.userPrincipalName
        case "displayName": user.displayName
        case "mail": user.mail
        case "givenName": user.givenName
        case "surname": user.surname
        case "jobTitle": user.jobTitle
        default: nil
        }
    }

    /// Splits on a case-insensitive keyword outside quoted literals.
    private static func split(_ text: String, on keyword: String) -> [String] {
        var parts: [String] = [], current = "", inQuote = false
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            if chars[i] == "'" { inQuote.toggle() }
            if !inQuote, i + keyword.count <= chars.count, String(chars[i..<i + keyword.count]).lowercased() == keyword {
                parts.append(current)
                current = ""
                i += keyword.count
                continue
            }
            current.append(chars[i])
            i += 1
        }
        parts.append(current)
        return parts
    }

    private static func clause(_ text: String) throws(GraphError) -> Clause {
        if text.lowercased().hasPrefix("startswith("), text.hasSuffix(")") {
            let inner = text.dropFirst("startswith(".count).dropLast()
            guard let comma = inner.firstIndex(of: ",") else { throw .unsupportedQuery }
            let property = try canonical(String(inner[..<comma]))
            return .startsWith(property, try literal(String(inner[inner.index(after: comma)...])))
        }
        let words = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard words.count == 3, words[1].lowercased() == "eq" else { throw .unsupportedQuery }
        return .equals(try canonical(String(words[0])), try literal(String(words[2])))
    }

    private static func canonical(_ name: String) throws(GraphError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard let property = properties.first(where: { $0.caseInsensitiveCompare(trimmed) == .orderedSame }) else {
            throw .unsupportedQuery
        }
        return property
    }

    /// `'it''s'` → `it's`.
    private static func literal(_ text: String) throws(GraphError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 2, trimmed.hasPrefix("'"), trimmed.hasSuffix("'") else { throw .unsupportedQuery }
        return String(trimmed.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
    }
}
