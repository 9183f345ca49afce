#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LinearRegex

/// Turns a schema document into `SchemaNode`s, reporting every malformed or unsupported keyword
/// with its location in the schema file.
struct SchemaCompiler {
    let document: JSONValue
    let file: String
    private(set) var problems: [JSONProblem] = []
    /// Every compiled subschema by its `$ref` form ("#", "#/$defs/user", ...).
    private(set) var targets: [String: SchemaNode] = [:]
    private var pendingReferences: [(reference: String, location: SourceLocation, tokens: [String])] = []

    /// Keywords that carry no validation meaning and are accepted as documentation.
    private static let annotations: Set<String> = [
        "$schema", "$id", "$comment", "title", "description", "markdownDescription", "default", "examples",
        "deprecated", "readOnly", "writeOnly", "enumDescriptions", "markdownEnumDescriptions",
    ]

    init(document: JSONValue, file: String) {
        self.document = document
        self.file = file
    }

    mutating func compileDocument() -> SchemaNode {
        let root = compile(document, at: [])
        // References are resolved after the tree so cycles and forward references just work.
        while let pending = pendingReferences.popLast() {
            guard targets[pending.reference] == nil else { continue }
            guard let tokens = JSONPointer.tokens(from: String(pending.reference.dropFirst())),
                  let target = document.value(atPointer: JSONPointer.string(from: tokens))
            else {
                report("$ref \"\(pending.reference)\" does not point into this schema", at: pending.location,
                       tokens: pending.tokens)
                continue
            }
            _ = compile(target, at: tokens)
        }
        return root
    }

    private mutating func compile(_ schema: JSONValue, at tokens: [String]) -> SchemaNode {
        var rules = SchemaRules()
        switch schema.kind {
        case .bool(let accepts):
            rules.acceptsEverything = accepts
            rules.rejectsEverything = !accepts
        case .object(let members):
            for member in members {
                compileKeyword(member, into: &rules, at: tokens + [member.key])
            }
        default:
            report("a schema must be an object or a boolean", at: schema.location, tokens: tokens)
        }
        let node = SchemaNode(rules)
        targets["#" + JSONPointer.string(from: tokens)] = node
        return node
    }

    private mutating func compileKeyword(_ member: JSONMember, into rules: inout SchemaRules, at tokens: [String]) {
        let value = member.value
        switch member.key {
        case "type":
            rules.types = typeNames(value, at: tokens)
        case "properties":
            for property in objectMembers(value, at: tokens) {
                rules.properties[property.key] = compile(property.value, at: tokens + [property.key])
            }
        case "required":
            rules.required = strings(value, at: tokens)
        case "additionalProperties":
            rules.additionalProperties = compile(value, at: tokens)
        case "items":
            rules.items = compile(value, at: tokens)
        case "enum":
            rules.enumValues = value.array
            if value.array?.isEmpty ?? true { report("\"enum\" must be a non-empty array", at: value.location, tokens: tokens) }
        case "const":
            rules.constValue = value
        case "minimum": rules.minimum = number(value, at: tokens)
        case "maximum": rules.maximum = number(value, at: tokens)
        case "exclusiveMinimum": rules.exclusiveMinimum = number(value, at: tokens)
        case "exclusiveMaximum": rules.exclusiveMaximum = number(value, at: tokens)
        case "minLength": rules.minLength = count(value, at: tokens)
        case "maxLength": rules.maxLength = count(value, at: tokens)
        case "minItems": rules.minItems = count(value, at: tokens)
        case "maxItems": rules.maxItems = count(value, at: tokens)
        case "minProperties": rules.minProperties = count(value, at: tokens)
        case "maxProperties": rules.maxProperties = count(value, at: tokens)
        case "uniqueItems":
            guard let unique = value.bool else { return report("\"uniqueItems\" must be a boolean", at: value.location, tokens: tokens) }
            rules.uniqueItems = unique
        case "pattern":
            guard let source = value.string else { return report("\"pattern\" must be a string", at: value.location, tokens: tokens) }
            do {
                rules.pattern = (source, try LinearRegex(source))
            } catch {
                report("\"pattern\" is not a valid regular expression: \(source)", at: value.location, tokens: tokens)
            }
        case "format":
            guard let name = value.string, let format = StringFormat(rawValue: name) else {
                let supported = StringFormat.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                return report("\"format\" must be one of: \(supported)", at: value.location, tokens: tokens)
            }
            rules.format = format
        case "allOf": rules.allOf = subschemas(value, at: tokens)
        case "anyOf": rules.anyOf = subschemas(value, at: tokens)
        case "oneOf": rules.oneOf = subschemas(value, at: tokens)
        case "$ref":
            guard let reference = value.string, reference.hasPrefix("#") else {
                return report("\"$ref\" must be a local reference such as \"#/$defs/name\"", at: value.location, tokens: tokens)
            }
            rules.ref = reference
            pendingReferences.append((reference, value.location, tokens))
        case "$defs":
            for definition in objectMembers(value, at: tokens) {
                _ = compile(definition.value, at: tokens + [definition.key])
            }
        default:
            if Self.annotations.contains(member.key) || member.key.hasPrefix("x-") { return }
            report("unsupported schema keyword \"\(member.key)\"", at: member.keyLocation, tokens: tokens)
        }
    }

    // MARK: Keyword values

    private mutating func typeNames(_ value: JSONValue, at tokens: [String]) -> [JSONType]? {
        let names = value.string.map { [$0] } ?? value.array?.compactMap(\.string)
        let types = names?.compactMap(JSONType.init(rawValue:))
        guard let names, let types, types.count == names.count, !types.isEmpty,
              names.count == (value.array?.count ?? 1) else {
            let known = JSONType.allCases.map(\.rawValue).joined(separator: ", ")
            report("\"type\" must be a type name or an array of them (\(known))", at: value.location, tokens: tokens)
            return nil
        }
        return types
    }

    private mutating func objectMembers(_ value: JSONValue, at tokens: [String]) -> [JSONMember] {
        guard let members = value.members else {
            report("\"\(tokens.last ?? "")\" must be an object", at: value.location, tokens: tokens)
            return []
        }
        return members
    }

    private mutating func strings(_ value: JSONValue, at tokens: [String]) -> [String] {
        guard let strings = value.array?.compactMap(\.string), strings.count == value.array?.count else {
            report("\"\(tokens.last ?? "")\" must be an array of strings", at: value.location, tokens: tokens)
            return []
        }
        return strings
    }

    private mutating func number(_ value: JSONValue, at tokens: [String]) -> Double? {
        guard let number = value.number else {
            report("\"\(tokens.last ?? "")\" must be a number", at: value.location, tokens: tokens)
            return nil
        }
        return number.double
    }

    private mutating func count(_ value: JSONValue, at tokens: [String]) -> Int? {
        guard let number = value.number, number.isInteger, number.double >= 0, let count = Int(exactly: number.double) else {
            report("\"\(tokens.last ?? "")\" must be a non-negative integer", at: value.location, tokens: tokens)
            return nil
        }
        return count
    }

    private mutating func subschemas(_ value: JSONValue, at tokens: [String]) -> [SchemaNode] {
        guard let elements = value.array, !elements.isEmpty else {
            report("\"\(tokens.last ?? "")\" must be a non-empty array of schemas", at: value.location, tokens: tokens)
            return []
        }
        return elements.enumerated().map { compile($0.element, at: tokens + [String($0.offset)]) }
    }

    private mutating func report(_ message: String, at location: SourceLocation, tokens: [String]) {
        problems.append(JSONProblem(file: file, location: location, path: JSONPointer.string(from: tokens), message: message))
    }
}
