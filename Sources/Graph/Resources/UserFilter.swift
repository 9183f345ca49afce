import Foundation
import IdentityPlatform

/// The `$filter` subset the directory answers without advanced queries: `prop eq 'value'` and
/// `startswith(prop,'value')` on a few string properties. Anything else is 400 `Request_UnsupportedQuery`,
/// as Graph answers filters it cannot evaluate.
struct UserFilter {
    static let properties = ["id", "userPrincipalName", "displayName", "mail", "givenName", "surname", "jobTitle"]

    let expression: FilterExpression

    init(parsing text: String) throws(GraphError) {
        guard let expression = FilterExpression(parsing: text) else { throw .unsupportedQuery }
        var canonical = expression
        for index in canonical.clauses.indices {
            let clause = canonical.clauses[index]
            guard [.eq, .startsWith].contains(clause.op), case .string = clause.value,
                  let property = Self.properties.first(where: { $0.caseInsensitiveCompare(clause.property) == .orderedSame })
            else { throw .unsupportedQuery }
            canonical.clauses[index].property = property
        }
        self.expression = canonical
    }

    func matches(_ user: DirectoryUser) -> Bool {
        expression.matches { clause in
            guard let value = Self.value(clause.property, of: user) else { return false }
            return clause.op == .eq
                ? value.caseInsensitiveCompare(clause.value.text) == .orderedSame
                : value.lowercased().hasPrefix(clause.value.text.lowercased())
        }
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
}
