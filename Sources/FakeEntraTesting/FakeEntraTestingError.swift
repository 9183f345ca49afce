/// Why a FakeEntraTesting call failed; the description says what to change.
public struct FakeEntraTestingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }

    static func unexpected(_ what: String, _ response: FakeEntraResponse) -> FakeEntraTestingError {
        FakeEntraTestingError("\(what): HTTP \(response.status): \(response.text.prefix(500))")
    }
}
