/// JSON built in code (answers, views, request bodies) and read from bodies that are not files: the
/// same `JSONValue` the parser makes, so there is one in-memory JSON type, written by `JSONWriter`.
/// Values built here sit at `SourceLocation.startOfFile`; only parsed values have a meaningful location.
extension JSONValue {
    package static let null = JSONValue(.null, at: .startOfFile)

    package static func string(_ text: String) -> JSONValue { JSONValue(.string(text), at: .startOfFile) }

    /// `nil` becomes `null`, as Graph and the journal write unset properties.
    package static func string(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    package static func bool(_ flag: Bool) -> JSONValue { JSONValue(.bool(flag), at: .startOfFile) }

    package static func int(_ number: Int) -> JSONValue {
        JSONValue(.number(JSONNumber(literal: String(number), double: Double(number))), at: .startOfFile)
    }

    /// A finite number, written without a fraction when it is whole (`3`, not `3.0`); `null` otherwise,
    /// as JSON has no NaN or infinity.
    package static func double(_ number: Double) -> JSONValue {
        guard number.isFinite else { return .null }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return .int(Int(number)) }
        return JSONValue(.number(JSONNumber(literal: "\(number)", double: number)), at: .startOfFile)
    }

    /// A number written with exactly `fractionDigits` (0...9) decimals (`12.500`), as durations are
    /// shown; `null` when it is not finite or too large to write that way.
    package static func decimal(_ number: Double, fractionDigits: Int) -> JSONValue {
        let digits = min(max(fractionDigits, 0), 9)
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = (number.magnitude * Double(scale)).rounded()
        guard number.isFinite, scaled < 9_007_199_254_740_992 else { return .null }
        let units = Int(scaled)
        var literal = (number < 0 && units != 0 ? "-" : "") + String(units / scale)
        if digits > 0 {
            let fraction = String(units % scale)
            literal += "." + String(repeating: "0", count: digits - fraction.count) + fraction
        }
        return JSONValue(.number(JSONNumber(literal: literal, double: number)), at: .startOfFile)
    }

    package static func array(_ elements: [JSONValue]) -> JSONValue { JSONValue(.array(elements), at: .startOfFile) }

    package static func strings(_ texts: [String]) -> JSONValue { .array(texts.map(JSONValue.string)) }

    /// An object with members in the order given.
    package static func object(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(members.map { ($0.key, $0.value) })
    }

    /// An object with members in the order given.
    package static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        JSONValue(.object(members.map { JSONMember(key: $0.0, keyLocation: .startOfFile, value: $0.1) }), at: .startOfFile)
    }

    /// An object with members in the order given, leaving out those whose value is nil: for optional
    /// members that are absent rather than `null`.
    package static func object(omittingNil members: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        .object(members.compactMap { member in member.value.map { (member.key, $0) } })
    }

    /// The same value with every object's members sorted by key, for answers compared as text.
    package var sortingKeys: JSONValue {
        switch kind {
        case .array(let elements): return JSONValue(.array(elements.map(\.sortingKeys)), at: location)
        case .object(let members):
            let sorted = members.sorted { $0.key < $1.key }
                .map { JSONMember(key: $0.key, keyLocation: $0.keyLocation, value: $0.value.sortingKeys) }
            return JSONValue(.object(sorted), at: location)
        default: return self
        }
    }

    /// The compact text with every object's members sorted by key: documents and request bodies that
    /// read the same whatever order they were built in.
    package var sortedKeysBytes: [UInt8] { sortingKeys.bytes }

    /// The object with member `key` set to `value` (replacing it in place, or appended); nil removes it.
    /// Other kinds are returned unchanged.
    package func setting(_ key: String, to value: JSONValue?) -> JSONValue {
        guard var members else { return self }
        if let index = members.firstIndex(where: { $0.key == key }) {
            if let value { members[index].value = value } else { members.remove(at: index) }
        } else if let value {
            members.append(JSONMember(key: key, keyLocation: .startOfFile, value: value))
        }
        return JSONValue(.object(members), at: location)
    }

    // MARK: Reading

    /// A number that is an integer fitting in `Int` (`3`, also `3.0`).
    package var int: Int? {
        guard let number else { return nil }
        if let exact = number.int64 { return Int(exactly: exact) }
        return number.isInteger ? Int(exactly: number.double) : nil
    }

    package var double: Double? { number?.double }

    /// An array whose elements are all strings.
    package var strings: [String]? {
        guard let array else { return nil }
        let texts = array.compactMap(\.string)
        return texts.count == array.count ? texts : nil
    }

    /// An array whose elements are all integers (`int`).
    package var ints: [Int]? {
        guard let array else { return nil }
        let numbers = array.compactMap(\.int)
        return numbers.count == array.count ? numbers : nil
    }

    /// The members of an object whose values are strings, others skipped.
    package var stringMembers: [(key: String, value: String)] {
        (members ?? []).compactMap { member in member.value.string.map { (member.key, $0) } }
    }

    /// A scalar as text (`"x"` → `x`, `3` → `3`, `true` → `true`), arrays joined with commas; nil for
    /// null and objects.
    package var scalarText: String? {
        switch kind {
        case .string(let text): text
        case .number(let number): number.literal
        case .bool(let flag): flag ? "true" : "false"
        case .array(let elements): elements.compactMap(\.scalarText).joined(separator: ",")
        case .null, .object: nil
        }
    }
}

extension LocatedJSON {
    /// A body or a token part that is not a file: parsed strictly (duplicate keys refused), nil when it is
    /// not JSON. `source` names it in problems.
    package static func parse(body: some Collection<UInt8>, source: String = "body") -> JSONValue? {
        try? parse(Array(body), file: source)
    }

    /// `parse(body:)` of an object; nil for any other JSON or for text that is not JSON.
    package static func object(body: some Collection<UInt8>, source: String = "body") -> JSONValue? {
        guard let value = parse(body: body, source: source), value.members != nil else { return nil }
        return value
    }
}
