/// How problems name values and quote what was found, so every message reads the same way.
enum Wording {
    /// `"isPublicClient"`, `"redirectUris"[2]`, `item [0]`, or `the document`.
    static func subject(_ path: [PathToken]) -> String {
        var indices = ""
        for token in path.reversed() {
            switch token {
            case .index(let index):
                indices = "[\(index)]" + indices
            case .key(let key):
                return "\"\(key)\"" + indices
            }
        }
        return indices.isEmpty ? "the document" : "item \(indices)"
    }

    /// `"isPublicClient" must be a boolean, found string "yes"`.
    static func typeMismatch(_ value: JSONValue, expected types: [JSONType], at path: [PathToken]) -> Finding {
        Finding(value, path, "\(subject(path)) must be \(alternatives(types.map(\.withArticle))), found \(describe(value))")
    }

    /// `unknown field "matchs" (expected one of: action, match, times)`.
    static func unknownField(_ key: String, expected: some Sequence<String>) -> String {
        let names = expected.sorted()
        guard !names.isEmpty else { return "unknown field \"\(key)\" (this object takes no fields)" }
        return "unknown field \"\(key)\" (expected one of: \(names.joined(separator: ", ")))"
    }

    /// "a", "a or b", "a, b or c".
    static func alternatives(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + items[items.count - 1]
    }

    /// The kind and value of what was found: `string "yes"`, `number 5`, `boolean true`, `null`,
    /// `an object`, `an array`.
    static func describe(_ value: JSONValue) -> String {
        switch value.kind {
        case .null: return "null"
        case .bool(let flag): return "boolean \(flag)"
        case .number(let number): return "number \(number.literal)"
        case .string: return "string \(render(value))"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Compact JSON text for a value, shortened when long.
    static func render(_ value: JSONValue) -> String {
        let text = json(value)
        guard text.count > 60 else { return text }
        return String(text.prefix(57)) + "..."
    }

    static func json(_ value: JSONValue) -> String { value.compactText }

    static func quoted(_ string: String) -> String { JSONValue.quoted(string) }

    /// A schema bound as people write it: `1`, not `1.0`.
    static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// "1 item", "3 items".
    static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// A text equal for values JSON Schema considers equal (member order ignored, 1 == 1.0),
    /// so `uniqueItems` is a hash lookup rather than pairwise comparison.
    static func canonical(_ value: JSONValue) -> String {
        switch value.kind {
        case .null: return "n"
        case .bool(let flag): return flag ? "t" : "f"
        case .number(let number):
            if let integer = number.int64 { return "i\(integer)" }
            if number.isInteger, abs(number.double) < 9e15 { return "i\(Int64(number.double))" }
            return "d\(number.double)"
        case .string(let string): return "s" + quoted(string)
        case .array(let elements): return "[" + elements.map(canonical).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.key < $1.key }.map { quoted($0.key) + ":" + canonical($0.value) }
                .joined(separator: ",") + "}"
        }
    }
}
