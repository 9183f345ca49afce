import FoundationGaps
import IdentityPlatform
import EntraHTTP

/// The `$filter` subset the directory answers: `prop eq 'value'` and `startswith(prop,'value')` on string
/// properties, `prop eq true` on boolean ones, `prop/any(x:x eq 'value')` on collections of strings; and, as
/// advanced queries (`ConsistencyLevel: eventual` with `$count=true`), `ne` and `NOT(…)` of any of these.
/// Anything else is 400 `Request_UnsupportedQuery`, as Graph answers filters it cannot evaluate.
struct DirectoryFilter<Object> {
    let expression: FilterExpression
    let value: (String, Object) -> String?
    let flag: (String, Object) -> Bool?
    let list: (String, Object) -> [String]?

    /// `properties`: the filterable strings by their Graph name, each with how to read it; `flags` the
    /// booleans, `lists` the collections of strings; `resource` the entity's name as refusals word it
    /// (`User`, `Group`). `advancedQuery`: the request asked for eventual consistency and a count.
    init(parsing text: String, properties: [(String, @Sendable (Object) -> String?)], flags: [(String, @Sendable (Object) -> Bool)] = [],
         lists: [(String, @Sendable (Object) -> [String])] = [], resource: String, advancedQuery: Bool = false) throws(GraphError) {
        guard let expression = FilterExpression(parsing: text) else {
            // endsWith is an advanced query (recorded in Graph's advanced-query docs).
            if text.lowercased().contains("endswith(") { throw .advancedOperator("endsWith") }
            throw .unsupportedQuery
        }
        func canonical(_ name: String, in names: [String]) -> String? { names.first { $0.caseInsensitiveCompare(name) == .orderedSame } }
        var checked = expression
        for index in checked.clauses.indices {
            let clause = checked.clauses[index]
            // Graph names the operator in lower case ("Operator 'not' is not supported because the required
            // parameters might be missing…", as developers quote it).
            if clause.negated, !advancedQuery { throw .advancedOperator("not") }
            if clause.op == .ne, !advancedQuery { throw .advancedOperator("ne") }
            if let name = canonical(clause.property, in: properties.map(\.0)) {
                guard [.eq, .ne, .startsWith].contains(clause.op), case .string = clause.value else { throw .unsupportedQuery }
                checked.clauses[index].property = name
            } else if let name = canonical(clause.property, in: flags.map(\.0)) {
                guard [.eq, .ne].contains(clause.op), case .bool = clause.value else { throw .unsupportedQuery }
                checked.clauses[index].property = name
            } else if let name = canonical(clause.property, in: lists.map(\.0)) {
                guard clause.op == .any else { throw .unsupportedQuery }
                checked.clauses[index].property = name
            } else {
                throw .unsupportedFilterProperty(clause.property, resource: resource)
            }
        }
        self.expression = checked
        let texts = Dictionary(uniqueKeysWithValues: properties), booleans = Dictionary(uniqueKeysWithValues: flags)
        let collections = Dictionary(uniqueKeysWithValues: lists)
        value = { name, object in texts[name]?(object) }
        flag = { name, object in booleans[name]?(object) }
        list = { name, object in collections[name]?(object) }
    }

    func matches(_ object: Object) -> Bool {
        expression.matches { clause in
            let holds: Bool
            switch clause.op {
            case .any:
                holds = list(clause.property, object)?.contains { $0.caseInsensitiveCompare(clause.value.text) == .orderedSame } ?? false
            case .eq, .ne:
                if case .bool(let wanted) = clause.value {
                    holds = flag(clause.property, object).map { $0 == wanted } ?? false
                } else {
                    holds = value(clause.property, object).map { $0.caseInsensitiveCompare(clause.value.text) == .orderedSame } ?? false
                }
            case .startsWith:
                holds = value(clause.property, object)?.lowercased().hasPrefix(clause.value.text.lowercased()) ?? false
            case .gt, .ge, .lt, .le:
                holds = false
            }
            return holds != (clause.negated != (clause.op == .ne))
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
        // No demo group's membership is dynamic: the property is there to be asked, and is null.
        ("membershipRuleProcessingState", { _ in nil }),
        ]
    }

    static var groupFlags: [(String, @Sendable (DirectoryGroup) -> Bool)] {
        [("mailEnabled", \.mailEnabled), ("securityEnabled", \.securityEnabled)]
    }

    static var groupLists: [(String, @Sendable (DirectoryGroup) -> [String])] {
        [("groupTypes", \.groupTypes)]
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
