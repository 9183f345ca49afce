import FakeEntraTesting
import Foundation
import Testing

/// Whole flows through FakeEntraTesting, in process and over TLS: a sign-in through the pages, a
/// minted token Graph accepts, a scenario bound to one client, and a clock move that expires a token.
@Suite struct FakeEntraTestingFlowTests {
    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func signInThroughThePagesGivesATokenGraphAccepts(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let signIn = try await client.signIn(user: Contoso.adele, password: Contoso.password, clientID: Contoso.newClientID(),
                                                 scopes: ["openid", "profile", "offline_access", "User.Read"])
            #expect(signIn.pagesWalked >= 2)
            #expect(signIn.idToken != nil)
            #expect(signIn.refreshToken != nil)
            let me = try await client.execute(.get, "/v1.0/me", headers: ["Authorization": "Bearer \(signIn.accessToken)"])
            #expect(me.status == 200, "\(me.text)")
            #expect((try me.json()["userPrincipalName"] as? String)?.lowercased() == Contoso.adele)
        }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func aWrongPasswordIsReportedNotHung(mode: FakeEntraTestingMode) async throws {
        _ = try await onFakeEntra(mode) { client in
            await #expect(throws: FakeEntraTestingError.self) {
                try await client.signIn(user: Contoso.adele, password: "wrong", clientID: Contoso.newClientID())
            }
        }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func mintedTokensAreAcceptedByGraph(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let delegated = try await client.mintToken(user: Contoso.adele, scopes: ["https://graph.microsoft.com/User.Read"])
            #expect(delegated.claims["upn"] as? String == Contoso.adele || delegated.claims["preferred_username"] as? String == Contoso.adele)
            let me = try await client.execute(.get, "/v1.0/me", headers: ["Authorization": "Bearer \(delegated.token)"])
            #expect(me.status == 200, "\(me.text)")
            #expect((try me.json()["userPrincipalName"] as? String)?.lowercased() == Contoso.adele)

            let appOnly = try await client.mintToken(scopes: ["https://graph.microsoft.com/.default"], roles: ["User.Read.All"], tenant: "contoso.onmicrosoft.com")
            let users = try await client.execute(.get, "/v1.0/users", headers: ["Authorization": "Bearer \(appOnly.token)"])
            #expect(users.status == 200, "\(users.text)")
        }
    }

    /// A binding by client id changes that client's answers only, until it is removed.
    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func aScenarioBoundToAClientChangesItsAnswerOnly(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let throttledClient = Contoso.newClientID(), otherClient = Contoso.newClientID()
            func tokenRequest(_ clientID: String) async throws -> FakeEntraResponse {
                try await client.execute(.post, "/common/oauth2/v2.0/token", form: [
                    "grant_type": "authorization_code", "client_id": clientID, "code": "not-a-code", "redirect_uri": FakeEntraClient.defaultRedirectURI,
                ])
            }
            let binding = try await client.bind(scenario: "throttled-token-endpoint", to: .client(throttledClient))
            #expect(try await tokenRequest(throttledClient).status == 429)
            let other = try await tokenRequest(otherClient)
            #expect(other.status == 400)
            #expect(other.text.contains("AADSTS"))
            try await client.unbind(binding)
            #expect(try await tokenRequest(throttledClient).status == 400)
        }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func theOutboxHoldsTheCodeANativeSignUpMailed(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let base = "/woodgrove.onmicrosoft.com/signup/v1.0"
            let address = "outbox-\(UUID().uuidString.prefix(8))@woodgrove.example"
            let started = try await client.execute(.post, base + "/start", form: [
                "client_id": "7c2f0e51-9a4b-4d36-8e1f-0b5a6c3d2e19", "username": address, "challenge_type": "oob redirect",
            ])
            let token = try #require(try started.json()["continuation_token"] as? String)
            let challenged = try await client.execute(.post, base + "/challenge", form: [
                "client_id": "7c2f0e51-9a4b-4d36-8e1f-0b5a6c3d2e19", "continuation_token": token, "challenge_type": "oob redirect",
            ])
            #expect(try challenged.json()["challenge_type"] as? String == "oob")
            let mail = try #require(try await client.outbox(for: address).last)
            #expect(mail.to == address && mail.code.count == 8 && mail.subject.hasSuffix(mail.code))
            #expect(try await client.outbox(for: "nobody@woodgrove.example").isEmpty)
        }
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func movingTheClockExpiresAToken(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode) { client in
            let token = try await client.mintToken(user: Contoso.adele, scopes: ["https://graph.microsoft.com/User.Read"], lifetime: 600)
            let bearer: KeyValuePairs<String, String> = ["Authorization": "Bearer \(token.token)"]
            #expect(try await client.execute(.get, "/v1.0/me", headers: bearer).status == 200)
            // Past the lifetime and Graph's five minutes of clock skew.
            let before = try await client.now()
            let after = try await client.advanceClock(by: 600 + 301)
            #expect(after.timeIntervalSince(before) >= 901)
            let expired = try await client.execute(.get, "/v1.0/me", headers: bearer)
            #expect(expired.status == 401)
            #expect((try expired.json()["error"] as? [String: Any])?["code"] as? String == "InvalidAuthenticationToken")
        }
    }

    @Test func liveNeedsAListener() async throws {
        _ = try await withFakeEntra(FakeEntraConfiguration(listener: .none)) { server in
            #expect(throws: FakeEntraTestingError.self) { try server.client(.live) }
        }
    }

    /// A plain-HTTP listener serves the same application; the metadata names the http origin it was reached at.
    @Test func plainHTTPListener() async throws {
        try await withFakeEntra(FakeEntraConfiguration(listener: .plainHTTP)) { server in
            #expect(server.baseURL.hasPrefix("http://127.0.0.1:"))
            #expect(server.caCertificatePath == nil)
            try await server.test(.live) { client in
                let metadata = try await client.execute(.get, "/common/v2.0/.well-known/openid-configuration")
                #expect((try metadata.json()["jwks_uri"] as? String)?.hasPrefix(server.baseURL) == true)
            }
        }
    }

    /// JSON has no NaN or infinity: a `json:` body holding one is refused before it is sent, as
    /// JSONSerialization refused it.
    @Test func aJSONBodyRefusesNumbersJSONCannotHold() async throws {
        try await onFakeEntra(.router) { client in
            for number in [Double.nan, Double.infinity, -Double.infinity] {
                await #expect(throws: FakeEntraTestingError.self) {
                    try await client.execute(.post, "/_fakeentra/tokens", json: ["lifetime": number])
                }
            }
        }
    }
}
