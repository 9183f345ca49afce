/// Why a control API call (or a FakeEntraTesting call) failed; the description says what to change.
public struct FakeEntraControlError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    package init(_ description: String) { self.description = description }

    /// What the server answered instead of what the call expected.
    package static func unexpected(_ what: String, status: Int, body: [UInt8]) -> FakeEntraControlError {
        FakeEntraControlError("\(what): HTTP \(status): \(String(decoding: body, as: UTF8.self).prefix(500))")
    }
}
