import FoundationGaps
import IdentityPlatform
package import LocatedJSON

/// A JSON value whose object members keep their order: Graph writes `@odata.context` first and the
/// properties in a fixed order, and clients' captures and our tests compare bodies as text.
package indirect enum GraphJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([GraphJSON])
    case object([Member])

    package struct Member: Sendable, Equatable {
        package var name: String
        package var value: GraphJSON
        package init(_ name: String, _ value: GraphJSON) {
            self.name = name
            self.value = value
        }
    }

    /// `nil` becomes `null`, as Graph writes unset properties.
    package static func string(_ value: String?) -> GraphJSON { value.map { .string($0) } ?? .null }

    package static func strings(_ values: [String]) -> GraphJSON { .array(values.map { .string($0) }) }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Rendered by the one `JSONWriter`, straight into bytes.
    package var bytes: [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        write(to: &writer)
        return writer.bytes
    }

    package func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.raw("null")
        case .bool(let b): writer.raw(b ? "true" : "false")
        case .int(let i): writer.int(i)
        case .string(let s): writer.string(s)
        case .array(let items):
            writer.beginArray()
            for item in items { item.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.name)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }

    /// The member named `name` of an object (exact spelling), else nil.
    package subscript(name: String) -> GraphJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }
}
