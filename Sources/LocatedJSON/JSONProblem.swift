/// One problem found in a JSON file: where it is, which value it concerns, and what was expected.
///
/// Renders as `file:line:column: message`, the format compilers use, so editors and terminals
/// can jump to it.
public struct JSONProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file name as given by the caller (used only for display).
    public var file: String
    public var location: SourceLocation
    /// RFC 6901 JSON pointer of the value concerned ("" for the document itself).
    public var path: String
    public var message: String

    public init(file: String, location: SourceLocation, path: String, message: String) {
        self.file = file
        self.location = location
        self.path = path
        self.message = message
    }

    public var description: String { "\(file):\(location.line):\(location.column): \(message)" }
}

/// Every problem found in a file, in document order; thrown by parsing, validation and decoding.
///
/// A syntax error stops parsing, so it comes alone; validation reports all problems at once.
public struct JSONProblems: Error, Sendable, Hashable, CustomStringConvertible {
    public var problems: [JSONProblem]

    public init(_ problems: [JSONProblem]) {
        self.problems = problems
    }

    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
