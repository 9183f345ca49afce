import FoundationGaps
import IdentityPlatform
package import LocatedJSON

extension B2CConfiguration {
    /// `jsonSchemaFragment`, compiled once (a test proves it compiles).
    package static let schema: JSONSchema = {
        do { return try JSONSchema(json: Array(jsonSchemaFragment.utf8), file: "b2c.schema.json") } catch { fatalError("B2C schema: \(error)") }
    }()

    /// The config file's `b2c` section, ready to serve: checked against the schema, decoded, checked for
    /// what a schema cannot see (names used twice), then resolved against the embedded default tenant
    /// (`resolve(_:includeDefaults:)`). Every problem points into `file` (line, column, and
    /// `pointerPrefix` + the pointer within the section); all are reported at once. nil: no B2C tenant.
    package static func load(section: JSONValue?, file: String, includeDefaults: Bool = true, pointerPrefix: String = "/b2c") throws(JSONProblems) -> B2CConfiguration? {
        guard let section else { return resolve(nil, includeDefaults: includeDefaults) }
        try schema.validate(section: section, at: pointerPrefix, file: file)
        let configuration: B2CConfiguration
        do {
            configuration = try LocatedJSON.decodeDocument(B2CConfiguration.self, from: section.bytes, tree: section, file: file, decoder: JSONDecoder()).value
        } catch {
            throw error.under(pointerPrefix)
        }
        let duplicates = configuration.duplicateEntries().map { section.problem(at: $0.pointer, file: file, $0.message) }
        guard duplicates.isEmpty else { throw JSONProblems(duplicates).under(pointerPrefix) }
        return resolve(configuration, includeDefaults: includeDefaults)
    }

    /// Entries that name the same policy, account, sign-in address, API or client as an earlier one.
    func duplicateEntries() -> [(pointer: String, message: String)] {
        var found: [(String, String)] = []
        func check<T>(_ list: [T], _ member: String, _ field: String, _ what: String, key: (T) -> String) {
            var seen: [String: Int] = [:]
            for (index, entry) in list.enumerated() {
                let name = key(entry).lowercased()
                if let first = seen[name] {
                    found.append(("/\(member)/\(index)/\(field)", "\(what) '\(key(entry))' is already defined at /\(member)/\(first)"))
                } else {
                    seen[name] = index
                }
            }
        }
        check(policies, "policies", "name", "policy", key: \.name)
        check(localAccounts, "localAccounts", "objectId", "object id", key: \.objectId)
        check(localAccounts, "localAccounts", "email", "sign-in address", key: \.email)
        check(apis, "apis", "name", "API", key: \.name)
        check(apis, "apis", "appId", "app id", key: \.appId)
        check(applications, "applications", "clientId", "client id", key: \.clientId)
        return found
    }
}
