/// A strict RFC 8259 parser over bytes that records the source location of every value.
///
/// Containers are parsed with an explicit stack rather than recursion, so nesting depth is a
/// configured limit and never a stack overflow. Syntax errors stop at the first one; duplicate
/// keys are collected in `duplicateKeys` and parsing goes on.
struct JSONParser {
    let bytes: [UInt8]
    let file: String
    let limits: JSONParseLimits
    /// Whether a comma may close an array or object (`[1, 2,]`), as Foundation's and other lenient readers
    /// allow; strict parsing refuses it.
    var acceptsTrailingCommas = false

    var position = 0
    private(set) var duplicateKeys: [JSONProblem] = []
    private var stack: [OpenContainer] = []

    // Line tracking: newlines only occur in whitespace (strings reject raw control characters).
    private var line = 1
    private var lineStart = 0
    // Columns are counted forward from the last location computed on the current line, so a
    // multi-megabyte single-line file still costs one pass.
    private var columnAnchorOffset = 0
    private var columnAnchor = 1

    init(bytes: [UInt8], file: String, limits: JSONParseLimits) {
        self.bytes = bytes
        self.file = file
        self.limits = limits
    }

    /// An array or object whose closing bracket has not been read yet.
    private struct OpenContainer {
        let isObject: Bool
        let start: SourceLocation
        /// The member name or index of this container in its parent (nil for the root).
        let tokenInParent: String?
        var elements: [JSONValue] = []
        var members: [JSONMember] = []
        /// Built only for large objects: small ones are searched linearly, which is faster.
        var keyIndex: [String: SourceLocation] = [:]
        var pendingKey = ""
        var pendingKeyLocation = SourceLocation.startOfFile

        var closer: UInt8 { isObject ? ASCII.closeBrace : ASCII.closeBracket }

        var childToken: String { isObject ? pendingKey : String(elements.count) }

        private static let linearSearchLimit = 16

        /// Where `key` already appears in this object, if it does.
        func firstLocation(ofKey key: String) -> SourceLocation? {
            if members.count < Self.linearSearchLimit {
                return members.first { $0.key == key }?.keyLocation
            }
            return keyIndex[key]
        }

        mutating func add(_ value: JSONValue) {
            if isObject {
                members.append(JSONMember(key: pendingKey, keyLocation: pendingKeyLocation, value: value))
                if members.count == Self.linearSearchLimit {
                    for member in members { keyIndex[member.key] = member.keyLocation }
                } else if members.count > Self.linearSearchLimit, keyIndex[pendingKey] == nil {
                    keyIndex[pendingKey] = pendingKeyLocation
                }
            } else {
                elements.append(value)
            }
        }

        var value: JSONValue {
            JSONValue(isObject ? .object(members) : .array(elements), at: start)
        }
    }

    // MARK: Document

    mutating func parseDocument() throws(JSONProblem) -> JSONValue {
        guard bytes.count <= limits.maximumBytes else {
            throw problem(
                "file is too large (\(bytes.count) bytes; the limit is \(limits.maximumBytes))",
                at: .startOfFile)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
            columnAnchorOffset = 3
            lineStart = 3
        }
        nextValue: while true {
            skipWhitespace()
            guard var completed = try beginValue() else { continue nextValue }
            while var container = stack.popLast() {
                container.add(completed)
                skipWhitespace()
                if acceptsTrailingCommas { skipTrailingComma(before: container.closer) }
                guard position < bytes.count, bytes[position] != ASCII.comma else {
                    stack.append(container)
                    if position == bytes.count {
                        throw unexpected(expected: container.isObject ? "'}'" : "']'")
                    }
                    try continueAfterComma()
                    continue nextValue
                }
                guard bytes[position] == container.closer else {
                    stack.append(container)
                    throw unexpected(expected: container.isObject ? "',' or '}'" : "',' or ']'")
                }
                position += 1
                completed = container.value
            }
            skipWhitespace()
            if position < bytes.count {
                throw unexpected(expected: "end of file after the JSON document")
            }
            return completed
        }
    }

    /// Reads `,` and what must follow it in the innermost container (a key and `:` in objects).
    private mutating func continueAfterComma() throws(JSONProblem) {
        let commaLocation = location(at: position)
        position += 1
        skipWhitespace()
        let container = stack[stack.count - 1]
        if position < bytes.count, bytes[position] == container.closer {
            throw problem("trailing comma is not allowed before '\(Character(UnicodeScalar(container.closer)))'",
                          at: commaLocation)
        }
        if container.isObject {
            try readKeyAndColon()
        }
    }

    /// Moves past a comma at the position when only whitespace separates it from `closer`; any other comma
    /// is left to the strict rules.
    private mutating func skipTrailingComma(before closer: UInt8) {
        guard position < bytes.count, bytes[position] == ASCII.comma else { return }
        var next = position + 1
        while next < bytes.count,
              bytes[next] == ASCII.space || bytes[next] == ASCII.tab || bytes[next] == ASCII.lineFeed || bytes[next] == ASCII.carriageReturn {
            next += 1
        }
        guard next < bytes.count, bytes[next] == closer else { return }
        position += 1
        skipWhitespace()
    }

