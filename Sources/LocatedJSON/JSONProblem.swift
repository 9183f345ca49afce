/// One problem found in a JSON file: where it is, which value it concerns, and what was expected.
///
/// Renders as `file:line:column: message`, the format compilers use, so editors and terminals
/// can jump to it.
package struct JSONProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file name as given by the caller (used only for display).
    package var file: String
    package var location: SourceLocation
    /// RFC 6901 JSON pointer of the value concerned ("" for the document itself).
    package var path: String
    package var message: String

    package init(file: String, location: SourceLocation, path: String, message: String) {
        self.file = file
        self.location = location
        self.path = path
        self.message = message
    }

    package var description: String { "\(file):\(location.line):\(location.column): \(message)" }
}

/// Every problem found in a file, in document order; thrown by parsing, validation and decoding.
///
/// A syntax error stops parsing, so it comes alone; validation reports all problems at once.
package struct JSONProblems: Error, Sendable, Hashable, CustomStringConvertible {
    package var problems: [JSONProblem]

    package init(_ problems: [JSONProblem]) {
        self.problems = problems
    }

    /// One problem per line.
    package var description: String { problems.map(\.description).joined(separator: "\n") }
}
