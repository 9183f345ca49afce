import Foundation
package import LocatedJSON

extension GraphDataset {
    /// `jsonSchema`, compiled once (a test proves it compiles).
    package static let schema: JSONSchema = {
        do { return try JSONSchema(json: Array(jsonSchema.utf8), file: "graph.schema.json") } catch { fatalError("Graph schema: \(error)") }
    }()

    /// The config file's `graph` section, ready to serve: checked against `jsonSchema`, decoded, checked for
    /// what a schema cannot see (event times, time zones, image bytes), photo files read and inlined. Every
    /// problem points into `file` (line, column, and `pointerPrefix` + the pointer within the section); all are
    /// reported at once. No section: `embeddedDefault`. A section replaces the default entirely.
    package static func load(section: JSONValue?, file: String, baseDirectory: String, pointerPrefix: String = "/graph") throws(JSONProblems) -> GraphDataset {
        guard let section else { return .embeddedDefault }
        func located(_ problems: [JSONProblem]) -> JSONProblems {
            JSONProblems(problems.map { problem in
                var prefixed = problem
                prefixed.path = pointerPrefix + problem.path
                return prefixed
            })
        }
        let schemaProblems = schema.validate(section, file: file)
        guard schemaProblems.isEmpty else { throw located(schemaProblems) }
        let dataset: GraphDataset
        do {
            let data = try JSONSerialization.data(withJSONObject: foundationObject(section), options: [.fragmentsAllowed])
            dataset = try JSONDecoder().decode(GraphDataset.self, from: data)
        } catch {
            throw located([LocatedJSON.problem(for: error, in: section, file: file)])
        }
        var problems = dataset.validationIssues().map { section.problem(at: $0.pointer, file: file, $0.message) }
        var inlined = dataset
        for key in dataset.users.keys.sorted() {
            guard dataset.users[key]?.photo?.path != nil else { continue }
            let single = GraphDataset(users: [key: dataset.users[key]!])
            do {
                inlined.users[key] = try single.inliningPhotoFiles(relativeTo: baseDirectory).users[key]
            } catch {
                let pointer = "/users/" + key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") + "/photo/path"
                let reason = (error as? PhotoFileError)?.description ?? "cannot read the photo file: \(error.localizedDescription)"
                problems.append(section.problem(at: pointer, file: file, reason))
            }
        }
        guard problems.isEmpty else { throw located(problems) }
        return inlined
    }

    /// The plain Foundation value of a located JSON value, for `JSONDecoder`.
    private static func foundationObject(_ value: JSONValue) -> Any {
        switch value.kind {
        case .null: NSNull()
        case .bool(let b): b
        case .number(let n): n.int64.map { Int($0) as Any } ?? n.double
        case .string(let s): s
        case .array(let items): items.map(foundationObject)
        case .object(let members): Dictionary(members.map { ($0.key, foundationObject($0.value)) }, uniquingKeysWith: { first, _ in first })
        }
    }
}
