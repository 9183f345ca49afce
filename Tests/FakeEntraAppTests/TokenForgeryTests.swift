import EntraCrypto
import ExchangeKernel
import FakeEntraTesting
import Foundation
import IdentityPlatform
import Testing

/// Tokens broken on purpose (`forge`), minted through FakeEntraTesting in process and over TLS: each is what
/// its name says, judged as an API judges it (the signature against the tenant's JWKS), and Graph, which
/// validates like a web API, refuses every one while it takes the unforged token.
@Suite struct TokenForgeryTests {
    static let frozen = Date(timeIntervalSince1970: 1_900_000_000)

    static func mint(_ client: FakeEntraClient, forge: TokenForgery?) async throws -> (token: String, header: [String: Any], claims: [String: Any]) {
        var request: [String: any Sendable] = ["user": Contoso.adele, "scopes": ["User.Read"]]
        if let forge { request["forge"] = forge.rawValue }
        let body = try await TokenMintTests.mint(client, request)
        return (try #require(body["token"] as? String), try #require(body["header"] as? [String: Any]), try #require(body["claims"] as? [String: Any]))
    }

    @Test(arguments: [FakeEntraTestingMode.router, .live])
    func eachForgeryBreaksWhatItNamesAndGraphRefusesIt(mode: FakeEntraTestingMode) async throws {
        try await onFakeEntra(mode, frozenAt: Self.frozen) { client in
            let now = Int(Self.frozen.timeIntervalSince1970)
            func me(_ token: String) async throws -> FakeEntraResponse { try await client.execute(.get, "/v1.0/me", headers: ["Authorization": "Bearer \(token)"]) }
            let honest = try await Self.mint(client, forge: nil)
            let signingKey = try #require(try await Contoso.publishedKey(honest.header["kid"] as? String, client), "the JWKS publishes the honest token's key")
            #expect(try await me(honest.token).status == 200)

            for forgery in TokenForgery.allCases {
                let forged = try await Self.mint(client, forge: forgery)
                let decoded = try #require(JWS.decode(forged.token), "\(forgery)")
                let verifies = JWS.verifyRS256(decoded, key: signingKey)
                let published = try await Contoso.publishedKey(forged.header["kid"] as? String, client)
                switch forgery {
                case .badSignature:
                    #expect(!verifies && published != nil && forged.claims["aud"] as? String == honest.claims["aud"] as? String)
                case .algNone:
                    #expect(forged.header["alg"] as? String == "none" && forged.token.hasSuffix(".") && forged.header["kid"] == nil)
                case .unknownKeyId:
                    #expect(!verifies && published == nil, "a kid the JWKS does not publish")
                case .futureNotBefore:
                    #expect(verifies && forged.claims["nbf"] as? Int == now + 3600)
                case .expired:
                    #expect(verifies && forged.claims["exp"] as? Int == now - 3600)
                case .wrongAudience:
                    #expect(verifies && forged.claims["aud"] as? String == TokenForgery.otherAudience)
                case .wrongIssuer:
                    #expect(verifies && (forged.claims["iss"] as? String)?.hasPrefix(TokenForgery.otherIssuerOrigin + "/") == true)
                case .wrongTenant:
                    #expect(verifies && forged.claims["tid"] as? String == TokenForgery.otherTenantID)
                    #expect((forged.claims["iss"] as? String)?.contains(TokenForgery.otherTenantID) == true)
                }
                // Graph takes any host in `iss` (its tenant must be `tid`'s): it cannot know every name FakeEntra
                // answers to, and a token issued at 127.0.0.1 is sent to graph.microsoft.com.
                if forgery == .wrongIssuer { continue }
                let answer = try await me(forged.token)
                #expect(answer.status == 401, "Graph took a token forged with \(forgery): \(answer.text)")
            }
        }
    }

    @Test func aForgedTokensExpiryIsWhatItSays() async throws {
        try await onFakeEntra(.router, frozenAt: Self.frozen) { client in
            let body = try await TokenMintTests.mint(client, ["user": Contoso.adele, "forge": "expired"])
            #expect(body["expiresOn"] as? Int == Int(Self.frozen.timeIntervalSince1970) - 3600)
        }
    }

    @Test func anUnknownForgeryIsRefusedWithTheNames() async throws {
        try await onFakeEntra(.router) { client in
            let response = try await client.execute(.post, "/_fakeentra/tokens", json: ["forge": "slightlyOff"])
            #expect(response.status == 400 && response.text.contains("badSignature, algNone"))
        }
    }
}
