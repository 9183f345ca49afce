/// A parsed JSON value that remembers where each of its parts was written.
public struct JSONValue: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case null
        case bool(Bool)
        case number(JSONNumber)
        case string(String)
        case array([JSONValue])
        /// Members in source order (duplicate keys are rejected by the parser).
        case object([JSONMember])
    }

    public var kind: Kind
    /// Where the value starts: its first character (`{`, `[`, `"`, digit, `-`, `t`, `f`, `n`).
    public var location: SourceLocation

    public init(_ kind: Kind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }
}

/// A JSON number: the literal exactly as written, and its value as a Double.
///
/// Keeping the literal means integers beyond 2^53 stay exact (`int64`) and messages quote the
/// number the way the user wrote it.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    public var literal: String
    public var double: Double

    public init(literal: String, double: Double) {
        self.literal = literal
        self.double = double
    }

    /// True when the literal has no fraction and no exponent ("12", not "12.0" or "1e3").
    public var isIntegerLiteral: Bool { !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    /// The exact integer value, when the literal is an integer that fits in Int64.
    public var int64: Int64? { isIntegerLiteral ? Int64(literal) : nil }

    /// True when the value is mathematically an integer (JSON Schema's "integer": 1.0 counts).
    public var isInteger: Bool { double.isFinite && double.rounded(.towardZero) == double }

    public var description: String { literal }
}

/// One `"key": value` pair of an object, with the location of the key itself.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var keyLocation: SourceLocation
    public var value: JSONValue

    public init(key: String, keyLocation: SourceLocation, value: JSONValue) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
    }
}

extension JSONValue {
    public var isNull: Bool { kind == .null }

    public var bool: Bool? {
        if case .bool(let value) = kind { return value }
        return nil
    }

    public var number: JSONNumber? {
        if case .number(let value) = kind { return value }
        return nil
    }

    public var string: String? {
        if case .string(let value) = kind { return value }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let value) = kind { return value }
        return nil
    }

    public var members: [JSONMember]? {
        if case .object(let value) = kind { return value }
        return nil
    }

    /// The member named `key` of an object (nil for other kinds or a missing key).
    public func member(_ key: String) -> JSONMember? {
        members?.first(where: { $0.key == key })
    }

    /// The value of member `key` of an object.
    public subscript(key: String) -> JSONValue? { member(key)?.value }

    /// Element `index` of an array.
    public subscript(index: Int) -> JSONValue? {
        guard let elements = array, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// JSON equality as JSON Schema defines it: locations and member order are ignored, numbers
    /// compare by value (1 equals 1.0).
    public func sameJSON(as other: JSONValue) -> Bool {
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

extension JSONValue {
    /// The value as compact JSON text, members in their written order.
    public var compactText: String { Wording.json(self) }

    /// `string` as a JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped.
    public static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
