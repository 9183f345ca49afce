package import EntraCrypto
package import Foundation
package import IdentityPlatform
import LocatedJSON

/// Why Graph refused a bearer token; each case carries the message the real service sends with
/// 401 `InvalidAuthenticationToken`.
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

/// Checks a bearer token the way Graph does: well-formed JWS, RS256 signature by one of our published keys
/// (found by `kid`, else `x5t`, else tried in turn), lifetime on the platform clock with a tolerance, audience
/// Graph (app id or `https://graph.microsoft.com`), and an issuer of ours: `<any origin>/<tid>/` or
/// `<any origin>/<tid>/v2.0` whose tenant is the token's `tid` and exists in the directory. The origin is not
/// compared because a client may reach the login host and Graph under different names (hosts-file override).
package struct GraphTokenValidator: Sendable {
    /// Tolerance on `exp` and `nbf`. Graph uses IdentityModel's default of five minutes, so a token stays usable
    /// up to 5 minutes after `exp`; set 0 for exact expiry.
    package var clockSkew: TimeInterval
    /// The audiences accepted (lower-cased): Graph's, or another resource's (Azure Resource Manager
    /// validates its tokens the same way, for its own audiences).
    package var audiences: Set<String>

    package init(clockSkew: TimeInterval = 300, audiences: Set<String> = GraphTokenValidator.graphAudiences) {
        self.clockSkew = clockSkew
        self.audiences = Set(audiences.map { $0.lowercased() })
    }

    package static let graphAudiences: Set<String> = [
        Resource.graphAppID, "https://graph.microsoft.com", "https://graph.microsoft.com/",
    ]

    package func validate(authorization: String?, keys: [SigningCredential], directory: Directory, now: Date) -> Result<GraphAccessToken, TokenRejection> {
        Result { () throws(TokenRejection) in try validated(authorization: authorization, keys: keys, directory: directory, now: now) }
    }

    private func validated(authorization: String?, keys: [SigningCredential], directory: Directory, now: Date) throws(TokenRejection) -> GraphAccessToken {
        let compact = try Self.bearerToken(authorization)
        guard compact.contains("."), let decoded = JWS.decode(compact),
              let claims = LocatedJSON.object(body: decoded.payloadJSON),
              LocatedJSON.object(body: decoded.headerJSON) != nil
        else { throw .malformed }

        guard decoded.algorithm == "RS256", Self.candidates(for: decoded, in: keys).contains(where: {
            JWS.verifyRS256(decoded, key: $0.privateKey.publicKey)
        }) else { throw .invalidSignature }

        let audiences = Self.strings(claims["aud"])
        guard audiences.contains(where: { self.audiences.contains($0.lowercased()) }) else { throw .invalidAudience }
        let audience = audiences.first { self.audiences.contains($0.lowercased()) } ?? ""

        guard let exp = claims["exp"]?.numericDate else { throw .missingExpiry }
        guard now.timeIntervalSince(exp) <= clockSkew else { throw .expired }
        let nbf = claims["nbf"]?.numericDate
        if let nbf, nbf.timeIntervalSince(now) > clockSkew { throw .notYetValid }

        guard let tid = claims["tid"]?.string?.lowercased(), let issuer = claims["iss"]?.string,
              Issuer.tenant(in: issuer) == tid, directory.tenant(id: tid) != nil
        else { throw .invalidIssuer }

        let scopes = claims["scp"]?.string.map { $0.split(separator: " ").map(String.init) } ?? []
        // `idtyp` decides when present (a user token may carry an empty `scp`); otherwise no `scp` means app-only.
        let isApp = claims["idtyp"]?.string.map { $0.lowercased() == "app" } ?? (claims["scp"] == nil)
        guard let oid = claims["oid"]?.string, !oid.isEmpty,
              let appID = claims["appid"]?.string ?? claims["azp"]?.string
        else { throw .missingClaims }

        return GraphAccessToken(
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

    /// Keys worth trying: the one the header names, else all of them.
    private static func candidates(for token: DecodedJWS, in keys: [SigningCredential]) -> [SigningCredential] {
        if let kid = token.keyID ?? token.x5t { return keys.filter { $0.keyID == kid } }
        return keys
    }

    /// One string or the strings of an array (others skipped).
    private static func strings(_ value: JSONValue?) -> [String] {
        if let text = value?.string { return [text] }
        return value?.array?.compactMap(\.string) ?? []
    }
}
