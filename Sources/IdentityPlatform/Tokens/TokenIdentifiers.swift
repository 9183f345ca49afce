import EntraCrypto
import EntraHTTP
package import FoundationGaps
import LocatedJSON

/// Identifiers that appear in tokens. Those derived from stable facts (a user and an app) stay the same
/// across restarts, as the real service's do; the per-token ones are random.
package enum TokenIdentifiers {
    /// The pairwise `sub`: one value per user and application, 43 base64url characters like Entra's.
    package static func pairwiseSubject(objectID: String, clientID: String) -> String {
        Base64URL.encode(Digest.sha256("sub|\(objectID.fastLowercased)|\(clientID.fastLowercased)".utf8))
    }

    /// `login_hint` claim: opaque, stable for the account, accepted back as `login_hint` by /authorize.
    package static func loginHint(objectID: String, tenantID: String) -> String {
        "O." + Base64URL.encode(JSONValue.object([("oid", .string(objectID)), ("tid", .string(tenantID))]).bytes)
    }

    /// Reads a `login_hint` claim value back (the browser endpoint accepts it as a hint): only the shape
    /// `loginHint` writes, an object of strings; anything else is an ordinary hint.
    package static func objectID(fromLoginHint hint: String) -> (objectID: String, tenantID: String)? {
        guard hint.hasPrefix("O."), let bytes = Base64URL.decode(String(hint.dropFirst(2))),
              let object = LocatedJSON.object(body: bytes), object.stringMembers.count == object.members?.count,
              let oid = object["oid"]?.string, let tid = object["tid"]?.string else { return nil }
        return (oid, tid)
    }

    /// The object id of an app's service principal in a tenant (`oid`/`sub` of app-only tokens): derived,
    /// so every world and every restart names the same one without keeping it anywhere.
    package static func servicePrincipalID(clientID: String, tenantID: String) -> String {
        guid(from: "sp|\(tenantID.fastLowercased)|\(clientID.fastLowercased)")
    }

    /// A stable session id when the grant carries none (`sid`).
    package static func sessionID(userID: String, authTime: Date) -> String {
        guid(from: "sid|\(userID)|\(Int(saturating: authTime.timeIntervalSince1970))")
    }

    /// A version-4-shaped GUID derived from `seed`.
    package static func guid(from seed: String) -> String {
        // The digest's first 16 bytes make the GUID (`Hex.guid` reads no further).
        var bytes = Digest.sha256(seed.utf8)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return Hex.guid(bytes)
    }

    /// `uti`: unique per token.
    package static func uniqueTokenID() -> String { SecureRandom.base64URLString(byteCount: 16) }

    /// `aio` and `rh`: opaque internal values on real tokens; random here.
    package static func opaqueInternal() -> String { SecureRandom.base64URLString(byteCount: 48) }
    package static func resourceHint() -> String { SecureRandom.base64URLString(byteCount: 48, prefix: "0.A", suffix: ".") }

    /// Refresh tokens are opaque, as Entra's are.
    package static func refreshToken() -> String { SecureRandom.base64URLString(byteCount: 96, prefix: "1.A") }

    /// `client_info`: base64url of `{"uid":oid,"utid":tid}` (MSAL's home account id is `uid.utid`).
    package static func clientInfo(objectID: String, tenantID: String) -> String {
        Base64URL.encode(JSONValue.object([("uid", .string(objectID)), ("utid", .string(tenantID))]).bytes)
    }
}
