import IdentityFixtures
import ExchangeKernel
import EntraCrypto
import EntraHTTP
import Foundation
import Testing
@testable import IdentityPlatform

@Suite struct ClientResolutionTests {
    @Test func unknownClientIsLenientPublicClient() throws {
        let client = try ClientResolver.resolve(clientID: "abc", directory: TokenFixtures.directory, options: .init())
        #expect(!client.isRegistered && client.application.isPublicClient)
        var strict = IdentityOptions()
        strict.strict = true
        #expect(throws: ClientRefusal.notRegistered(clientID: "abc", tenant: "common")) {
            try ClientResolver.resolve(clientID: "abc", directory: TokenFixtures.directory, options: strict)
        }
        #expect(ClientRefusal.notRegistered(clientID: "abc", tenant: "common").entra() == .applicationNotFound("abc", tenant: "common"))
    }

    @Test func singleTenantAppIsNotFoundInAnotherTenant() {
        let other = Tenant(id: "aaaaaaaa-0000-4000-8000-000000000000", displayName: "Other", domains: ["other.test"], kind: .organization)
        #expect(throws: ClientRefusal.notRegistered(clientID: TokenFixtures.webAppID, tenant: other.id)) {
            try ClientResolver.resolve(clientID: TokenFixtures.webAppID, directory: TokenFixtures.directory, options: .init(), tenant: other)
        }
    }

    @Test(arguments: [
        "msauth.com.example.app://auth", "msauth://code/msauth.com.example%3A%2F%2Fauth", "http://localhost",
        "http://localhost:8400/callback", "http://127.0.0.1:5000", "https://localhost:3000/cb", "urn:ietf:wg:oauth:2.0:oob",
    ])
    func lenientClientsAcceptNativeRedirects(uri: String) throws {
        let client = try ClientResolver.resolve(clientID: "unknown", directory: TokenFixtures.directory, options: .init())
        try ClientResolver.validateRedirectURI(uri, for: client)
    }

    @Test(arguments: ["https://evil.example/cb", "msauth.://auth", "myapp://callback", "http://localhost.evil.example/", "ftp://localhost/"])
    func lenientClientsRefuseOtherRedirects(uri: String) throws {
        let client = try ClientResolver.resolve(clientID: "unknown", directory: TokenFixtures.directory, options: .init())
        #expect(throws: IdentityError.redirectURIMismatch(uri, clientID: "unknown")) { try ClientResolver.validateRedirectURI(uri, for: client) }
    }

    @Test func registeredRedirectsMatchExactlyExceptLoopbackPort() throws {
        let client = try ClientResolver.resolve(clientID: TokenFixtures.nativeAppID, directory: TokenFixtures.directory, options: .init())
        try ClientResolver.validateRedirectURI("msauth.com.contoso.mobile://auth", for: client)
        try ClientResolver.validateRedirectURI("http://localhost:51234/callback", for: client)
        #expect(throws: IdentityError.self) { try ClientResolver.validateRedirectURI("msauth.com.other://auth", for: client) }
        #expect(throws: IdentityError.self) { try ClientResolver.validateRedirectURI("http://localhost:51234/other", for: client) }
    }
}

@Suite struct ClientAuthenticationTests {
    func authenticate(_ presented: PresentedClientCredentials, clientID: String, service: IdentityService, requireCredential: Bool = false) throws(IdentityError) -> AuthenticatedClient {
        do throws(ClientRefusal) {
            let client = try ClientResolver.resolve(clientID: clientID, directory: service.currentDirectory, options: service.options)
            return try ClientAuthenticator.authenticate(presented, client: client, service: service, audience: AssertionAudience(requestHost: "127.0.0.1", directory: service.currentDirectory),
                                                        now: service.clock.now(), requireCredential: requireCredential)
        } catch {
            throw error.entra()
        }
    }

