import EntraCrypto
import FakeEntraTesting
import Foundation
import IdentityPlatform

/// Runs `body` against a fresh server in `mode`: `.router` on a server without a socket (no TLS keys to
/// generate), `.live` over TLS verified against the server's generated CA; its clock frozen at `frozenAt`
/// when given.
func onFakeEntra<Value: Sendable>(_ mode: FakeEntraTestingMode, frozenAt: Date? = nil,
                                  _ body: (FakeEntraClient) async throws -> Value) async throws -> Value {
    let configuration = FakeEntraConfiguration(listener: mode == .live ? .tls : .none, frozenAt: frozenAt)
    return try await withFakeEntra(configuration) { server in try await server.test(mode, body) }
}

enum Contoso {
    static let adele = "adele.vance@contoso.onmicrosoft.com"
    static let password = "Passw0rd!"
    static func newClientID() -> String { UUID().uuidString.lowercased() }

    /// The key Contoso's JWKS publishes under `kid`, nil when it publishes none: what an API verifies with.
    static func publishedKey(_ kid: String?, _ client: FakeEntraClient) async throws -> RSAPublicKey? {
        let body = try await client.execute(.get, "/\(Directory.contosoTenantID)/discovery/v2.0/keys").body
        let set = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(body))
        return try set.keys.first { $0.kid == kid }?.rsaPublicKey()
    }
}

/// The `error.code` of a nested JSON error (the control API's, ARM's, Graph's).
func nestedErrorCode(_ response: FakeEntraResponse) -> String? {
    ((try? response.json())?["error"] as? [String: Any])?["code"] as? String
}
