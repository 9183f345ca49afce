import EntraCrypto
package import EntraHTTP
import Foundation
package import IdentityPlatform
import Synchronization

/// The JWTs that crossed the wire recently, by SHA-256, so the console can decode a token the journal
/// shows only as `[redacted … sha256:…]`. The journal stays redacted (it is exported, shared, attached to
/// bug reports); the console, behind the control API's access rule, decodes what it names.
package final class TokenLedger: Sendable {
    struct Entry: Sendable {
        var token: String
        var hexDigest: String
    }

    private struct Store: Sendable {
        /// By the first eight hex digits of the digest (the journal's short hash is at least that long).
        var byPrefix: [String: [Entry]] = [:]
        /// Digests in the order seen, as a ring once full: `head` is the oldest.
        var order: [String] = []
        var head = 0
    }

    package let capacity: Int
    private let store = Mutex(Store())

    package init(capacity: Int = 4096) { self.capacity = max(1, capacity) }

    /// Records every JWT in the request (Authorization, query, form body) and those of the response: the
    /// receipt's when a platform handler answered (it names every token it signed), else the ones found in
    /// the body and `Location` (answers a scenario rule gave).
    package func observe(_ request: HTTPRequest, _ response: HTTPResponse, receipt: Receipt) {
        var found: [String] = []
        var hashed: [Receipt.SignedToken] = []
        if let authorization = request.headers["Authorization"] { found += JWTScanner.tokens(in: Array(authorization.utf8)) }
        if let query = request.rawQuery { found += JWTScanner.tokens(in: Array(query.utf8)) }
        if request.body.count <= Self.largestScannedBody { found += JWTScanner.tokens(in: request.body) }
        if receipt.isComplete {
            hashed = receipt.signedTokens
        } else {
            if let location = response.headers["Location"] { found += JWTScanner.tokens(in: Array(location.utf8)) }
            let type = response.headers["Content-Type"]?.lowercased() ?? ""
            if (type.contains("json") || type.hasPrefix("text/html")) && response.body.count <= Self.largestScannedBody {
                found += JWTScanner.tokens(in: response.body)
            }
        }
        for token in found { record(token) }
        for signed in hashed { record(signed.token, hexDigest: Hex.lowercase(signed.sha256)) }
    }

    static let largestScannedBody = 256 * 1024

    package func record(_ token: String) {
        record(token, hexDigest: Self.hexDigest(token))
    }

    private func record(_ token: String, hexDigest hex: String) {
        let prefix = String(hex.prefix(8))
        store.withLock { store in
            if store.byPrefix[prefix]?.contains(where: { $0.hexDigest == hex }) == true { return }
            store.byPrefix[prefix, default: []].append(Entry(token: token, hexDigest: hex))
            guard store.order.count >= capacity else {
                store.order.append(hex)
                return
            }
            // Full: the newest takes the oldest's place (O(1), where removeFirst moved every entry).
            let evicted = store.order[store.head]
            store.order[store.head] = hex
            store.head = (store.head + 1) % capacity
            let key = String(evicted.prefix(8))
            store.byPrefix[key]?.removeAll { $0.hexDigest == evicted }
            if store.byPrefix[key]?.isEmpty == true { store.byPrefix[key] = nil }
        }
    }

    /// The token whose SHA-256 (hex) starts with `hashPrefix` (at least eight digits), if seen.
    package func token(hashPrefix: String) -> String? {
        let wanted = hashPrefix.lowercased()
        guard wanted.count >= 8 else { return nil }
        return store.withLock { store in
            store.byPrefix[String(wanted.prefix(8))]?.first { $0.hexDigest.hasPrefix(wanted) }?.token
        }
    }

    package var count: Int { store.withLock { $0.order.count } }

    static func hexDigest(_ token: String) -> String {
        Hex.lowercase(Digest.sha256(Array(token.utf8)))
    }
}

/// Finds compact JWS tokens (`eyJ…` `.` … `.` …) in bytes without a regular expression engine: the
/// scan runs on every response and must not page in ICU.
enum JWTScanner {
    static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    static func tokens(in bytes: [UInt8]) -> [String] {
        var found: [String] = []
        var index = 0
        let count = bytes.count
        while index + 3 < count {
            guard bytes[index] == UInt8(ascii: "e"), bytes[index + 1] == UInt8(ascii: "y"), bytes[index + 2] == UInt8(ascii: "J"),
                  index == 0 || !isBase64URL(bytes[index - 1]) else {
                index += 1
                continue
            }
            var end = index
            var dots = 0
            var segmentLength = 0
            var valid = true
            while end < count {
                let byte = bytes[end]
                if isBase64URL(byte) {
                    segmentLength += 1
                } else if byte == UInt8(ascii: "."), dots < 2 {
                    if segmentLength == 0 { valid = false; break }
                    dots += 1
                    segmentLength = 0
                } else {
                    break
                }
                end += 1
            }
            if valid, dots == 2, segmentLength > 0 {
                let text = String(decoding: bytes[index..<end], as: UTF8.self)
                if let decoded = JWS.decode(text), decoded.algorithm != nil { found.append(text) }
            }
            index = max(end, index + 1)
        }
        return found
    }
}