    @Test func secretInBodyOrBasicHeader() throws {
        let (service, _) = TokenFixtures.service()
        let body = try authenticate(.init(clientID: TokenFixtures.webAppID, secret: TokenFixtures.webSecret), clientID: TokenFixtures.webAppID, service: service)
        #expect(body.method == .secret)
        let basic = "Basic " + Data("\(TokenFixtures.webAppID):\(FormCoding.encodeComponent(TokenFixtures.webSecret))".utf8).base64EncodedString()
        let presented = PresentedClientCredentials(parameters: FormParameters(), headers: ["Authorization": basic])
        #expect(presented.clientID == TokenFixtures.webAppID && presented.secret == TokenFixtures.webSecret)
        #expect(try authenticate(presented, clientID: TokenFixtures.webAppID, service: service).method == .secret)
    }

    @Test func secretErrors() {
        let (service, clock) = TokenFixtures.service()
        #expect(throws: IdentityError.invalidClientSecret(clientID: TokenFixtures.webAppID)) {
            try authenticate(.init(secret: "wrong"), clientID: TokenFixtures.webAppID, service: service)
        }
        #expect(throws: IdentityError.missingClientCredential()) {
            try authenticate(.init(), clientID: TokenFixtures.webAppID, service: service)
        }
        #expect(throws: IdentityError.publicClientSentSecret()) {
            try authenticate(.init(secret: "x"), clientID: TokenFixtures.nativeAppID, service: service)
        }
        service.directory.withLock { $0.applications[0].secrets = [.init(value: "old", expiresAt: clock.now().addingTimeInterval(10))] }
        clock.advance(by: 11)
        #expect(throws: IdentityError.clientSecretExpired(clientID: TokenFixtures.webAppID)) {
            try authenticate(.init(secret: "old"), clientID: TokenFixtures.webAppID, service: service)
        }
    }

    @Test func unknownClientWithSecretIsBoundOnFirstUse() throws {
        let (service, _) = TokenFixtures.service()
        let first = try authenticate(.init(secret: "first"), clientID: "daemon-1", service: service)
        #expect(first.method == .secret && first.client.isRegistered)
        #expect(service.currentDirectory.application(clientID: "daemon-1")?.isPublicClient == false)
        #expect(try authenticate(.init(secret: "first"), clientID: "daemon-1", service: service).method == .secret)
        #expect(throws: IdentityError.invalidClientSecret(clientID: "daemon-1")) {
            try authenticate(.init(secret: "second"), clientID: "daemon-1", service: service)
        }
        #expect(throws: IdentityError.missingClientCredential()) { try authenticate(.init(), clientID: "daemon-1", service: service) }
    }

    @Test func publicClientNeedsNoCredentialUnlessGrantRequiresOne() throws {
        let (service, _) = TokenFixtures.service()
        #expect(try authenticate(.init(), clientID: TokenFixtures.nativeAppID, service: service).method == .none)
        #expect(throws: IdentityError.missingClientCredential()) {
            try authenticate(.init(), clientID: TokenFixtures.nativeAppID, service: service, requireCredential: true)
        }
    }

    static func assertion(signer: SigningCredential = TokenFixtures.clientCertificate, header: [String: Any]? = nil, claims: [String: Any]) throws -> String {
        let headerObject: [String: Any] = header ?? ["typ": "JWT", "x5t": signer.keyID]
        let headerJSON = try JSONSerialization.data(withJSONObject: headerObject, options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return try JWS.signRS256(headerJSON: Array(headerJSON), payloadJSON: Array(payload), key: signer.privateKey)
    }

    static func assertionClaims(now: Date, aud: String = "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token", clientID: String = TokenFixtures.certAppID) -> [String: Any] {
        ["aud": aud, "iss": clientID, "sub": clientID, "jti": UUID().uuidString,
         "nbf": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 600]
    }

    func presentAssertion(_ jwt: String, service: IdentityService) throws(IdentityError) -> AuthenticatedClient {
        try authenticate(.init(assertionType: PresentedClientCredentials.jwtBearerAssertionType, assertion: jwt), clientID: TokenFixtures.certAppID, service: service)
    }

    @Test func assertionSignedByRegisteredCertificate() throws {
        let (service, clock) = TokenFixtures.service()
        let jwt = try Self.assertion(claims: Self.assertionClaims(now: clock.now()))
        #expect(try presentAssertion(jwt, service: service).method == .certificate)
        // No thumbprint in the header: any registered certificate that verifies will do.
        let bare = try Self.assertion(header: ["typ": "JWT"], claims: Self.assertionClaims(now: clock.now(), aud: "https://127.0.0.1:8443/common/oauth2/token"))
        #expect(try presentAssertion(bare, service: service).method == .certificate)
        // x5t#S256 names it as well.
        let s256 = try Self.assertion(header: ["x5t#S256": Base64URL.encode(TokenFixtures.clientCertificate.certificate.sha256Thumbprint)], claims: Self.assertionClaims(now: clock.now()))
        #expect(try presentAssertion(s256, service: service).method == .certificate)
    }

    @Test func unknownClientWithEmbeddedCertificateIsBoundOnFirstUse() throws {
        let (service, clock) = TokenFixtures.service()
        func present(_ signer: SigningCredential, embed: Bool = true) throws -> PresentedClientCredentials {
            var header: [String: Any] = ["typ": "JWT", "x5t": signer.keyID]
            // As MSAL Python sends it: the PEM body with its line breaks.
            if embed { header["x5c"] = [Data(signer.certificate.der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])] }
            let jwt = try Self.assertion(signer: signer, header: header, claims: Self.assertionClaims(now: clock.now(), clientID: "cert-daemon"))
            return PresentedClientCredentials(assertionType: PresentedClientCredentials.jwtBearerAssertionType, assertion: jwt)
        }
        #expect(throws: IdentityError.applicationNotFound("cert-daemon", tenant: "common")) {
            try authenticate(present(TokenFixtures.clientCertificate, embed: false), clientID: "cert-daemon", service: service)
        }
        let first = try authenticate(present(TokenFixtures.clientCertificate), clientID: "cert-daemon", service: service)
        #expect(first.method == .certificate)
        #expect(service.currentDirectory.application(clientID: "cert-daemon")?.certificates == [TokenFixtures.clientCertificate.certificate.pem])
        #expect(try authenticate(present(TokenFixtures.clientCertificate, embed: false), clientID: "cert-daemon", service: service).method == .certificate)
        let stranger = try SigningCredential.generate(commonName: "stranger")
        #expect(throws: IdentityError.self) { try authenticate(present(stranger), clientID: "cert-daemon", service: service) }
        #expect(throws: IdentityError.invalidClientSecret(clientID: "cert-daemon")) {
            try authenticate(.init(secret: "a secret now"), clientID: "cert-daemon", service: service)
        }
    }

    @Test(arguments: [
        ("https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token", true),
        ("https://127.0.0.1:8443/common/oauth2/token", true),
        ("https://login.microsoftonline.com/\(TokenFixtures.contoso)/v2.0", true),
        ("https://login.microsoftonline.com/\(TokenFixtures.contoso)/", true),
        ("https://127.0.0.1:8443/\(TokenFixtures.contoso)", true),
        ("https://login.microsoftonline.com/", false),
        ("https://example.com/a/b/c", false),
        ("not a url", false),
        // Any one-segment path passed for the v1 issuer form, whatever the host or segment.
        ("https://evil.example/x", false),
        ("https://evil.example/\(TokenFixtures.contoso)/", false),
        ("https://evil.example/contoso.onmicrosoft.com/oauth2/v2.0/token", false),
        ("https://login.microsoftonline.com/x", false),
        ("https://login.microsoftonline.com/common/v2.0", false),
        ("https://127.0.0.1:8443/no-such-tenant.example/oauth2/v2.0/token", false),
    ])
    func assertionAudiences(audience: String, accepted: Bool) {
        let accepting = AssertionAudience(requestHost: "127.0.0.1", directory: TokenFixtures.directory)
        #expect(accepting.admits(audience) == accepted)
    }

    @Test func assertionFailures() throws {
        let (service, clock) = TokenFixtures.service()
        let now = clock.now()
        func code(_ jwt: String) -> Int? {
            do { _ = try presentAssertion(jwt, service: service); return nil } catch { return error.code }
        }
        #expect(code("not.a.jwt") == 50027)
        let stranger = try SigningCredential.generate(commonName: "stranger")
        #expect(code(try Self.assertion(signer: stranger, claims: Self.assertionClaims(now: now))) == 700027)
        // Registered thumbprint but signed by another key.
        #expect(code(try Self.assertion(signer: stranger, header: ["x5t": TokenFixtures.clientCertificate.keyID], claims: Self.assertionClaims(now: now))) == 7000274)
        #expect(code(try Self.assertion(claims: Self.assertionClaims(now: now, aud: "https://example.com/some/other/endpoint"))) == 700023)
        #expect(code(try Self.assertion(claims: Self.assertionClaims(now: now, clientID: "someone-else"))) == 700021)
        var expired = Self.assertionClaims(now: now)
        expired["exp"] = Int(now.timeIntervalSince1970) - 400
        #expect(code(try Self.assertion(claims: expired)) == 700024)
        // Worded as recorded (2023, 2024): the times in .NET's round-trip form, the documentation link.
        let expiredAssertion = try Self.assertion(claims: expired)
        do { _ = try presentAssertion(expiredAssertion, service: service) } catch {
            #expect(error.message.contains("assertion valid from 19") || error.message.contains("assertion valid from 20"), "\(error.message)")
            #expect(error.message.hasSuffix("0000000Z. Review the documentation at https://docs.microsoft.com/azure/active-directory/develop/active-directory-certificate-credentials ."), "\(error.message)")
        }
        var farFuture = Self.assertionClaims(now: now)
        farFuture["nbf"] = 1e300
        farFuture["exp"] = 1e301
        #expect(code(try Self.assertion(claims: farFuture)) == 700024)
        var noJTI = Self.assertionClaims(now: now)
        noJTI["jti"] = nil
        #expect(code(try Self.assertion(claims: noJTI)) == 50027)
        let fromPublicClient = PresentedClientCredentials(assertionType: PresentedClientCredentials.jwtBearerAssertionType, assertion: try Self.assertion(claims: Self.assertionClaims(now: now, clientID: TokenFixtures.nativeAppID)))
        #expect(throws: IdentityError.publicClientSentSecret()) { try authenticate(fromPublicClient, clientID: TokenFixtures.nativeAppID, service: service) }
        let wrongType = PresentedClientCredentials(assertionType: "urn:something-else", assertion: try Self.assertion(claims: Self.assertionClaims(now: now)))
        #expect(throws: IdentityError.self) { try authenticate(wrongType, clientID: TokenFixtures.certAppID, service: service) }
    }
}

