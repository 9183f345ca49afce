import FoundationGaps
import IdentityPlatform
package import LocatedJSON

/// Walks a schema-valid JSON tree and reports the problems the schema cannot express
/// (bad regexes, conflicting conditions, unknown codes), each at its file:line:column.
package struct JSONReader {
    let file: String
    package private(set) var problems: [JSONProblem] = []

    package init(file: String) { self.file = file }

    mutating func report(_ message: String, at value: JSONValue, path: String) {
        problems.append(JSONProblem(file: file, location: value.location, path: path, message: message))
    }

    mutating func report(_ message: String, atKeyOf member: JSONMember, path: String) {
        problems.append(JSONProblem(file: file, location: member.keyLocation, path: path, message: message))
    }

    static func pointer(_ base: String, _ token: String) -> String {
        base + "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    static func pointer(_ base: String, _ index: Int) -> String { base + "/\(index)" }

    // Typed reads: the schema has already checked types, so a mismatch only yields nil.
    func string(_ value: JSONValue?, _ key: String) -> String? { value?[key]?.string }
    func bool(_ value: JSONValue?, _ key: String) -> Bool? { value?[key]?.bool }
    func int(_ value: JSONValue?, _ key: String) -> Int? { value?[key]?.number.flatMap { $0.int64.map(Int.init) ?? Int(exactly: $0.double) } }
    func double(_ value: JSONValue?, _ key: String) -> Double? { value?[key]?.number?.double }
    func strings(_ value: JSONValue?, _ key: String) -> [String] { value?[key]?.array?.compactMap(\.string) ?? [] }

    /// A string or a list of strings, as a list.
    func stringOrList(_ value: JSONValue?) -> [String] {
        guard let value else { return [] }
        if let single = value.string { return [single] }
        return value.array?.compactMap(\.string) ?? []
    }
}
