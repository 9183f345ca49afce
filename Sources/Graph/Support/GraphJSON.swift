import Foundation
import IdentityPlatform

/// A JSON value whose object members keep their order: Graph writes `@odata.context` first and the
/// properties in a fixed order, and clients' captures and our tests compare bodies as text.
public indirect enum GraphJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([GraphJSON])
    case object([Member])

    public struct Member: Sendable, Equatable {
        public var name: String
        public var value: GraphJSON
        public init(_ name: String, _ value: GraphJSON) {
            self.name = name
            self.value = value
        }
    }

    /// `nil` becomes `null`, as Graph writes unset properties.
    public static func string(_ value: String?) -> GraphJSON { value.map { .string($0) } ?? .null }

    public static func strings(_ values: [String]) -> GraphJSON { .array(values.map { .string($0) }) }

    public var text: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .string(let s): JSONFragment.quote(s)
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { JSONFragment.quote($0.name) + ":" + $0.value.text }.joined(separator: ",") + "}"
        }
    }

    public var bytes: [UInt8] { Array(text.utf8) }

    /// The member named `name` of an object (exact spelling), else nil.
    public subscript(name: String) -> GraphJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }
}