/// A PS256 assertion made by PyJWT (as MSAL Python makes them when it knows the SHA-256 thumbprint),
/// with the certificate it was made for; its private key was thrown away.
@Suite struct PS256AssertionTests {
    static let certificate = """
-----BEGIN CERTIFICATE-----
MIIDCzCCAfOgAwIBAgIUSikzUs+bFie2tThWnarIF6t1HVAwDQYJKoZIhvcNAQEL
BQAwFDESMBAGA1UEAwwJcHMyNTZ0ZXN0MCAXDTI2MTEyMTA4MzI1OVoYDzIxMjYx
MDI4MDgzMjU5WjAUMRIwEAYDVQQDDAlwczI1NnRlc3QwggEiMA0GCSqGSIb3DQEB
AQUAA4IBDwAwggEKAoIBAQDyvyaY6/7XnloLfDqPuNHTBpovifnw2v11WbeIuukU
L4MQsHoob7SN51vCGXYO9yStUip5eOR8TjdyXSegEfMgmNC6s0PCdFe7Uodqa4nT
lup+HnMO6KutcjferEPYGM1qFEwStgWCrfsUkXAt1Il0OwCmCHCkh11GBKM70MI5
ddia13d9IOSHmM6tz4NtyZrrCqn36y00uLlVGVUSh71DXs+Bsv/8u733ncbZwjdG
saS7hZN33qkRo0Nhz9eFm++Eg355om6kxHXlwXL3AWdy7v0eyNf1Z4OHqau/j3LH
JSHO0H8S6sRW0cbKzCpvvlvLdadYNtyTxKRpcmYIo2ufAgMBAAGjUzBRMB0GA1Ud
DgQWBBSZoUmqU6gt4+Xe/Nol01smVHI/KTAfBgNVHSMEGDAWgBSZoUmqU6gt4+Xe
/Nol01smVHI/KTAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEBCwUAA4IBAQAq
OBcS0CT9I7rcdUxKdvCtwBvGNs/mztsyxSVOcvIz32c7E8zHOAy5LxhbQ/oAYkA2
XW7i9gNM+8ecq/c7rDfovb4B1C3+lbh3Gqyb7mOK38yM1AcFbIc6Rdk7gjU84WUn
1UamxLjGqXeDd+0LgzW8dkDGziIsgDnH6yzDDRYRC0qmZTvp2Cw4tcHIgwu1cmro
8frqYG938hQAcFijez4Bf1P9bnYeC4K+5lW99HWkiRajx+KKjqyBCX+rPBSo4H6z
nANFsBYgrXZaocy7SexKPo66aLTVHE0e18qsW3aeTi0ZjpOjhKcWnp0tlXhqMPv+
alJl+Uj3ZsPmO7HN/dyK
-----END CERTIFICATE-----
"""
    static let assertion = "eyJhbGciOiJQUzI1NiIsInR5cCI6IkpXVCIsIng1dCNTMjU2IjoiT1hsbjNCbGJXYzV6X2Y3NlA5Sm9MM0hmekpRQ2R0NWhUS1kyR0RVR1dNZyJ9.eyJhdWQiOiJodHRwczovL2xvZ2luLm1pY3Jvc29mdG9ubGluZS5jb20vY29udG9zby5vbm1pY3Jvc29mdC5jb20vb2F1dGgyL3YyLjAvdG9rZW4iLCJpc3MiOiI2NjY2NjY2Ni02NjY2LTQ2NjYtODY2Ni02NjY2NjY2NjY2NjYiLCJzdWIiOiI2NjY2NjY2Ni02NjY2LTQ2NjYtODY2Ni02NjY2NjY2NjY2NjYiLCJqdGkiOiI1ZjhjMmY3ZS0xYzFlLTRjNTUtOWQ3YS05YjNmNGYzYjBhMTEiLCJpYXQiOjE4MDAwMDAwMDAsImV4cCI6NDEwMDAwMDAwMH0.1-u2pmpSRa08Ywe8NosanR_gsi5AnBoZUWznAaMyuBYQnQ_Tl74eTsphziEvXpNT1-sIP4M3qFzFb4OH6zIt__42vRcMBoKfCkhqJ1f0eDUtLV3Npje-YnV-9SiESJxk9O2Alb3pCzVWrCxzLVAiPjQa82Wowhl_gG9WtTLSW3QKaSUwVdd3RFFt8gn0s35_5Px7Vk8LjDAaSuXfr_a1Qw4C6vtxWV20wJDM33_j-o_Hiz3KiXJoqjMWTKemqmTBUeoVG7_SHBlW8vexyOp9qxizUFzlS9_Lu0yufTJFY369vF3HWwGs6zFkckzDMGEeOfWmuNdMBVl-ntwqlQhsiw"

