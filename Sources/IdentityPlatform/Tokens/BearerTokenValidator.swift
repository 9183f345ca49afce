package import EntraCrypto
package import FoundationGaps
import LocatedJSON

/// Why a resource refused a bearer token; each case carries the message Graph sends with 401
/// `InvalidAuthenticationToken` (IdentityModel's words, which Resource Manager quotes too).
package enum TokenRejection: Error, Sendable, Equatable {
    case empty
    case malformed
    case invalidSignature
    case missingExpiry
    case expired
    case notYetValid
    case invalidAudience
    case invalidIssuer
    case missingClaims

    package var message: String {
        switch self {
        case .empty: "Access token is empty."
        case .malformed:
            "IDX14100: JWT is not well formed, there are no dots (.).\nThe token needs to be in JWS or JWE Compact Serialization Format. "
                + "(JWS): 'EncodedHeader.EncodedPayload.EncodedSignature'. (JWE): 'EncodedProtectedHeader.EncodedEncryptedKey."
                + "EncodedInitializationVector.EncodedCiphertext.EncodedAuthenticationTag'."
        case .invalidSignature: "Signature is invalid."
        case .missingExpiry: "Lifetime validation failed, the token is missing an Expiration Time."
        case .expired: "Lifetime validation failed, the token is expired."
        case .notYetValid: "Lifetime validation failed, the token is not yet valid."
        case .invalidAudience: "Access token validation failure. Invalid audience."
        case .invalidIssuer: "Access token validation failure. Invalid issuer."
        case .missingClaims: "Access token validation failure."
        }
    }
}

/// Checks a bearer token the way Graph and Resource Manager do: well-formed JWS, RS256 signature by one of
/// our published keys (found by `kid`, else `x5t`, else tried in turn), lifetime on the platform clock with a
/// tolerance (`JWTVerifier.bearer`), an audience of the resource's, and an issuer of ours: `<any origin>/<tid>/` or
/// `<any origin>/<tid>/v2.0` whose tenant is the token's `tid` and exists in the directory. The origin is not
/// compared because a client may reach the login host and Graph under different names (hosts-file override).
package struct BearerTokenValidator: Sendable {
    /// Tolerance on `exp` and `nbf`. Graph uses IdentityModel's default of five minutes, so a token stays usable
    /// up to 5 minutes after `exp`; set 0 for exact expiry.
    package var clockSkew: TimeInterval
    /// The audiences accepted (lower-cased): the resource's app id and identifier URIs.
    package var audiences: Set<String>

    package init(clockSkew: TimeInterval = 300, audiences: Set<String>) {
        self.clockSkew = clockSkew
        self.audiences = Set(audiences.map { $0.lowercased() })
    }

    package func validate(authorization: String?, keys: [SigningCredential], directory: Directory, now: Date) -> Result<BearerAccessToken, TokenRejection> {
        Result { () throws(TokenRejection) in try validated(authorization: authorization, keys: keys, directory: directory, now: now) }
    }

    private func validated(authorization: String?, keys: [SigningCredential], directory: Directory, now: Date) throws(TokenRejection) -> BearerAccessToken {
        let compact = try Self.bearerToken(authorization)
        guard compact.contains("."), let jwt = ParsedJWT(compact) else { throw .malformed }
        let claims = jwt.claims
        let verifier = JWTVerifier.bearer(clockSkew: clockSkew)
        guard verifier.isSigned(jwt, byOneOf: JWTVerifier.candidates(for: jwt, among: keys)) else { throw .invalidSignature }

        guard let audience = jwt.audiences.first(where: { self.audiences.contains($0.lowercased()) }) else { throw .invalidAudience }

        let exp: Date, nbf: Date?
        do {
            (exp, nbf) = try verifier.checkValidity(of: jwt, now: now)
        } catch {
            switch error {
            case .missingExpiry: throw .missingExpiry
            case .outOfRange(_, _, early: true): throw .notYetValid
            default: throw .expired
            }
        }

        guard let tid = claims["tid"]?.string?.lowercased(), let issuer = claims["iss"]?.string,
              Issuer.tenant(in: issuer) == tid, directory.tenant(id: tid) != nil
        else { throw .invalidIssuer }

        let scopes = claims["scp"]?.string.map { $0.split(separator: " ").map(String.init) } ?? []
        // `idtyp` decides when present (a user token may carry an empty `scp`); otherwise no `scp` means app-only.
        let isApp = claims["idtyp"]?.string.map { $0.lowercased() == "app" } ?? (claims["scp"] == nil)
        guard let oid = claims["oid"]?.string, !oid.isEmpty,
              let appID = claims["appid"]?.string ?? claims["azp"]?.string
        else { throw .missingClaims }

        return BearerAccessToken(
            kind: isApp ? .application : .delegated, tenantID: tid, objectID: oid, appID: appID,
            subject: claims["sub"]?.string, scopes: isApp ? [] : scopes, roles: Self.strings(claims["roles"]),
            clientCapabilities: Self.strings(claims["xms_cc"]), issuer: issuer, audience: audience,
            issuedAt: claims["iat"]?.numericDate, notBefore: nbf, expiresAt: exp
        )
    }

    /// The token after `Bearer ` (scheme compared ignoring case); anything else counts as no token.
    static func bearerToken(_ authorization: String?) throws(TokenRejection) -> String {
        guard let authorization else { throw .empty }
        let trimmed = authorization.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 6, trimmed.prefix(6).lowercased() == "bearer" else { throw .empty }
        let token = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { throw .empty }
        return token
    }

    /// One string or the strings of an array (others skipped).
    private static func strings(_ value: JSONValue?) -> [String] {
        if let text = value?.string { return [text] }
        return value?.array?.compactMap(\.string) ?? []
    }
}
