import FoundationGaps
import IdentityPlatform
import EntraHTTP

/// The `$filter` subset the directory answers without advanced queries: `prop eq 'value'` and
/// `startswith(prop,'value')` on a few string properties of users or groups. Anything else is 400
/// `Request_UnsupportedQuery`, as Graph answers filters it cannot evaluate.
struct DirectoryFilter<Object> {
    let expression: FilterExpression
    let value: (String, Object) -> String?

    /// `properties`: the filterable ones by their Graph name, each with how to read it; `resource` the
    /// entity's name as refusals word it (`User`, `Group`).
    init(parsing text: String, properties: [(String, @Sendable (Object) -> String?)], resource: String) throws(GraphError) {
        guard let expression = FilterExpression(parsing: text) else {
            // endsWith is an advanced query (recorded in Graph's advanced-query docs).
            if text.lowercased().contains("endswith(") { throw .advancedOperator("endsWith") }
            throw .unsupportedQuery
        }
        var canonical = expression
        for index in canonical.clauses.indices {
            let clause = canonical.clauses[index]
            guard let property = properties.first(where: { $0.0.caseInsensitiveCompare(clause.property) == .orderedSame }) else {
                throw .unsupportedFilterProperty(clause.property, resource: resource)
            }
            guard [.eq, .startsWith].contains(clause.op), case .string = clause.value else { throw .unsupportedQuery }
            canonical.clauses[index].property = property.0
        }
        self.expression = canonical
        let readers = Dictionary(uniqueKeysWithValues: properties)
        value = { name, object in readers[name]?(object) }
    }

    func matches(_ object: Object) -> Bool {
        expression.matches { clause in
            guard let value = value(clause.property, object) else { return false }
            return clause.op == .eq
                ? value.caseInsensitiveCompare(clause.value.text) == .orderedSame
                : value.lowercased().hasPrefix(clause.value.text.lowercased())
        }
    }
}

extension DirectoryFilter where Object == DirectoryUser {
    static var userProperties: [(String, @Sendable (DirectoryUser) -> String?)] {
        [
        ("id", \.id), ("userPrincipalName", \.userPrincipalName), ("displayName", \.displayName), ("mail", \.mail),
        ("givenName", \.givenName), ("surname", \.surname), ("jobTitle", \.jobTitle),
        ]
    }
}

extension DirectoryFilter where Object == DirectoryGroup {
    static var groupProperties: [(String, @Sendable (DirectoryGroup) -> String?)] {
        [
        ("id", \.id), ("displayName", \.displayName), ("mailNickname", \.mailNickname), ("description", \.description),
        ]
    }
}

/// `$search="displayName:ad"` (advanced query, needs `ConsistencyLevel: eventual`): a term matches when a word
/// of the property starts with its value, ignoring case; terms join with `AND` or `OR` (not both).
struct DirectorySearch<Object> {
    static var needsConsistencyLevel: GraphError {
        GraphError(status: .badRequest, code: "Request_UnsupportedQuery",
                   message: "Request with $search query parameter only works through MSGraph with a special request header: 'ConsistencyLevel: eventual'")
    }
    static var invalid: GraphError { GraphError(status: .badRequest, code: "Request_UnsupportedQuery", message: "Invalid search query.") }

    private var terms: [(property: String, value: String)]
    private var conjunction: Bool
    private let properties: [(String, @Sendable (Object) -> String?)]

    /// `properties`: the searchable ones by their Graph name, each with how to read it.
    init(parsing text: String, properties: [(String, @Sendable (Object) -> String?)]) throws(GraphError) {
        let hasAnd = text.contains("\" AND \""), hasOr = text.contains("\" OR \"")
        guard !(hasAnd && hasOr) else { throw Self.invalid }
        conjunction = !hasOr
        self.properties = properties
        var terms: [(String, String)] = []
        for part in text.components(separatedBy: hasOr ? "\" OR \"" : "\" AND \"") {
            let bare = part.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            guard let colon = bare.firstIndex(of: ":"),
                  let property = properties.map(\.0).first(where: { $0.caseInsensitiveCompare(String(bare[..<colon])) == .orderedSame })
            else { throw Self.invalid }
            terms.append((property, String(bare[bare.index(after: colon)...]).lowercased()))
        }
        self.terms = terms
    }

    func matches(_ object: Object) -> Bool {
        let results = terms.map { term in
            let read = properties.first { $0.0 == term.property }?.1
            let words = (read?(object) ?? "").lowercased()
                .split(whereSeparator: { !$0.isLetter && !$0.isNumber })
            return words.contains { $0.hasPrefix(term.value) }
        }
        return conjunction ? results.allSatisfy { $0 } : results.contains(true)
    }
}
