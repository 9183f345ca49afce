import LocatedJSON
package import EntraCrypto
package import FoundationGaps

/// The one way FakeEntra checks a JWT another party presents: a bearer token at Graph or Resource
/// Manager, a client assertion (the app's own or a federated issuer's), a user's token sent back as an
/// on-behalf-of assertion. The algorithms, the signature by a key the caller trusts and the validity
/// window follow the caller's policy; the caller orders its own checks (audience, issuer, the
/// credential that names the key) around these and words each `Failure` in its own catalogue.
package struct JWTVerifier: Sendable {
    package var algorithms: Set<String>
    /// How far `exp` and `nbf` may be off the platform clock.
    package var clockSkew: TimeInterval
    /// Whether a token is still valid at `exp + clockSkew` itself (IdentityModel's rule, which Graph and
    /// Resource Manager apply) or only before it (the token service's rule for assertions).
    package var validAtExpiry: Bool
    /// Whether `nbf` is checked.
    package var checksNotBefore: Bool

    package init(algorithms: Set<String>, clockSkew: TimeInterval, validAtExpiry: Bool, checksNotBefore: Bool) {
        self.algorithms = algorithms
        self.clockSkew = clockSkew
        self.validAtExpiry = validAtExpiry
        self.checksNotBefore = checksNotBefore
    }

    /// A bearer token at a resource: RS256, five minutes of skew (IdentityModel's default, which Graph uses).
    package static func bearer(clockSkew: TimeInterval = 300) -> JWTVerifier {
        JWTVerifier(algorithms: ["RS256"], clockSkew: clockSkew, validAtExpiry: true, checksNotBefore: true)
    }

    /// A client assertion (RFC 7523), the app's own or a federated issuer's: RS256 or PS256, as Entra
    /// accepts them, a few minutes early or late as clocks drift.
    package static let clientAssertion = JWTVerifier(algorithms: ["RS256", "PS256"], clockSkew: 300, validAtExpiry: false, checksNotBefore: true)

    /// A user's access token presented for on-behalf-of: FakeEntra's own RS256 token, expired at `exp`.
    package static let userAssertion = JWTVerifier(algorithms: ["RS256"], clockSkew: 0, validAtExpiry: false, checksNotBefore: false)

    package enum Failure: Error, Equatable {
        case unsupportedAlgorithm(String?)
        case badSignature
        case missingExpiry
        case outOfRange(expiry: Date, notBefore: Date?, early: Bool)
    }

    package func checkAlgorithm(of jwt: ParsedJWT) throws(Failure) {
        guard let algorithm = jwt.jws.algorithm, algorithms.contains(algorithm) else { throw .unsupportedAlgorithm(jwt.jws.algorithm) }
    }

    /// Whether one of `keys` made the signature, by an allowed algorithm.
    package func isSigned(_ jwt: ParsedJWT, byOneOf keys: [RSAPublicKey]) -> Bool {
        guard let algorithm = jwt.jws.algorithm, algorithms.contains(algorithm) else { return false }
        return keys.contains { key in
            switch algorithm {
            case "RS256": JWS.verifyRS256(jwt.jws, key: key)
            case "PS256": key.verifySHA256PSS(signature: jwt.jws.signature, data: jwt.jws.signingInput)
            default: false
            }
        }
    }

    package func checkSignature(of jwt: ParsedJWT, byOneOf keys: [RSAPublicKey]) throws(Failure) {
        try checkAlgorithm(of: jwt)
        guard isSigned(jwt, byOneOf: keys) else { throw .badSignature }
    }

    /// An `exp`, and `now` within `nbf`…`exp` give or take the skew: that window.
    @discardableResult
    package func checkValidity(of jwt: ParsedJWT, now: Date) throws(Failure) -> (expiry: Date, notBefore: Date?) {
        guard let expiry = jwt.date("exp") else { throw .missingExpiry }
        let notBefore = jwt.date("nbf")
        let end = expiry.addingTimeInterval(clockSkew)
        if validAtExpiry ? now > end : now >= end { throw .outOfRange(expiry: expiry, notBefore: notBefore, early: false) }
        if checksNotBefore, let notBefore, notBefore.addingTimeInterval(-clockSkew) > now {
            throw .outOfRange(expiry: expiry, notBefore: notBefore, early: true)
        }
        return (expiry, notBefore)
    }

    /// The published signing keys a token of ours names by `kid` (or `x5t`); all of them when it names none.
    package static func candidates(for jwt: ParsedJWT, among keys: [SigningCredential]) -> [RSAPublicKey] {
        named(by: jwt, among: keys).map(\.privateKey.publicKey)
    }

    /// The keys the token's header names (`kid`, else `x5t`); all of them when it names none.
    package static func named(by jwt: ParsedJWT, among keys: [SigningCredential]) -> [SigningCredential] {
        let named = jwt.jws.keyID ?? jwt.jws.x5t
        return keys.filter { named == nil || $0.keyID == named }
    }
}

extension ParsedJWT {
    /// `aud` as one string or an array of them.
    package var audiences: [String] {
        if let text = claims["aud"]?.string { return [text] }
        return claims["aud"]?.array?.compactMap(\.string) ?? []
    }
}
