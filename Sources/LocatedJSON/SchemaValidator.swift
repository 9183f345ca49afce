#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LinearRegex

/// Checks a located value against compiled schema rules and collects every violation.
struct SchemaValidator {
    let targets: [String: SchemaNode]

    /// `$ref` hops allowed without descending into the value: more means the schema loops on itself.
    private static let maximumReferenceHops = 32

    func validate(_ value: JSONValue, against node: SchemaNode, at path: [PathToken], referenceHops: Int = 0) -> [Finding] {
        let rules = node.rules
        if rules.acceptsEverything { return [] }
        if rules.rejectsEverything {
            return [Finding(value, path, "\(Wording.subject(path)) is not allowed here")]
        }
        var findings: [Finding] = []
        if let reference = rules.ref, let target = targets[reference] {
            guard referenceHops < Self.maximumReferenceHops else {
                return [Finding(value, path, "the schema's $ref \"\(reference)\" loops without reaching a value")]
            }
            findings += validate(value, against: target, at: path, referenceHops: referenceHops + 1)
        }
        if let types = rules.types, !types.contains(where: { $0.accepts(value) }) {
            // Other keywords would only add noise about a value of the wrong kind.
            return findings + [Wording.typeMismatch(value, expected: types, at: path)]
        }
        findings += checkEnumAndConst(value, rules, at: path)
        switch value.kind {
        case .number(let number): findings += checkNumber(number, of: value, rules, at: path)
        case .string(let string): findings += checkString(string, of: value, rules, at: path)
        case .array(let elements): findings += checkArray(elements, of: value, rules, at: path)
        case .object(let members): findings += checkObject(members, of: value, rules, at: path)
        case .null, .bool: break
        }
        for branch in rules.allOf {
            findings += validate(value, against: branch, at: path, referenceHops: referenceHops)
        }
        if !rules.anyOf.isEmpty {
            findings += checkAlternatives(value, rules.anyOf, exactlyOne: false, at: path, referenceHops: referenceHops)
        }
        if !rules.oneOf.isEmpty {
            findings += checkAlternatives(value, rules.oneOf, exactlyOne: true, at: path, referenceHops: referenceHops)
        }
        return findings
    }

    private func checkEnumAndConst(_ value: JSONValue, _ rules: SchemaRules, at path: [PathToken]) -> [Finding] {
        var findings: [Finding] = []
        if let allowed = rules.enumValues, !allowed.contains(where: { $0.sameJSON(as: value) }) {
            findings.append(Finding(value, path, "\(Wording.subject(path)) must be one of: "
                + "\(allowed.map(Wording.render).joined(separator: ", ")), found \(Wording.render(value))"))
        }
        if let constant = rules.constValue, !constant.sameJSON(as: value) {
            findings.append(Finding(value, path,
                "\(Wording.subject(path)) must be \(Wording.render(constant)), found \(Wording.render(value))"))
        }
        return findings
    }

    private func checkNumber(_ number: JSONNumber, of value: JSONValue, _ rules: SchemaRules, at path: [PathToken]) -> [Finding] {
        let bounds: [(limit: Double?, holds: (Double, Double) -> Bool, wording: String)] = [
            (rules.minimum, { $0 >= $1 }, "at least"),
            (rules.maximum, { $0 <= $1 }, "at most"),
            (rules.exclusiveMinimum, { $0 > $1 }, "greater than"),
            (rules.exclusiveMaximum, { $0 < $1 }, "less than"),
        ]
        return bounds.compactMap { bound in
            guard let limit = bound.limit, !bound.holds(number.double, limit) else { return nil }
            let requirement = "must be \(bound.wording) \(Wording.number(limit)), found \(number.literal)"
            return Finding(value, path, "\(Wording.subject(path)) \(requirement)")
        }
    }

