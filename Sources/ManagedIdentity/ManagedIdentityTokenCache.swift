import EntraCrypto
import FoundationGaps
import IdentityPlatform
import Synchronization

/// The tokens a managed identity's endpoint has handed out, kept as the platform keeps them ("the
/// managed identities subsystem caches tokens", learn.microsoft.com, How to use managed identities on an
/// Azure VM to acquire an access token): the same token for the same identity, resource and client
/// capabilities until it is within five minutes of expiry, unless the client names it as the one to
/// replace. That is how a managed identity's token is revoked: after a claims challenge MSAL asks again
/// with `token_sha256_to_refresh`, the SHA-256 of the token the resource refused, in hex (MSAL for
/// Python's `managed_identity.py`), and gets a new one.
final class ManagedIdentityTokenCache: Sendable {
    struct Key: Hashable, Sendable {
        var clientID: String
        var resource: String
        var capabilities: [String]
    }

    struct Entry: Sendable {
        var token: String
        var expiresOn: Date
        var issuedAt: Date
        var signingKeyID: String
    }

    private let entries = Mutex<[Key: Entry]>([:])
    /// A token this close to its expiry is replaced, as MSAL counts it expired.
    static let renewalWindow: TimeInterval = 5 * 60

    /// The cached entry for `key` while it may still be handed out; nil when a new token is due.
    func reusable(_ key: Key, now: Date, refreshing refusedHash: String?) -> Entry? {
        guard let entry = entries.withLock({ $0[key] }), entry.expiresOn.timeIntervalSince(now) > Self.renewalWindow else { return nil }
        if let refusedHash, refusedHash.lowercased() == Self.sha256Hex(entry.token) { return nil }
        return entry
    }

    /// The token to hand out for `key`: the kept one while it may be, else one `mint` makes (kept from now
    /// on). A kept token whose signing key has left the JWKS (a rollover) would no longer validate: a new
    /// one then.
    func token(_ key: Key, now: Date, refreshing refusedHash: String?, keys: SigningKeyRing,
               mint: () throws(TokenMintError) -> MintedToken) throws(TokenMintError) -> Entry {
        if let kept = reusable(key, now: now, refreshing: refusedHash), keys.credential(keyID: kept.signingKeyID, at: now) != nil {
            return kept
        }
        let token = try mint()
        let entry = Entry(token: token.token, expiresOn: token.expiresOn, issuedAt: now, signingKeyID: keys.current.keyID)
        keep(entry, for: key)
        return entry
    }

    /// Keeps `entry` and lets go of the tokens that have expired.
    func keep(_ entry: Entry, for key: Key) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.expiresOn > entry.issuedAt }
            entries[key] = entry
        }
    }

    static func sha256Hex(_ token: String) -> String {
        Hex.lowercase(Digest.sha256(Array(token.utf8)))
    }
}
