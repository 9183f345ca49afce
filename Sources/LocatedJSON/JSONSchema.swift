#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LinearRegex

/// A JSON Schema (the draft 2020-12 subset FakeEntra publishes for editors) compiled for validation.
///
/// The schema the server enforces is the very document it publishes, so editors and the server
/// never disagree. Keywords outside the supported subset are rejected when the schema is loaded,
/// rather than silently ignored: a published rule is always an enforced rule.
///
/// Supported: `type` (string or array, with "integer"), `properties`, `required`,
/// `additionalProperties` (boolean or schema), `items`, `enum`, `const`, `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `maxLength`, `pattern`,
/// `format` ("uuid", "uri", "email", "date-time"), `minItems`, `maxItems`, `uniqueItems`,
/// `minProperties`, `maxProperties`, `allOf`, `anyOf`, `oneOf`, `$ref` (local `#...` pointers), `$defs`.
/// Annotations (`$schema`, `$id`, `$comment`, `title`, `description`, `default`, `examples`, ...)
/// and `x-` extensions are ignored.
package struct JSONSchema: Sendable {
    let root: SchemaNode
    /// Every subschema by its `$ref` form ("#/$defs/tenant"), for resolving references.
    let targets: [String: SchemaNode]

    /// Compiles a schema document held in memory; `file` names it in problems.
    package init(json: [UInt8], file: String = "schema.json") throws(JSONProblems) {
        try self.init(document: LocatedJSON.parse(json, file: file), file: file)
    }

    /// Loads and compiles a schema file.
    package init(file path: String) throws(JSONProblems) {
        try self.init(json: LocatedJSON.readFile(path), file: path)
    }

    /// Compiles an already parsed schema document.
    package init(document: JSONValue, file: String) throws(JSONProblems) {
        var compiler = SchemaCompiler(document: document, file: file)
        let root = compiler.compileDocument()
        guard compiler.problems.isEmpty else { throw JSONProblems(compiler.problems.sortedByLocation()) }
        self.root = root
        self.targets = compiler.targets
    }

    /// Every way `value` breaks the schema, in document order (empty when it conforms).
    package func validate(_ value: JSONValue, file: String) -> [JSONProblem] {
        let validator = SchemaValidator(targets: targets)
        return validator.validate(value, against: root, at: [])
            .map { $0.problem(in: file) }
            .sortedByLocation()
    }
}

/// One compiled subschema. A class so recursive schemas (`$ref` cycles) share nodes.
final class SchemaNode: Sendable {
    let rules: SchemaRules
    init(_ rules: SchemaRules) { self.rules = rules }
}

/// The keywords of one subschema, as typed values; nil or empty means "not constrained".
struct SchemaRules: Sendable {
    /// `true` / `false` schemas.
    var acceptsEverything = false
    var rejectsEverything = false
    var types: [JSONType]?
    var properties: [String: SchemaNode] = [:]
    var required: [String] = []
    /// nil: any extra member is allowed (the JSON Schema default).
    var additionalProperties: SchemaNode?
    var items: SchemaNode?
    var enumValues: [JSONValue]?
    var constValue: JSONValue?
    var minimum: Double?
    var maximum: Double?
    var exclusiveMinimum: Double?
    var exclusiveMaximum: Double?
    var minLength: Int?
    var maxLength: Int?
    var pattern: (source: String, regex: LinearRegex)?
    var format: StringFormat?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false
    var minProperties: Int?
    var maxProperties: Int?
    var allOf: [SchemaNode] = []
    var anyOf: [SchemaNode] = []
    var oneOf: [SchemaNode] = []
    var ref: String?
}

/// JSON Schema's type names.
enum JSONType: String, Sendable, CaseIterable {
    case null, boolean, object, array, number, string, integer

    /// The type of a value; numbers are `.number` (see `accepts` for "integer").
    init(of value: JSONValue) {
        switch value.kind {
        case .null: self = .null
        case .bool: self = .boolean
        case .number: self = .number
        case .string: self = .string
        case .array: self = .array
        case .object: self = .object
        }
    }

    func accepts(_ value: JSONValue) -> Bool {
        switch (self, value.kind) {
        case (.integer, .number(let number)): return number.isInteger
        default: return self == JSONType(of: value)
        }
    }

    /// "a string", "an object", "null".
    var withArticle: String {
        switch self {
        case .null: return "null"
        case .integer, .object, .array: return "an \(rawValue)"
        default: return "a \(rawValue)"
        }
    }
}

extension Array where Element == JSONProblem {
    /// Document order; problems at the same place keep the order they were found in.
    func sortedByLocation() -> [JSONProblem] {
        enumerated().sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }.map(\.element)
    }
}