    /// minLength/maxLength, minItems/maxItems, minProperties/maxProperties: `requirement` words
    /// the bound ("at least", 3) as "must have at least 3 items".
    private func checkSize(_ size: Int, minimum: Int?, maximum: Int?, of value: JSONValue, at path: [PathToken],
                           requirement: (_ bound: String, _ limit: Int) -> String) -> [Finding] {
        var findings: [Finding] = []
        if let minimum, size < minimum {
            findings.append(Finding(value, path, "\(Wording.subject(path)) \(requirement("at least", minimum)), found \(size)"))
        }
        if let maximum, size > maximum {
            findings.append(Finding(value, path, "\(Wording.subject(path)) \(requirement("at most", maximum)), found \(size)"))
        }
        return findings
    }

    private func checkString(_ string: String, of value: JSONValue, _ rules: SchemaRules, at path: [PathToken]) -> [Finding] {
        // JSON Schema measures strings in code points.
        var findings = checkSize(string.unicodeScalars.count, minimum: rules.minLength, maximum: rules.maxLength,
                                 of: value, at: path) { "must be \($0) \(Wording.count($1, "character")) long" }
        // Worded only for a finding: a config of 100,000 users has half a million valid strings.
        var subject: String { Wording.subject(path) }
        if let pattern = rules.pattern,
           !pattern.regex.matches(string) {
            findings.append(Finding(value, path, "\(subject) must match the pattern \(pattern.source), found \(Wording.render(value))"))
        }
        if let format = rules.format, !format.accepts(string) {
            findings.append(Finding(value, path, "\(subject) must be \(format.expectation), found \(Wording.render(value))"))
        }
        return findings
    }

    private func checkArray(_ elements: [JSONValue], of value: JSONValue, _ rules: SchemaRules, at path: [PathToken]) -> [Finding] {
        var findings = checkSize(elements.count, minimum: rules.minItems, maximum: rules.maxItems,
                                 of: value, at: path) { "must have \($0) \(Wording.count($1, "item"))" }
        if rules.uniqueItems {
            var firstIndex: [String: Int] = [:]
            for (index, element) in elements.enumerated() {
                let key = Wording.canonical(element)
                guard let first = firstIndex[key] else {
                    firstIndex[key] = index
                    continue
                }
                findings.append(Finding(element, path + [.index(index)], "\(Wording.subject(path)) must not contain duplicates: "
                    + "item [\(index)] repeats item [\(first)] (\(Wording.render(element)))"))
            }
        }
        if let items = rules.items {
            for (index, element) in elements.enumerated() {
                findings += validate(element, against: items, at: path + [.index(index)])
            }
        }
        return findings
    }

    private func checkObject(_ members: [JSONMember], of value: JSONValue, _ rules: SchemaRules, at path: [PathToken]) -> [Finding] {
        var findings = rules.required.filter { name in !members.contains { $0.key == name } }.map { name in
            Finding(value, path, "missing required field \"\(name)\"")
        }
        findings += checkSize(members.count, minimum: rules.minProperties, maximum: rules.maxProperties,
                              of: value, at: path) { "must have \($0) \(Wording.count($1, "field"))" }
        for member in members {
            let memberPath = path + [.key(member.key)]
            if let property = rules.properties[member.key] {
                findings += validate(member.value, against: property, at: memberPath)
            } else if let additional = rules.additionalProperties {
                guard additional.rules.rejectsEverything else {
                    findings += validate(member.value, against: additional, at: memberPath)
                    continue
                }
                let message = Wording.unknownField(member.key, expected: rules.properties.keys)
                findings.append(Finding(at: member.keyLocation, memberPath, message))
            }
        }
        return findings
    }
}

/// A step in the path from the document root to a value.
enum PathToken: Sendable, Equatable {
    case key(String)
    case index(Int)

    var pointerToken: String {
        switch self {
        case .key(let key): return key
        case .index(let index): return String(index)
        }
    }
}

/// A violation found by the validator, before it is tied to a file.
struct Finding {
    var location: SourceLocation
    var path: [PathToken]
    var message: String

    init(at location: SourceLocation, _ path: [PathToken], _ message: String) {
        self.location = location
        self.path = path
        self.message = message
    }

    init(_ value: JSONValue, _ path: [PathToken], _ message: String) {
        self.init(at: value.location, path, message)
    }

    func problem(in file: String) -> JSONProblem {
        JSONProblem(file: file, location: location, path: JSONPointer.string(from: path.map(\.pointerToken)), message: message)
    }
}
