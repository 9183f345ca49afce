extension JSONValue {
    /// JSON for people to read, edit and diff (generated scenario files, bodies on the console's pages):
    /// members in their order, two-space indentation, an array of up to six scalars on one line when that
    /// line fits in 80 characters, numbers as written. `indent` is the depth the value starts at: its
    /// first line is not indented, the following ones are.
    package func pretty(indent: Int = 0) -> String {
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
                if line.count <= 80 { return line }
            }
            return "[\n" + elements.map { inner + $0.pretty(indent: indent + 1) }.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            return "{\n" + members.map { inner + JSONValue.quoted($0.key) + ": " + $0.value.pretty(indent: indent + 1) }.joined(separator: ",\n")
                + "\n" + pad + "}"
        }
    }

    private var isScalar: Bool {
        switch kind {
        case .array, .object: false
        case .null, .bool, .number, .string: true
        }
    }
}
