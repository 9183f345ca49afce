import EntraHTTP
import Foundation

/// An HTTP method of `FakeEntraClient.execute`.
public struct FakeEntraMethod: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var name: String
    public init(_ name: String) { self.name = name.uppercased() }
    public init(stringLiteral value: String) { self.init(value) }
    public var description: String { name }

    public static let get = FakeEntraMethod("GET")
    public static let head = FakeEntraMethod("HEAD")
    public static let post = FakeEntraMethod("POST")
    public static let put = FakeEntraMethod("PUT")
    public static let patch = FakeEntraMethod("PATCH")
    public static let delete = FakeEntraMethod("DELETE")
    public static let options = FakeEntraMethod("OPTIONS")
}

/// What FakeEntra answered: the same value whether it came from the responder (`.router`) or a socket (`.live`).
public struct FakeEntraResponse: Sendable {
    public var status: Int
    /// In the order the server wrote them; names as written.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    init(_ response: HTTPResponse) {
        status = response.status.code
        headers = response.headers.fields.map { (name: $0.name, value: $0.value) }
        body = response.body
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as a JSON object; throws when it is not one.
    public func json() throws -> [String: Any] {
        guard let object = FoundationJSON.dictionary(from: body) else {
            throw FakeEntraTestingError("the body is not a JSON object (HTTP \(status)): \(text.prefix(300))")
        }
        return object
    }
}
