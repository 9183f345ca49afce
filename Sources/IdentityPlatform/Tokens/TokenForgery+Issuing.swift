package import EntraCrypto
package import ExchangeKernel
package import FoundationGaps
import LocatedJSON

/// How each forgery changes a token: its claims before signing, or its signature.
extension TokenForgery {
    /// A tenant no directory FakeEntra ships has: a token "for another tenant" names it.
    package static let otherTenantID = "f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f"
    /// An audience that is nobody's API here.
    package static let otherAudience = "api://another-api"
    /// A host that is not the authority's.
    package static let otherIssuerOrigin = "https://login.fakeentra.invalid"

    /// A key no JWKS publishes, made once, when first needed (RSA generation takes a tenth of a second).
    private static let strangerKey: SigningCredential? = try? SigningCredential.generate(commonName: "A key FakeEntra never publishes")

    /// The claim-level forgeries, applied before signing.
    package func forge(_ claims: inout ClaimSet, now: Date) {
        func date(_ instant: Date) -> JSONValue { .int(Int(instant.timeIntervalSince1970.rounded(.down))) }
        switch self {
        case .futureNotBefore:
            claims.override("nbf", date(now.addingTimeInterval(3600)))
        case .expired:
            // An hour past `exp`: beyond the five minutes of clock skew validators allow.
            claims.override("iat", date(now.addingTimeInterval(-7200)))
            claims.override("nbf", date(now.addingTimeInterval(-7200)))
            claims.override("exp", date(now.addingTimeInterval(-3600)))
        case .wrongAudience:
            claims.override("aud", .string(Self.otherAudience))
        case .wrongIssuer:
            if let issuer = claims.string("iss") { claims.override("iss", .string(Self.replacingOrigin(of: issuer))) }
        case .wrongTenant:
            // B2C's tokens have no `tid`: their issuer's path names the tenant.
            if claims.string("tid") != nil { claims.override("tid", .string(Self.otherTenantID)) }
            if let issuer = claims.string("iss"), let forged = Issuer.replacingTenant(in: issuer, with: Self.otherTenantID) {
                claims.override("iss", .string(forged))
            }
        case .badSignature, .algNone, .unknownKeyId:
            break
        }
    }

    /// The token for `payload`: signed by `credential` and then broken, unsigned, or signed by a stranger
    /// key; the key id named in its header.
    package func sign(_ payload: [UInt8], credential: SigningCredential) throws -> (token: String, keyID: String?) {
        switch self {
        case .algNone:
            return (Base64URL.encode(Array(#"{"typ":"JWT","alg":"none"}"#.utf8)) + "." + Base64URL.encode(payload) + ".", nil)
        case .unknownKeyId:
            guard let stranger = Self.strangerKey else { throw CryptoError(.invalidKey, "no key could be made for the forgery") }
            return (try JWS.signJWT(payloadJSON: payload, credential: stranger), stranger.keyID)
        case .badSignature:
            let token = try JWS.signJWT(payloadJSON: payload, credential: credential)
            guard let dot = token.lastIndex(of: "."), var signature = Base64URL.decode(String(token[token.index(after: dot)...])), !signature.isEmpty else {
                throw CryptoError(.invalidKey, "the signature to break could not be read")
            }
            signature[signature.count / 2] ^= 0x01
            return (String(token[...dot]) + Base64URL.encode(signature), credential.keyID)
        case .futureNotBefore, .expired, .wrongAudience, .wrongIssuer, .wrongTenant:
            return (try JWS.signJWT(payloadJSON: payload, credential: credential), credential.keyID)
        }
    }

    /// `https://host[:port]/rest` with another origin: the path (tenant, version) stays.
    static func replacingOrigin(of issuer: String) -> String {
        guard let scheme = issuer.range(of: "://") else { return Self.otherIssuerOrigin + "/" + issuer }
        let rest = issuer[scheme.upperBound...]
        let path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        return Self.otherIssuerOrigin + path
    }
}
