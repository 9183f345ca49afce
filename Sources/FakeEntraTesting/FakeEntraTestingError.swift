public import FakeEntraControl

/// Why a FakeEntraTesting call failed; the description says what to change. The control API's client
/// fails with the same type.
public typealias FakeEntraTestingError = FakeEntraControlError

extension FakeEntraControlError {
    static func unexpected(_ what: String, _ response: FakeEntraResponse) -> FakeEntraControlError {
        .unexpected(what, status: response.status, body: response.body)
    }
}
