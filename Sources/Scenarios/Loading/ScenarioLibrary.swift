import FoundationGaps
package import IdentityPlatform
package import LocatedJSON

/// The published schema, compiled once.
package enum ScenarioSchema {
    package static let compiled: JSONSchema = {
        do { return try JSONSchema(json: Array(text.utf8), file: "scenario.schema.json") }
        catch { preconditionFailure("the embedded scenario schema does not compile: \(error)") }
    }()
}

/// Every problem found in a set of scenario files, each as `file:line:column: message`.
package struct ScenarioValidationReport: Error, Sendable, CustomStringConvertible {
    package var problems: [JSONProblem]
    package var scenarios: [Scenario]
    package var files: [String]

    package var isValid: Bool { problems.isEmpty }

    package var description: String {
        if problems.isEmpty { return "\(files.count) file(s), \(scenarios.count) scenario(s): valid" }
        return problems.map(\.description).joined(separator: "\n")
    }
}

/// Scenarios by name, loaded from the shipped library and users' folders.
package struct ScenarioLibrary: Sendable {
    package private(set) var scenarios: [String: Scenario]

    package init(_ scenarios: [Scenario] = []) {
        self.scenarios = Dictionary(scenarios.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    package subscript(name: String) -> Scenario? { scenarios[name] }

    package var names: [String] { scenarios.keys.sorted() }

    /// Adds or replaces a scenario (the control API's load).
    package mutating func add(_ scenario: Scenario) { scenarios[scenario.name] = scenario }

    /// The library shipped with FakeEntra (`Scenarios/*.json`, compiled in).
    package static func shipped(baseDirectory: Directory = .embeddedDefault) throws(ScenarioValidationReport) -> ScenarioLibrary {
        var problems: [JSONProblem] = []
        var scenarios: [Scenario] = []
        for (file, text) in shippedFiles {
            switch parse(Array(text.utf8), file: "Scenarios/" + file, baseDirectory: baseDirectory) {
            case .success(let scenario): scenarios.append(scenario)
            case .failure(let failure): problems += failure.problems
            }
        }
        let report = ScenarioValidationReport(problems: problems, scenarios: scenarios, files: shippedFiles.map(\.file))
        guard report.isValid else { throw report }
        return ScenarioLibrary(scenarios)
    }

    /// This library with `other`'s scenarios added; a scenario of `other` replaces one of the same name.
    package func merging(_ other: ScenarioLibrary) -> ScenarioLibrary {
        var merged = self
        for scenario in other.scenarios.values { merged.add(scenario) }
        return merged
    }

    /// Every `*.json` file of `directories` (sorted by name), all or nothing: one bad file throws the whole report.
    package static func load(directories: [String], baseDirectory: Directory = .embeddedDefault) throws(ScenarioValidationReport) -> ScenarioLibrary {
        let files = directories.flatMap(files(in:))
        let report = validate(files: files, baseDirectory: baseDirectory)
        guard report.isValid else { throw report }
        return ScenarioLibrary(report.scenarios)
    }

    /// Validates files; names must be unique across all of them.
    package static func validate(files: [String], baseDirectory: Directory = .embeddedDefault) -> ScenarioValidationReport {
        var problems: [JSONProblem] = []
        var scenarios: [Scenario] = []
        var nameLocations: [String: String] = [:]
        for file in files {
            let bytes: [UInt8]
            do { bytes = try LocatedJSON.readFile(file) } catch {
                problems += error.problems
                continue
            }
            switch parse(bytes, file: file, baseDirectory: baseDirectory) {
            case .success(let scenario):
                if let first = nameLocations[scenario.name] {
                    let nameValue = try? LocatedJSON.parse(bytes, file: file)["name"]
                    problems.append(JSONProblem(file: file, location: nameValue?.location ?? .startOfFile, path: "/name",
                                                message: "scenario name \"\(scenario.name)\" is already used by \(first)"))
                } else {
                    nameLocations[scenario.name] = file
                    scenarios.append(scenario)
                }
            case .failure(let failure):
                problems += failure.problems
            }
        }
        return ScenarioValidationReport(problems: problems, scenarios: scenarios, files: files)
    }

    /// One scenario document: syntax, schema, then meaning; every problem at once when the syntax is sound.
    package static func parse(_ bytes: [UInt8], file: String, baseDirectory: Directory = .embeddedDefault) -> Result<Scenario, JSONProblems> {
        let root: JSONValue
        do { root = try LocatedJSON.parse(bytes, file: file) } catch { return .failure(error) }
        let schemaProblems = ScenarioSchema.compiled.validate(root, file: file)
        // The decoder reads defensively, so its checks run on a file the schema rejected too.
        var decoder = ScenarioDecoder(file: file, baseDirectory: baseDirectory)
        let scenario = decoder.decode(root)
        let problems = schemaProblems + decoder.reader.problems
        guard problems.isEmpty, let scenario else { return .failure(JSONProblems(problems.sortedByLocation())) }
        return .success(scenario)
    }

    /// The `*.json` files of a directory, sorted by name; a path that is not a directory is returned as is.
    package static func files(in directory: String) -> [String] {
        guard FileSystemEntry.isDirectory(atPath: directory) == true else { return [directory] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { (directory).appendingPathComponent($0) }
    }
}

extension Array where Element == JSONProblem {
    func sortedByLocation() -> [JSONProblem] {
        enumerated().sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }.map(\.element)
    }
}
