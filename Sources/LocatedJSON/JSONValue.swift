/// A parsed JSON value that remembers where each of its parts was written.
package struct JSONValue: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case null
        case bool(Bool)
        case number(JSONNumber)
        case string(String)
        case array([JSONValue])
        /// Members in source order (duplicate keys are rejected by the parser).
        case object([JSONMember])
    }

    package var kind: Kind
    /// Where the value starts: its first character (`{`, `[`, `"`, digit, `-`, `t`, `f`, `n`).
    package var location: SourceLocation

    package init(_ kind: Kind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }
}

/// A JSON number: the literal exactly as written, and its value as a Double.
///
/// Keeping the literal means integers beyond 2^53 stay exact (`int64`) and messages quote the
/// number the way the user wrote it.
package struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    package var literal: String
    package var double: Double

    package init(literal: String, double: Double) {
        self.literal = literal
        self.double = double
    }

    /// True when the literal has no fraction and no exponent ("12", not "12.0" or "1e3").
    package var isIntegerLiteral: Bool { !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    /// The exact integer value, when the literal is an integer that fits in Int64.
    package var int64: Int64? { isIntegerLiteral ? Int64(literal) : nil }

    /// True when the value is mathematically an integer (JSON Schema's "integer": 1.0 counts).
    package var isInteger: Bool { double.isFinite && double.rounded(.towardZero) == double }

    package var description: String { literal }
}

/// One `"key": value` pair of an object, with the location of the key itself.
package struct JSONMember: Sendable, Equatable {
    package var key: String
    package var keyLocation: SourceLocation
    package var value: JSONValue

    package init(key: String, keyLocation: SourceLocation, value: JSONValue) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
    }
}

extension JSONValue {
    package var isNull: Bool { kind == .null }

    package var bool: Bool? {
        if case .bool(let value) = kind { return value }
        return nil
    }

    package var number: JSONNumber? {
        if case .number(let value) = kind { return value }
        return nil
    }

    package var string: String? {
        if case .string(let value) = kind { return value }
        return nil
    }

    package var array: [JSONValue]? {
        if case .array(let value) = kind { return value }
        return nil
    }

    package var members: [JSONMember]? {
        if case .object(let value) = kind { return value }
        return nil
    }

    /// The member named `key` of an object (nil for other kinds or a missing key).
    package func member(_ key: String) -> JSONMember? {
        members?.first(where: { $0.key == key })
    }

    /// The value of member `key` of an object.
    package subscript(key: String) -> JSONValue? { member(key)?.value }

    /// Element `index` of an array.
    package subscript(index: Int) -> JSONValue? {
        guard let elements = array, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// JSON equality as JSON Schema defines it: locations and member order are ignored, numbers
    /// compare by value (1 equals 1.0).
    package func sameJSON(as other: JSONValue) -> Bool {
        switch (kind, other.kind) {
        case (.null, .null):
            return true
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.number(let left), .number(let right)):
            if let leftInt = left.int64, let rightInt = right.int64 { return leftInt == rightInt }
            return left.double == right.double
        case (.string(let left), .string(let right)):
            return left == right
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.sameJSON(as: $1) }
        case (.object(let left), .object(let right)):
            guard left.count == right.count else { return false }
            return left.allSatisfy { member in
                right.contains { $0.key == member.key && $0.value.sameJSON(as: member.value) }
            }
        default:
            return false
        }
    }
}
