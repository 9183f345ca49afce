import LocatedJSON

/// Parses `text` and returns the rendered problem lines (empty when it parses).
func parseProblems(_ text: String, file: String = "x.json", limits: JSONParseLimits = .default) -> [String] {
    do {
        _ = try LocatedJSON.parse(Array(text.utf8), file: file, limits: limits)
        return []
    } catch {
        return error.problems.map(\.description)
    }
}

/// Parses text that must be valid JSON.
func tree(_ text: String) throws -> JSONValue {
    try LocatedJSON.parse(Array(text.utf8), file: "x.json")
}

func schema(_ text: String) throws(JSONProblems) -> JSONSchema {
    try JSONSchema(json: Array(text.utf8), file: "schema.json")
}

/// Validates `document` against `schemaText` and returns the rendered problem lines.
func validationProblems(_ document: String, against schemaText: String, file: String = "config.json") throws -> [String] {
    let compiled = try schema(schemaText)
    let value = try LocatedJSON.parse(Array(document.utf8), file: file)
    return compiled.validate(value, file: file).map(\.description)
}

/// The problems loading a schema reports (empty when it compiles).
func schemaProblems(_ text: String) -> [String] {
    do {
        _ = try schema(text)
        return []
    } catch {
        return error.problems.map(\.description)
    }
}