    @Test func msalPythonStylePS256AssertionVerifies() throws {
        var directory = TokenFixtures.directory
        directory.applications[5].certificates = [Self.certificate]
        let (service, _) = TokenFixtures.service(directory: directory)
        let client = try ClientResolver.resolve(clientID: TokenFixtures.certAppID, directory: directory, options: .init())
        let presented = PresentedClientCredentials(assertionType: PresentedClientCredentials.jwtBearerAssertionType, assertion: Self.assertion)
        let audience = AssertionAudience(requestHost: "127.0.0.1", directory: directory)
        #expect(try ClientAuthenticator.authenticate(presented, client: client, service: service, audience: audience, now: service.clock.now()).method == .certificate)
        // One flipped signature byte and it no longer verifies.
        var tampered = Array(Self.assertion)
        tampered[tampered.count - 5] = tampered[tampered.count - 5] == "A" ? "B" : "A"
        let bad = PresentedClientCredentials(assertionType: PresentedClientCredentials.jwtBearerAssertionType, assertion: String(tampered))
        #expect(throws: ClientRefusal.assertion(.clientAssertionSignatureInvalid(clientID: TokenFixtures.certAppID))) { try ClientAuthenticator.authenticate(bad, client: client, service: service, audience: audience, now: service.clock.now()) }
    }
}
