package import ExchangeKernel
import FoundationGaps

extension Receipt.IssuedToken {
    /// A signed token as its claims say it (read from the claim set it was signed from, never from the token).
    /// `sha256`: the token's SHA-256 (its `id` is made from it).
    package init(kind: Kind, sha256: [UInt8], claims: ClaimSet, keyID: String?) {
        let scopes = claims.string("scp").map { $0.split(separator: " ").map(String.init) } ?? claims.strings("roles") ?? []
        let audience = claims.string("aud")
        self.init(
            kind: kind, id: Receipt.handleID(digest: sha256), subject: claims.string("sub"), objectID: claims.string("oid"),
            clientID: claims.string("appid") ?? claims.string("azp") ?? (kind == .id ? audience : nil),
            scopes: scopes, audience: audience,
            expiresAt: claims.integer("exp").map { Date(timeIntervalSince1970: TimeInterval($0)) }, keyID: keyID
        )
    }
}

extension ReceiptRecorder {
    /// A refresh token stored for `record`'s grant: a token issued and a handle created. Returns the
    /// token's `handleID`, hashed once for both and for the answer that carries the token.
    @discardableResult
    package func storedRefreshToken(_ token: String, record: RefreshTokenRecord) -> String {
        let grant = record.grant
        let id = Receipt.handleID(token)
        issued(Receipt.IssuedToken(kind: .refresh, id: id, subject: grant.userID, objectID: grant.userID,
                                   clientID: grant.clientID, scopes: grant.scopes, expiresAt: record.expiresAt), secret: token)
        update { $0.grants.append(.init(kind: .refreshToken, action: .created, id: id)) }
        return id
    }
}
