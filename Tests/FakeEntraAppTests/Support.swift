import FakeEntraTesting
import Foundation

/// Runs `body` against a fresh server in `mode`: `.router` on a server without a socket (no TLS keys to
/// generate), `.live` over TLS verified against the server's generated CA.
func onFakeEntra<Value: Sendable>(_ mode: FakeEntraTestingMode, _ body: (FakeEntraClient) async throws -> Value) async throws -> Value {
    let configuration = FakeEntraConfiguration(listener: mode == .live ? .tls : .none)
    return try await withFakeEntra(configuration) { server in try await server.test(mode, body) }
}

enum Contoso {
    static let adele = "adele.vance@contoso.onmicrosoft.com"
    static let password = "Passw0rd!"
    static func newClientID() -> String { UUID().uuidString.lowercased() }
}
