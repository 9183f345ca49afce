import Foundation
import LocatedJSON

/// JSON in and out of the public API. That API keeps Foundation's values (`[String: Any]`, as
/// JSONSerialization made them) so the tests users wrote against it keep compiling; the JSON itself is
/// read and written by LocatedJSON, with JSONSerialization's answers where the two could differ.
package enum FoundationJSON {
    /// A JSON object as a dictionary; nil when the bytes are not one. Read leniently: a repeated member
    /// keeps its last value, as it did with JSONSerialization.
    package static func dictionary(from bytes: some Collection<UInt8>) -> [String: Any]? {
        LocatedJSON.object(lenientBody: bytes).flatMap { foundationValue($0) as? [String: Any] }
    }

    /// A `json:` request body, keys sorted so a request reads the same every time.
    package static func bytes(of dictionary: [String: any Sendable]) throws -> [UInt8] {
        try jsonValue(dictionary).sortedKeysBytes
    }

    /// What JSONSerialization made of the same JSON: numbers and booleans as NSNumber (so `as? Int`,
    /// `as? Double` and `as? Bool` answer as they do for JSONSerialization's values), strings, arrays,
    /// dictionaries and NSNull.
    private static func foundationValue(_ value: JSONValue) -> Any {
        switch value.kind {
        case .null: return NSNull()
        case .bool(let flag): return NSNumber(value: flag)
        case .number(let number):
            if let integer = number.int64 { return NSNumber(value: integer) }
            return NSNumber(value: number.double)
        case .string(let text): return text
        case .array(let elements): return elements.map(foundationValue)
        case .object(let members):
            return Dictionary(members.map { ($0.key, foundationValue($0.value)) }, uniquingKeysWith: { _, last in last })
        }
    }

    /// The values a test puts in a `json:` body: strings, Swift numbers and booleans, NSNumber, NSNull,
    /// arrays and dictionaries of them. The exact-type checks keep a Swift `Bool` from reading as a number
    /// and an NSNumber from reading as a Swift type it bridges to.
    private static func jsonValue(_ value: Any) throws -> JSONValue {
        switch value {
        case let text as String:
            return .string(text)
        case let flag as Bool where type(of: value) == Bool.self:
            return .bool(flag)
        case let number as any BinaryInteger where type(of: value) is any BinaryInteger.Type:
            return integer(number)
        case let number as Double where type(of: value) == Double.self:
            return try finite(number)
        case let number as Float where type(of: value) == Float.self:
            return try finite(Double(number))
        case is NSNull:
            return .null
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            // JSON booleans are NSNumbers of type "c" (char).
            case "c": return .bool(number.boolValue)
            case "f", "d": return try finite(number.doubleValue)
            // Unsigned: the upper half of UInt64 is out of int64Value's range.
            case "C", "S", "I", "L", "Q": return integer(number.uint64Value)
            default: return integer(number.int64Value)
            }
        case let elements as [Any]:
            return .array(try elements.map(jsonValue))
        case let members as [String: Any]:
            let converted: [(String, JSONValue)] = try members.map { member in (member.key, try jsonValue(member.value)) }
            return .object(converted)
        default:
            throw FakeEntraControlError("a json: body cannot hold \(type(of: value)) (strings, numbers, booleans, NSNull, arrays and dictionaries can)")
        }
    }

    /// An integer written exactly, digit for digit: through a Double, one above 2^53 would be rounded.
    private static func integer(_ number: some BinaryInteger) -> JSONValue {
        if let exact = Int(exactly: number) { return .int(exact) }
        return JSONValue(.number(JSONNumber(literal: String(number), double: Double(number))), at: .startOfFile)
    }

    /// JSON has no NaN or infinity: JSONSerialization refused them, and so does a `json:` body.
    private static func finite(_ number: Double) throws -> JSONValue {
        guard number.isFinite else { throw FakeEntraControlError("a json: body cannot hold \(number) (JSON has no NaN or infinity)") }
        return .double(number)
    }
}
