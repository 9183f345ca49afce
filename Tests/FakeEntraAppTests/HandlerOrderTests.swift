import FakeEntraTesting
import Foundation
import Testing

/// The layers FakeEntraApplication stacks, each reached through the whole responder: health, control
/// API, console, Graph, B2C, the identity platform, and scenarios wrapping the platform. Every test runs
/// in process and over a TLS socket.
@Suite struct HandlerOrderTests {
    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func eachLayerAnswersItsOwnPaths(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let health = try await client.execute(.get, "/_fakeentra/health")
            #expect(health.status == 200)
            #expect(try health.json()["status"] as? String == "ok")

            let scenarios = try await client.execute(.get, "/_fakeentra/scenarios")
            #expect(scenarios.status == 200)
            #expect((try scenarios.json()["scenarios"] as? [[String: Any]])?.contains { $0["name"] as? String == "happy-path" } == true)

            let console = try await client.execute(.get, "/")
            #expect(console.status == 200)
            #expect(console.header("Content-Type")?.hasPrefix("text/html") == true)

            let graph = try await client.execute(.get, "/v1.0/me")
            #expect(graph.status == 401)
            #expect((try graph.json()["error"] as? [String: Any])?["code"] as? String == "InvalidAuthenticationToken")

            let entra = try await client.execute(.get, "/common/v2.0/.well-known/openid-configuration")
            #expect(entra.status == 200)
            #expect((try entra.json()["authorization_endpoint"] as? String)?.hasSuffix("/common/oauth2/v2.0/authorize") == true)

            let b2c = try await client.execute(.get, "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_susi/v2.0/.well-known/openid-configuration")
            #expect(b2c.status == 200)
            #expect((try b2c.json()["authorization_endpoint"] as? String)?.lowercased().contains("b2c_1_susi") == true)
        }
    }

    /// `?p=` on a tenant path is B2C's, though the path alone is the identity platform's.
    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func b2cClaimsPolicyRequestsBeforeTheIdentityPlatform(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let plain = try await client.execute(.get, "/fabrikamb2c.onmicrosoft.com/v2.0/.well-known/openid-configuration")
            let policy = try await client.execute(.get, "/fabrikamb2c.onmicrosoft.com/v2.0/.well-known/openid-configuration?p=B2C_1_susi")
            #expect(policy.status == 200)
            let plainEndpoint = (try? plain.json())?["authorization_endpoint"] as? String ?? ""
            let policyEndpoint = try #require(try policy.json()["authorization_endpoint"] as? String)
            #expect(policyEndpoint.lowercased().contains("b2c_1_susi"))
            #expect(!plainEndpoint.lowercased().contains("b2c_1_susi"))
        }
    }

    /// Graph sits before the identity platform: on Graph's host, even a metadata path is Graph's.
    /// Router only: a live request's host is the socket's.
    @Test func graphClaimsItsHostBeforeTheIdentityPlatform() async throws {
        try await onFakeEntra(.router) { client in
            let onGraph = try await client.execute(.get, "/common/v2.0/.well-known/openid-configuration", headers: ["Host": "graph.microsoft.com"])
            #expect(onGraph.status != 200)
            #expect((try onGraph.json()["error"] as? [String: Any])?["code"] != nil, "a Graph error, not metadata: \(onGraph.text)")
            let health = try await client.execute(.get, "/_fakeentra/health", headers: ["Host": "graph.microsoft.com"])
            #expect(health.status == 200, "health comes before Graph")
        }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func unknownPathsFallThroughToTheRightNotFound(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let control = try await client.execute(.get, "/_fakeentra/no-such-endpoint")
            #expect(control.status == 404)
            #expect((try control.json()["error"] as? [String: Any])?["code"] as? String == "not_found")
            let other = try await client.execute(.get, "/no/such/resource")
            #expect(other.status == 404)
            #expect(other.header("Content-Type")?.hasPrefix("text/plain") == true)
        }
    }

    /// A server-wide scenario answers the token endpoint by itself, while health and metadata, which
    /// its rule does not match, still come from the platform behind it.
    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func scenariosWrapThePlatform(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let form: KeyValuePairs<String, String> = ["grant_type": "authorization_code", "client_id": Contoso.newClientID(), "code": "not-a-code",
                                                       "redirect_uri": FakeEntraClient.defaultRedirectURI]
            let before = try await client.execute(.post, "/common/oauth2/v2.0/token", form: form)
            #expect(before.status == 400)
            let binding = try await client.bind(scenario: "throttled-token-endpoint", to: .server)
            let throttled = try await client.execute(.post, "/common/oauth2/v2.0/token", form: form)
            #expect(throttled.status == 429)
            #expect(throttled.header("Retry-After") == "5")
            #expect(try await client.execute(.get, "/_fakeentra/health").status == 200)
            #expect(try await client.execute(.get, "/common/v2.0/.well-known/openid-configuration").status == 200)
            try await client.unbind(binding)
            #expect(try await client.execute(.post, "/common/oauth2/v2.0/token", form: form).status == 400)
        }
    }
}
