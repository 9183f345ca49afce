import EntraCrypto
package import EntraHTTP
import FoundationGaps
package import ExchangeKernel
import IdentityPlatform
import Synchronization

/// The JWTs that crossed the wire recently, by SHA-256, so the console can decode a token the journal
/// shows only as `[redacted … sha256:…]`. The journal stays redacted (it is exported, shared, attached to
/// bug reports); the console, behind the control API's access rule, decodes what it names.
///
/// Every token the server signs passes through here, so recording builds no text and, once the ring is
/// full, allocates nothing: the tokens sit in a ring of `capacity` slots, and the first four bytes of a
/// digest (the journal's short hash is at least eight hex digits) lead to the newest slot with that
/// prefix, each slot to the next older one.
package final class TokenLedger: Sendable {
    private struct Slot: Sendable {
        var token: String
        var sha256: [UInt8]
        /// The next older slot whose digest starts with the same four bytes, or -1.
        var older: Int
    }

    private struct Store: Sendable {
        /// A ring once full: `next` is where the next token goes, which is then the oldest.
        var slots: [Slot] = []
        var next = 0
        var newestByPrefix: [UInt32: Int] = [:]

        func find(_ prefix: UInt32, where matches: (Slot) -> Bool) -> Int? {
            var index = newestByPrefix[prefix] ?? -1
            // A chain holds each slot at most once; the bound keeps a broken one from looping.
            var steps = 0
            while index >= 0, steps < slots.count {
                if matches(slots[index]) { return index }
                index = slots[index].older
                steps += 1
            }
            return nil
        }

        /// Unlinks the slot at `index`, the oldest of its prefix (the ring overwrites oldest first).
        mutating func unlink(_ index: Int) {
            let prefix = TokenLedger.prefix(of: slots[index].sha256)
            guard var current = newestByPrefix[prefix] else { return }
            if current == index {
                newestByPrefix[prefix] = nil
                return
            }
            var steps = 0
            while slots[current].older >= 0, slots[current].older != index, steps < slots.count {
                current = slots[current].older
                steps += 1
            }
            slots[current].older = -1
        }
    }

    package let capacity: Int
    private let store = Mutex(Store())

    package init(capacity: Int = 4096) { self.capacity = max(1, capacity) }

    /// Records every JWT in the request (Authorization, query, form body) and those of the response: the
    /// receipt's when a platform handler answered (it names every token it signed), else the ones found in
    /// the body and `Location` (answers a scenario rule gave).
    package func observe(_ request: HTTPRequest, _ response: HTTPResponse, receipt: Receipt) {
        var found: [String] = []
        if let authorization = request.headers["Authorization"] { found += JWTScanner.tokens(in: Array(authorization.utf8)) }
        if let query = request.rawQuery { found += JWTScanner.tokens(in: Array(query.utf8)) }
        if request.body.count <= Self.largestScannedBody { found += JWTScanner.tokens(in: request.body) }
        if receipt.isComplete {
            for signed in receipt.signedTokens { record(signed.token, sha256: signed.sha256) }
        } else {
            if let location = response.headers["Location"] { found += JWTScanner.tokens(in: Array(location.utf8)) }
            let type = response.headers["Content-Type"]?.lowercased() ?? ""
            if (type.contains("json") || type.hasPrefix("text/html")) && response.body.count <= Self.largestScannedBody {
                found += JWTScanner.tokens(in: response.body)
            }
        }
        for token in found { record(token) }
    }

    static let largestScannedBody = 256 * 1024

    package func record(_ token: String) {
        record(token, sha256: Digest.sha256(token.utf8))
    }

    /// Records `token` under `sha256`, its digest (tests give made-up digests to share a prefix).
    package func record(_ token: String, sha256: [UInt8]) {
        guard sha256.count >= 4 else { return }
        let prefix = Self.prefix(of: sha256)
        store.withLock { store in
            if store.find(prefix, where: { $0.sha256 == sha256 }) != nil { return }
            let index = store.next
            let isFull = store.slots.count == capacity
            // Unlinked first: the slot overwritten may have been the newest of this very prefix.
            if isFull { store.unlink(index) }
            let slot = Slot(token: token, sha256: sha256, older: store.newestByPrefix[prefix] ?? -1)
            if isFull { store.slots[index] = slot } else { store.slots.append(slot) }
            store.newestByPrefix[prefix] = index
            store.next = (index + 1) % capacity
        }
    }

    /// The token whose SHA-256 (hex) starts with `hashPrefix` (at least eight digits), if seen; the most
    /// recent one when several do.
    package func token(hashPrefix: String) -> String? {
        let wanted = Array(hashPrefix.lowercased().utf8)
        guard wanted.count >= 8, let prefix = UInt32(String(decoding: wanted.prefix(8), as: UTF8.self), radix: 16) else { return nil }
        return store.withLock { store in
            store.find(prefix, where: { Array(Hex.lowercase($0.sha256).utf8).starts(with: wanted) }).map { store.slots[$0].token }
        }
    }

    package var count: Int { store.withLock { $0.slots.count } }

    static func prefix(of sha256: [UInt8]) -> UInt32 {
        UInt32(sha256[0]) << 24 | UInt32(sha256[1]) << 16 | UInt32(sha256[2]) << 8 | UInt32(sha256[3])
    }
}

/// Finds compact JWS tokens (`eyJ…` `.` … `.` …) in bytes without a regular expression engine: the
/// scan runs on every response and must not page in ICU.
package enum JWTScanner {
    static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    package static func tokens(in bytes: [UInt8]) -> [String] {
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
