package import LocatedJSON
package import Scenarios

/// A `bindings` entry of the config file: a scenario active from start-up, with where it was written so
/// that an unknown scenario or a taken target is reported as `file:line:col`.
package struct ConfiguredBinding: Sendable {
    package var scenario: String
    package var target: BindingTarget
    package var problemLocation: @Sendable (String) -> JSONProblem

    /// The entries of the (already schema-checked) `bindings` section.
    static func parse(section: JSONValue?, file: String) throws(JSONProblems) -> [ConfiguredBinding] {
        guard let entries = section?.array else { return [] }
        var bindings: [ConfiguredBinding] = []
        var problems: [JSONProblem] = []
        for (index, entry) in entries.enumerated() {
            let pointer = "/bindings/\(index)"
            let locate: @Sendable (String) -> JSONProblem = { message in entry.problem(at: "", file: file, message).under(pointer) }
            let client = entry["clientId"]?.string, user = entry["user"]?.string
            let alias = entry["tenantAlias"]?.string, tenant = entry["tenant"]?.string
            let target: BindingTarget
            switch (client, user, alias, tenant) {
            case (nil, nil, nil, nil): target = .server
            case (let id?, nil, nil, nil): target = .client(id: id)
            case (nil, let name?, nil, nil): target = .user(name)
            case (nil, nil, let alias?, let tenant?): target = .tenantAlias(alias: alias, tenant: tenant)
            default:
                problems.append(locate("a binding names at most one target: clientId, user, or tenantAlias with tenant (none: the whole server)"))
                continue
            }
            bindings.append(ConfiguredBinding(scenario: entry["scenario"]?.string ?? "", target: target, problemLocation: locate))
        }
        guard problems.isEmpty else { throw JSONProblems(problems) }
        return bindings
    }
}

extension ConfiguredBinding {
    /// The entry's problem when its scenario is not in `library`, else nil.
    package func unknownScenarioProblem(in library: ScenarioLibrary) -> JSONProblem? {
        library[scenario] == nil ? problemLocation("no scenario named \"\(scenario)\" (`fakeentra scenarios list` shows them)") : nil
    }
}

extension FakeEntraApplication {
    /// Activates the config file's bindings; every failure is reported at its entry.
    package func activate(_ bindings: [ConfiguredBinding]) throws(JSONProblems) {
        var problems: [JSONProblem] = []
        for binding in bindings {
            do {
                _ = try engine.bind(scenario: binding.scenario, to: binding.target)
            } catch {
                problems.append(binding.problemLocation("\(error)"))
            }
        }
        guard problems.isEmpty else { throw JSONProblems(problems) }
    }
}
