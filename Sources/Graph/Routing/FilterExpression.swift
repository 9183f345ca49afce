import FoundationGaps

/// The `$filter` shapes this fake evaluates: comparisons `property op literal`, `startswith(property,'x')`,
/// a collection's `property/any(x:x eq 'v')`, each possibly negated as `NOT(…)`, all joined by `and` or all
/// by `or`. Resources decide which properties and operators they accept.
struct FilterExpression: Equatable {
    enum Operator: String, Equatable { case eq, ne, gt, ge, lt, le, startsWith, any }

    enum Literal: Equatable {
        case string(String)
        case bool(Bool)
        /// Unquoted: a number, a date-time or `null`, as written.
        case bare(String)

        var text: String {
            switch self {
            case .string(let s), .bare(let s): s
            case .bool(let b): b ? "true" : "false"
            }
        }
    }

    struct Clause: Equatable {
        var property: String
        var op: Operator
        var value: Literal
        /// Written inside `NOT(…)`.
        var negated = false
    }

    var clauses: [Clause]
    /// true: every clause must hold (`and`); false: any (`or`).
    var conjunction: Bool

    /// nil when the text is not of the supported shapes.
    init?(parsing text: String) {
        let lowered = text.lowercased()
        let hasAnd = Self.containsKeyword(lowered, " and "), hasOr = Self.containsKeyword(lowered, " or ")
        guard !(hasAnd && hasOr) else { return nil }
        conjunction = !hasOr
        var clauses: [Clause] = []
        for part in Self.split(text, on: hasOr ? " or " : " and ") {
            guard let clause = Self.clause(part.trimmingCharacters(in: .whitespaces)) else { return nil }
            clauses.append(clause)
        }
        guard !clauses.isEmpty else { return nil }
        self.clauses = clauses
    }

    /// Evaluates with `test` deciding each clause.
    func matches(_ test: (Clause) -> Bool) -> Bool {
        conjunction ? clauses.allSatisfy(test) : clauses.contains(where: test)
    }

    /// Compares with `op` on any comparable values.
    static func compare<T: Comparable>(_ a: T, _ op: Operator, _ b: T) -> Bool {
        switch op {
        case .eq: a == b
        case .ne: a != b
        case .gt: a > b
        case .ge: a >= b
        case .lt: a < b
        case .le: a <= b
        case .startsWith, .any: false
        }
    }

    private static func containsKeyword(_ text: String, _ keyword: String) -> Bool { split(text, on: keyword).count > 1 }

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

    private static func clause(_ text: String) -> Clause? {
        let lowered = text.lowercased()
        if lowered.hasPrefix("not("), text.hasSuffix(")") {
            guard var inner = clause(String(text.dropFirst(4).dropLast()).trimmingCharacters(in: .whitespaces)), !inner.negated else { return nil }
            inner.negated = true
            return inner
        }
        if let any = text.firstMatch(of: #/^(\w+)/any\(\s*(\w+)\s*:\s*(\w+)\s+eq\s+('(?:[^']|'')*')\s*\)$/#.ignoresCase()),
           any.2.lowercased() == any.3.lowercased(), case .string(let value)? = literal(String(any.4)) {
            return Clause(property: String(any.1), op: .any, value: .string(value))
        }
        if lowered.hasPrefix("startswith("), text.hasSuffix(")") {
            let inner = text.dropFirst("startswith(".count).dropLast()
            guard let comma = inner.firstIndex(of: ","), case .string(let value)? = literal(String(inner[inner.index(after: comma)...])) else { return nil }
            return Clause(property: inner[..<comma].trimmingCharacters(in: .whitespaces), op: .startsWith, value: .string(value))
        }
        let words = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard words.count == 3, let op = Operator(rawValue: words[1].lowercased()), op != .startsWith, op != .any,
              let value = literal(String(words[2])) else { return nil }
        return Clause(property: String(words[0]), op: op, value: value)
    }

    /// `'it''s'` → `it's`; `true`/`false`; anything else unquoted stays as written.
    private static func literal(_ text: String) -> Literal? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if trimmed.hasPrefix("'") {
            guard trimmed.count >= 2, trimmed.hasSuffix("'") else { return nil }
            return .string(String(trimmed.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
        }
        switch trimmed.lowercased() {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default: return trimmed.contains(" ") ? nil : .bare(trimmed)
        }
    }
}
