import EntraCrypto
import FoundationGaps

/// A secret handle (refresh token, authorization code, device code) as the stores key it: 128 bits of its
/// SHA-256. Fixed-size and inline, so a million refresh tokens do not keep a million 131-byte strings, and
/// a store written to disk never holds a handle a client could present.
package struct HandleDigest: Hashable, Sendable {
    package let high: UInt64
    package let low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    package init(_ handle: String) {
        let digest = Digest.sha256(handle.utf8)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(digest[index])
            low = low << 8 | UInt64(digest[index + 8])
        }
        self.init(high: high, low: low)
    }
}

/// Stores of secret handles are read and written by the handle a client presents.
extension ExpiringStore where Key == HandleDigest {
    package subscript(handle: String) -> Value? {
        get { self[HandleDigest(handle)] }
        set { self[HandleDigest(handle)] = newValue }
    }

    package func wasEvicted(handle: String) -> Bool { wasEvicted(HandleDigest(handle)) }

    @discardableResult
    package mutating func removeValue(forHandle handle: String) -> Value? {
        removeValue(forKey: HandleDigest(handle))
    }
}