    /// Parses a scalar and returns it, or opens a container and returns nil (its contents come
    /// next); an empty container is returned complete.
    private mutating func beginValue() throws(JSONProblem) -> JSONValue? {
        guard position < bytes.count else { throw unexpected(expected: expectedValueDescription) }
        let start = location(at: position)
        let byte = bytes[position]
        switch byte {
        case ASCII.openBrace, ASCII.openBracket:
            guard stack.count < limits.maximumDepth else {
                throw problem("nesting is deeper than \(limits.maximumDepth) levels", at: start)
            }
            let isObject = byte == ASCII.openBrace
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == (isObject ? ASCII.closeBrace : ASCII.closeBracket) {
                position += 1
                return JSONValue(isObject ? .object([]) : .array([]), at: start)
            }
            stack.append(OpenContainer(isObject: isObject, start: start, tokenInParent: stack.last?.childToken))
            if isObject {
                if position == bytes.count { throw unexpected(expected: "'}'") }
                try readKeyAndColon()
            }
            return nil
        case ASCII.quote:
            return JSONValue(.string(try readString()), at: start)
        case ASCII.minus, ASCII.zero...ASCII.nine:
            return JSONValue(.number(try readNumber(start: start)), at: start)
        default:
            if let literal = readLiteral() { return JSONValue(literal, at: start) }
            throw unexpected(expected: expectedValueDescription)
        }
    }

    private var expectedValueDescription: String {
        guard let container = stack.last else { return "a JSON value" }
        return container.isObject ? "a value for \"\(container.pendingKey)\"" : "a value"
    }

    /// Reads `"key" :` in the innermost (object) container and checks the key is new.
    private mutating func readKeyAndColon() throws(JSONProblem) {
        guard position < bytes.count, bytes[position] == ASCII.quote else {
            if position < bytes.count, ASCII.isWordByte(bytes[position]) {
                throw problem("object keys must be double-quoted strings, found \(describeToken(at: position))",
                              at: location(at: position))
            }
            throw unexpected(expected: "a double-quoted key")
        }
        let keyLocation = location(at: position)
        let key = try readString()
        skipWhitespace()
        guard position < bytes.count, bytes[position] == ASCII.colon else {
            throw unexpected(expected: "':' after key \"\(key)\"")
        }
        position += 1
        let index = stack.count - 1
        if let first = stack[index].firstLocation(ofKey: key) {
            duplicateKeys.append(problem("duplicate key \"\(key)\" (first defined at \(first))", at: keyLocation))
        }
        stack[index].pendingKey = key
        stack[index].pendingKeyLocation = keyLocation
    }

    // MARK: Positions and problems

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case ASCII.space, ASCII.tab:
                position += 1
            case ASCII.lineFeed:
                position += 1
                startLine()
            case ASCII.carriageReturn:
                position += 1
                if position < bytes.count, bytes[position] == ASCII.lineFeed { position += 1 }
                startLine()
            default:
                return
            }
        }
    }

    private mutating func startLine() {
        line += 1
        lineStart = position
        columnAnchorOffset = position
        columnAnchor = 1
    }

    /// The location of a byte offset on the current line.
    mutating func location(at offset: Int) -> SourceLocation {
        if offset < columnAnchorOffset {
            columnAnchorOffset = lineStart
            columnAnchor = 1
        }
        var column = columnAnchor
        var index = columnAnchorOffset
        while index < offset {
            // Count scalars: every byte except UTF-8 continuation bytes starts one.
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        columnAnchorOffset = offset
        columnAnchor = column
        return SourceLocation(line: line, column: column, offset: offset)
    }

    /// A problem at `location`, whose path is the innermost open container.
    func problem(_ message: String, at location: SourceLocation) -> JSONProblem {
        JSONProblem(file: file, location: location, path: JSONPointer.string(from: stack.compactMap(\.tokenInParent)),
                    message: message)
    }

    /// "expected X, found Y" at the current position, with special wording for end of file and
    /// for the usual JSON5-isms (comments, single quotes).
    mutating func unexpected(expected: String) -> JSONProblem {
        guard position < bytes.count else {
            return problem("unexpected end of file, expected \(expected)", at: location(at: position))
        }
        let here = location(at: position)
        let byte = bytes[position]
        if byte == ASCII.slash, position + 1 < bytes.count,
           bytes[position + 1] == ASCII.slash || bytes[position + 1] == ASCII.asterisk {
            return problem("comments are not allowed in JSON", at: here)
        }
        if byte == ASCII.apostrophe {
            return problem("strings must use double quotes, found '", at: here)
        }
        if ASCII.isWordByte(byte), byte != ASCII.dot, byte != ASCII.plus, byte != ASCII.minus {
            let token = describeToken(at: position)
            if expected == "a JSON value" || expected == "a value" || expected.hasPrefix("a value for") {
                return problem("invalid literal \(token), expected \(expected) "
                    + "(true, false, null, a number, a string, an array or an object)", at: here)
            }
            return problem("expected \(expected), found \(token)", at: here)
        }
        return problem("expected \(expected), found \(describeCharacter(at: position))", at: here)
    }
}
