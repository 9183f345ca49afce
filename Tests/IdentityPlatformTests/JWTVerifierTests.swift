import IdentityFixtures
import EntraCrypto
import Foundation
import IdentityPlatform
import Testing

/// The one JWT verifier and its three policies: a bearer token at a resource, a client assertion, a user's
/// token sent back for on-behalf-of.
@Suite struct JWTVerifierTests {
    static let now = Date(timeIntervalSince1970: 1_736_337_600)

    private func token(exp: Int? = 1_736_341_200, nbf: Int? = nil, signer: SigningCredential = TokenFixtures.credential) throws -> ParsedJWT {
        var members: [String] = [#""aud":"api://x""#]
        if let exp { members.append(#""exp":\#(exp)"#) }
        if let nbf { members.append(#""nbf":\#(nbf)"#) }
        let compact = try JWS.signJWT(payloadJSON: Array("{\(members.joined(separator: ","))}".utf8), credential: signer)
        return try #require(ParsedJWT(compact))
    }

    @Test func theSignatureMustBeByATrustedKey() throws {
        let jwt = try token()
        let trusted = [TokenFixtures.credential.privateKey.publicKey]
        #expect(JWTVerifier.bearer().isSigned(jwt, byOneOf: trusted))
        #expect(!JWTVerifier.bearer().isSigned(jwt, byOneOf: [TokenFixtures.clientCertificate.privateKey.publicKey]))
        #expect(throws: JWTVerifier.Failure.badSignature) { try JWTVerifier.userAssertion.checkSignature(of: jwt, byOneOf: []) }
        var strict = JWTVerifier.bearer()
        strict.algorithms = ["PS256"]
        #expect(throws: JWTVerifier.Failure.unsupportedAlgorithm("RS256")) { try strict.checkSignature(of: jwt, byOneOf: trusted) }
        #expect(JWTVerifier.candidates(for: jwt, among: [TokenFixtures.credential, TokenFixtures.clientCertificate]).count == 1, "the kid names one key")
        #expect(jwt.audiences == ["api://x"])
    }

    @Test func eachPolicyHasItsOwnWindow() throws {
        let expiry = Int(Self.now.timeIntervalSince1970)
        let atExpiry = try token(exp: expiry - 300)
        // IdentityModel's rule at a resource: still valid at exp + skew itself; the token service's: not.
        #expect(try JWTVerifier.bearer().checkValidity(of: atExpiry, now: Self.now).expiry == Date(timeIntervalSince1970: Double(expiry - 300)))
        #expect(throws: JWTVerifier.Failure.outOfRange(expiry: Date(timeIntervalSince1970: Double(expiry - 300)), notBefore: nil, early: false)) {
            try JWTVerifier.clientAssertion.checkValidity(of: atExpiry, now: Self.now)
        }
        // No skew for a user assertion: expired at its exp.
        #expect(throws: JWTVerifier.Failure.self) { try JWTVerifier.userAssertion.checkValidity(of: try token(exp: expiry), now: Self.now) }
        #expect((try? JWTVerifier.userAssertion.checkValidity(of: try token(exp: expiry + 1), now: Self.now)) != nil)
        // nbf: five minutes early is accepted, more is not; a user assertion's nbf is not read.
        let early = try token(nbf: expiry + 301)
        #expect(throws: JWTVerifier.Failure.self) { try JWTVerifier.bearer().checkValidity(of: early, now: Self.now) }
        #expect((try? JWTVerifier.bearer().checkValidity(of: try token(nbf: expiry + 300), now: Self.now)) != nil)
        #expect((try? JWTVerifier.userAssertion.checkValidity(of: early, now: Self.now)) != nil)
        #expect(throws: JWTVerifier.Failure.missingExpiry) { try JWTVerifier.clientAssertion.checkValidity(of: try token(exp: nil), now: Self.now) }
    }
}
