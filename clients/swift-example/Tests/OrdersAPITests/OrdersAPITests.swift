import FakeEntraTesting
import Hummingbird
import HummingbirdTesting
import OrdersAPI
import Testing

/// The API under test validates real signatures against FakeEntra's JWKS, fetched from its metadata
/// over a socket; the tokens come from FakeEntra's mint and from a sign-in through its pages.
@Suite struct OrdersAPITests {
    static let adele = "adele.vance@contoso.onmicrosoft.com"
    static let contoso = "4e9f1c6a-0b1d-4c2e-9a57-3f6c2d1b8e70"
    /// The API's app registration: its client id is the audience of its v2.0 access tokens.
    static let apiID = "7a1e2b3c-4d5e-4f60-8a9b-0c1d2e3f4a5b"

    @Test func ordersNeedAnAccessTokenWithTheScope() async throws {
        // Plain HTTP: URLSession on Linux cannot be given a CA; over .tls, trust server.caCertificatePath.
        try await withFakeEntra(FakeEntraConfiguration(listener: .plainHTTP)) { fakeEntra in
            let validator = TokenValidator(authority: fakeEntra.baseURL + "/\(Self.contoso)/v2.0", audience: Self.apiID)
            let api = Application(router: buildRouter(validator: validator))
            let entra = try fakeEntra.client(.live)
            // Register the API as its tenant's admin would: a sign-in asking for its scope needs it.
            let registration = try await entra.execute(.post, "/_fakeentra/apps", json: [
                "clientId": Self.apiID, "displayName": "Orders API", "tenant": Self.contoso, "identifierUris": ["api://orders"],
                "exposedScopes": ["Orders.Read", "Orders.Write"], "accessTokenAcceptedVersion": 2,
            ])
            #expect(registration.status == 201, "\(registration.text)")

            let reader = try await entra.mintToken(user: Self.adele, scopes: ["api://orders/Orders.Read"])
            let otherScope = try await entra.mintToken(user: Self.adele, scopes: ["api://orders/Orders.Write"])
            let otherAPI = try await entra.mintToken(user: Self.adele, scopes: ["api://invoices/Invoices.Read"])
            let signIn = try await entra.signIn(user: Self.adele, password: "Passw0rd!", clientID: "3f1c2a5e-0d4b-4c1a-9b8e-7a6d5c4b3a21",
                                                scopes: ["openid", "api://orders/Orders.Read"], tenant: Self.contoso)

            try await api.test(.router) { client in
                try await client.execute(uri: "/orders", method: .get, headers: [.authorization: "Bearer \(reader.token)"]) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body).hasPrefix("orders of "))
                }
                try await client.execute(uri: "/orders", method: .get, headers: [.authorization: "Bearer \(signIn.accessToken)"]) { response in
                    #expect(response.status == .ok)
                }
                try await client.execute(uri: "/orders", method: .get) { response in
                    #expect(response.status == .unauthorized)
                }
                try await client.execute(uri: "/orders", method: .get, headers: [.authorization: "Bearer \(otherScope.token)"]) { response in
                    #expect(response.status == .forbidden)
                }
                try await client.execute(uri: "/orders", method: .get, headers: [.authorization: "Bearer \(otherAPI.token)"]) { response in
                    #expect(response.status == .unauthorized, "a token for another audience")
                }
                var tampered = reader.token
                tampered.removeLast(4)
                tampered += "AAAA"
                try await client.execute(uri: "/orders", method: .get, headers: [.authorization: "Bearer \(tampered)"]) { response in
                    #expect(response.status == .unauthorized, "a broken signature")
                }
            }
        }
    }
}
