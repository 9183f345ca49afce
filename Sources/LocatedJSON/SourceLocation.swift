/// A position in a JSON source file, as an editor shows it.
///
/// `line` and `column` are 1-based; columns count Unicode scalars (a tab is one column, "é" is one
/// column), so `file:line:column` lands on the right character in editors and terminals.
/// `offset` is the 0-based byte offset, which orders locations and lets tools slice the source.
package struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    package var offset: Int

    package init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// The start of a file, used for problems that concern the whole document.
    package static let startOfFile = SourceLocation(line: 1, column: 1, offset: 0)

    package static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        lhs.offset < rhs.offset
    }

    /// `line:column`, the form used in problem messages.
    package var description: String { "\(line):\(column)" }
}
