import Foundation
import IdentityPlatform
package import LocatedJSON

/// JSON written for people: members in the order given, two-space indentation, short arrays of
/// scalars on one line. Generated scenario files stay readable and diff well.
package indirect enum OrderedJSON: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([OrderedJSON])
    case object([(String, OrderedJSON)])

    package func pretty(indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent)
        let inner = String(repeating: "  ", count: indent + 1)
        switch self {
        case .string(let s): return JSONFragment.quote(s)
        case .int(let i): return String(i)
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let items):
            if items.isEmpty { return "[]" }
            if items.allSatisfy(\.isScalar), items.count <= 6 {
                let line = "[" + items.map { $0.pretty() }.joined(separator: ", ") + "]"
                if line.count <= 80 { return line }
            }
            return "[\n" + items.map { inner + $0.pretty(indent: indent + 1) }.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            return "{\n" + members.map { inner + JSONFragment.quote($0.0) + ": " + $0.1.pretty(indent: indent + 1) }.joined(separator: ",\n") + "\n" + pad + "}"
        }
    }

    var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }

    /// From a parsed document, members in their written order (the console shows bodies as sent).
    package init(_ value: JSONValue) {
        switch value.kind {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = number.int64.map { .int(Int($0)) } ?? .double(number.double)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(OrderedJSON.init))
        case .object(let members): self = .object(members.map { ($0.key, OrderedJSON($0.value)) })
        }
    }

    /// From JSONSerialization's output (objects get their keys sorted, for a stable result).
    init(any value: Any) {
        switch value {
        case let s as String: self = .string(s)
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { self = .bool(n.boolValue) }
            else if n.doubleValue == n.doubleValue.rounded(), abs(n.doubleValue) < 1e15 { self = .int(n.intValue) }
            else { self = .double(n.doubleValue) }
        case let a as [Any]: self = .array(a.map(OrderedJSON.init(any:)))
        case let o as [String: Any]: self = .object(o.keys.sorted().map { ($0, OrderedJSON(any: o[$0]!)) })
        default: self = .string(String(describing: value))
        }
    }
}
