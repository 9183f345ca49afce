/// An ordered JSON tree for bodies whose member order matters to readers of captures and journals,
/// rendered by the one `JSONWriter` straight into bytes.
package enum JSONFragment: Sendable {
    case string(String)
    case raw(String)
    case object([(String, JSONFragment)])
    case strings([String])

    package var utf8: [UInt8] { bytes }

    package var bytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    package func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let s): writer.string(s)
        case .raw(let r): writer.raw(r)
        case .object(let members): Self.writeObject(members, to: &writer)
        case .strings(let values):
            writer.beginArray()
            for value in values { writer.string(value) }
            writer.endArray()
        }
    }

    package static func quote(_ s: String) -> String { JSONValue.quoted(s) }

    /// Members read in place by index: iterating the pairs copied (retained and released) each name and value.
    package static func writeObject(_ members: [(String, JSONFragment)], to writer: inout JSONWriter) {
        writer.beginObject()
        for index in members.indices {
            writer.key(members[index].0)
            members[index].1.write(to: &writer)
        }
        writer.endObject()
    }
}
