import FoundationGaps
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
        // The dataset's types are Codable (their tests round-trip them), so the section is decoded from its
        // own bytes; the tree locates a decoding error in the file.
        let dataset: GraphDataset
        do { dataset = try LocatedJSON.decodeDocument(GraphDataset.self, from: section.bytes, tree: section, file: file, decoder: JSONDecoder()).value }
        catch { throw located(error.problems) }
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
}
