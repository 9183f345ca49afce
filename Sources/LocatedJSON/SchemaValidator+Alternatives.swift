/// `oneOf` / `anyOf`: when no alternative fits, report the errors of the alternative the author
/// most plausibly meant, rather than every branch's complaints.
///
/// The intended branch is, in order: the one whose discriminator (`const`/`enum` property, such
/// as `"kind": {"const": "user"}`) matches the value; the only one accepting the value's type;
/// the one with the fewest errors. When even that is a tie, one summary problem lists each
/// candidate's first complaint.
extension SchemaValidator {
    func checkAlternatives(_ value: JSONValue, _ branches: [SchemaNode], exactlyOne: Bool, at path: [PathToken],
                           referenceHops: Int) -> [Finding] {
        let results = branches.map { validate(value, against: $0, at: path, referenceHops: referenceHops) }
        let passing = results.indices.filter { results[$0].isEmpty }
        if exactlyOne, passing.count > 1 {
            let numbers = passing.dropLast().map { String($0 + 1) }.joined(separator: ", ") + " and \(passing[passing.count - 1] + 1)"
            return [Finding(value, path, "\(Wording.subject(path)) matches alternatives \(numbers) but must match exactly one")]
        }
        if !passing.isEmpty { return [] }

        var candidates = Array(branches.indices)
        if case .object = value.kind {
            let discriminators = branches.map(discriminatorValues)
            if discriminators.contains(where: { !$0.isEmpty }) {
                let matching = candidates.filter { index in
                    !discriminators[index].isEmpty && discriminators[index].allSatisfy { name, allowed in
                        value[name].map { found in allowed.contains { $0.sameJSON(as: found) } } ?? false
                    }
                }
                if matching.count == 1 { return results[matching[0]] }
                if matching.isEmpty, let finding = discriminatorMismatch(value, discriminators, at: path) {
                    return [finding]
                }
                if matching.count > 1 { candidates = matching }
            }
        }
        let typeMatching = candidates.filter { acceptsType(branches[$0], of: value) }
        if typeMatching.isEmpty {
            var unique: [JSONType] = []
            for type in candidates.flatMap({ declaredTypes(branches[$0]) ?? [] }) where !unique.contains(type) {
                unique.append(type)
            }
            return [Wording.typeMismatch(value, expected: unique, at: path)]
        }
        let fewest = typeMatching.map { results[$0].count }.min() ?? 0
        let best = typeMatching.filter { results[$0].count == fewest }
        if best.count == 1 { return results[best[0]] }
        let summary = best.map { "(\($0 + 1)) \(results[$0][0].message)" }.joined(separator: "; ")
        return [Finding(value, path, "\(Wording.subject(path)) does not match any allowed alternative: \(summary)")]
    }

    /// When every branch is told apart by the same property and the value's doesn't fit any, the
    /// problem is that property: missing, or not one of the allowed values.
    private func discriminatorMismatch(_ value: JSONValue, _ discriminators: [[String: [JSONValue]]],
                                       at path: [PathToken]) -> Finding? {
        guard discriminators.allSatisfy({ !$0.isEmpty }) else { return nil }
        let shared = discriminators.dropFirst().reduce(Set(discriminators[0].keys)) { $0.intersection($1.keys) }
        // Prefer a shared property that is present: its value is then the thing to correct.
        guard let name = shared.sorted().first(where: { value[$0] != nil }) ?? shared.sorted().first else { return nil }
        var allowed: [JSONValue] = []
        for candidate in discriminators.flatMap({ $0[name] ?? [] }) where !allowed.contains(where: { $0.sameJSON(as: candidate) }) {
            allowed.append(candidate)
        }
        let list = allowed.map(Wording.render).joined(separator: ", ")
        guard let member = value.member(name) else {
            return Finding(value, path, "missing required field \"\(name)\" (one of: \(list))")
        }
        return Finding(member.value, path + [.key(name)],
                       "\(Wording.subject(path + [.key(name)])) must be one of: \(list), found \(Wording.render(member.value))")
    }

    /// The rules of a branch and of the `$ref` chain behind it.
    private func layers(of node: SchemaNode) -> [SchemaRules] {
        var layers = [node.rules]
        while layers.count < 16, let reference = layers[layers.count - 1].ref, let target = targets[reference] {
            layers.append(target.rules)
        }
        return layers
    }

    /// Properties whose value is pinned by `const` or `enum`, with the values allowed.
    private func discriminatorValues(_ node: SchemaNode) -> [String: [JSONValue]] {
        var result: [String: [JSONValue]] = [:]
        for rules in layers(of: node) {
            for (name, property) in rules.properties {
                for propertyRules in layers(of: property) {
                    if let constant = propertyRules.constValue {
                        result[name] = [constant]
                    } else if let values = propertyRules.enumValues {
                        result[name] = values
                    }
                }
            }
        }
        return result
    }

    private func declaredTypes(_ node: SchemaNode) -> [JSONType]? {
        layers(of: node).compactMap(\.types).first
    }

    private func acceptsType(_ node: SchemaNode, of value: JSONValue) -> Bool {
        layers(of: node).allSatisfy { rules in
            !rules.rejectsEverything && (rules.types?.contains { $0.accepts(value) } ?? true)
        }
    }
}
