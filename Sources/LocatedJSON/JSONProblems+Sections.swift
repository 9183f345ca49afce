// Modules that own a section of the config file (B2C, Graph) validate that section on their own; their
// problems must still name where the section sits in the whole file.

extension JSONProblems {
    /// The same problems with `pointer` (`/b2c`, `/graph`) put in front of their paths.
    package func under(_ pointer: String) -> JSONProblems {
        JSONProblems(problems.map { $0.under(pointer) })
    }
}

extension JSONProblem {
    /// The same problem with `pointer` put in front of its path.
    package func under(_ pointer: String) -> JSONProblem {
        var moved = self
        moved.path = pointer + path
        return moved
    }
}

extension JSONSchema {
    /// Validates one section of a larger document; problems carry `pointer` + their path in the section.
    package func validate(section: JSONValue, at pointer: String, file: String) throws(JSONProblems) {
        let problems = validate(section, file: file)
        guard problems.isEmpty else { throw JSONProblems(problems).under(pointer) }
    }
}
