extension JSONValue {
    /// JSON for people to read, edit and diff (generated scenario files, decoded tokens, bodies on the
    /// console's pages): members in their order, two-space indentation, an array of up to six scalars on one
    /// line when that whole line (its indentation, member name and comma included) fits in 80 characters,
    /// numbers as written. `indent` is the depth the value starts at: its first line is not indented, the
    /// following ones are, and its first line is taken to start after `indent` levels of indentation.
    package func pretty(indent: Int = 0) -> String {
        pretty(indent: indent, room: Self.lineWidth - 2 * indent)
    }

    private static let lineWidth = 80

    /// `room`: the characters left on the line the value starts on, after what precedes it and before
    /// what follows it there.
    private func pretty(indent: Int, room: Int) -> String {
        let pad = String(repeating: "  ", count: indent)
        let inner = String(repeating: "  ", count: indent + 1)
        switch kind {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return number.literal
        case .string(let text): return JSONValue.quoted(text)
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            if elements.count <= 6, elements.allSatisfy(\.isScalar) {
                let line = "[" + elements.map { $0.pretty() }.joined(separator: ", ") + "]"
                if line.count <= room { return line }
            }
            let lines = elements.indices.map { index in
                inner + elements[index].pretty(indent: indent + 1, room: Self.room(after: inner, comma: index < elements.count - 1))
            }
            return "[\n" + lines.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            let lines = members.indices.map { index in
                let lead = inner + JSONValue.quoted(members[index].key) + ": "
                return lead + members[index].value.pretty(indent: indent + 1, room: Self.room(after: lead, comma: index < members.count - 1))
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + pad + "}"
        }
    }

    /// What is left of a line that starts with `lead` and ends with a comma when one follows.
    private static func room(after lead: String, comma: Bool) -> Int {
        lineWidth - lead.count - (comma ? 1 : 0)
    }

    private var isScalar: Bool {
        switch kind {
        case .array, .object: false
        case .null, .bool, .number, .string: true
        }
    }
}
