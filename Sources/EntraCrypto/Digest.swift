private import COpenSSL
import Synchronization

/// One-shot message digests.
package enum Digest {
    package static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] { digest(bytes, sha256Algorithm.pointer) }
    package static func sha1(_ bytes: some Collection<UInt8>) -> [UInt8] { digest(bytes, sha1Algorithm.pointer) }

    /// Fetched once: `EVP_sha256()` makes every `EVP_Digest` look the implementation up again in
    /// OpenSSL 3's provider tables, which costs more than hashing a short input (a GUID's seed, a token).
    static let sha256Algorithm = FetchedDigest(name: "SHA256", fallback: EVP_sha256())
    private static let sha1Algorithm = FetchedDigest(name: "SHA1", fallback: EVP_sha1())

    private static func digest(_ bytes: some Collection<UInt8>, _ algorithm: OpaquePointer?) -> [UInt8] {
        // Hashed where the bytes are (a token is over a kilobyte); copied first only when not contiguous.
        if let digest = bytes.withContiguousStorageIfAvailable({ digest(UnsafeRawBufferPointer($0), algorithm) }) { return digest }
        return Array(bytes).withUnsafeBytes { digest($0, algorithm) }
    }

    private static func digest(_ input: UnsafeRawBufferPointer, _ algorithm: OpaquePointer?) -> [UInt8] {
        output("EVP_Digest") { EVP_Digest(input.baseAddress, input.count, $0, &$1, algorithm, nil) }
    }

    /// A digest that `produce` writes, with its length, into a buffer of `EVP_MAX_MD_SIZE` bytes. A built-in
    /// digest over memory only fails when the library itself is broken (no default provider); carrying on
    /// would hand out wrong thumbprints, so that stops loudly.
    static func output(_ function: String, _ produce: (UnsafeMutablePointer<UInt8>?, inout UInt32) -> Int32) -> [UInt8] {
        var ok: Int32 = 0
        let output = [UInt8](unsafeUninitializedCapacity: Int(EVP_MAX_MD_SIZE)) { buffer, count in
            var length: UInt32 = 0
            ok = produce(buffer.baseAddress, &length)
            count = ok == 1 ? Int(length) : 0
        }
        precondition(ok == 1, "\(function) failed: \(OpenSSLErrorQueue.drain())")
        return output
    }
}

/// SHA-256 fed piece by piece, whose digest can be read midway: a token's signature is made over the
/// digest of its first two parts, and its receipt names it by the digest of all three, so the first
/// two are hashed once for both.
final class SHA256Stream {
    private let context: OpaquePointer
    private var isFinished = false

    init() {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        self.context = context
        // As in `Digest`: a built-in digest only fails when the library itself is broken.
        precondition(EVP_DigestInit_ex(context, Digest.sha256Algorithm.pointer, nil) == 1, "EVP_DigestInit_ex failed: \(OpenSSLErrorQueue.drain())")
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!isFinished, "SHA256Stream fed after finish()")
        precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "EVP_DigestUpdate failed: \(OpenSSLErrorQueue.drain())")
    }

    /// The digest of what was fed so far; the stream goes on.
    func digestSoFar() -> [UInt8] {
        precondition(!isFinished, "SHA256Stream read after finish()")
        guard let copy = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(copy) }
        precondition(EVP_MD_CTX_copy_ex(copy, context) == 1, "EVP_MD_CTX_copy_ex failed: \(OpenSSLErrorQueue.drain())")
        return Self.final(copy)
    }

    /// The digest of everything fed, once; nothing may be fed after.
    func finish() -> [UInt8] {
        precondition(!isFinished, "SHA256Stream finished twice")
        isFinished = true
        return Self.final(context)
    }

    private static func final(_ context: OpaquePointer) -> [UInt8] {
        Digest.output("EVP_DigestFinal_ex") { EVP_DigestFinal_ex(context, $0, &$1) }
    }
}

/// An `EVP_MD` fetched from the default provider, kept for the life of the process (never freed: it
/// is shared by every thread, and OpenSSL's fetched methods are immutable and reference counted).
struct FetchedDigest: @unchecked Sendable {
    let pointer: OpaquePointer?

    init(name: String, fallback: OpaquePointer?) {
        pointer = EVP_MD_fetch(nil, name, nil) ?? fallback
    }
}

/// Bytes from OpenSSL's CSPRNG.
package enum SecureRandom {
    package static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        guard count > 0 else { return [] }
        guard count <= RandomPool.largestServed else { return drawn(count: count) }
        return pool.withLock { $0.take(count) }
    }

    /// A URL-safe random string of `byteCount` bytes (authorization codes, nonces), after `prefix` and
    /// before `suffix` in the same string (a refresh token's `1.A`, a token's `rh`).
    package static func base64URLString(byteCount: Int, prefix: StaticString = "", suffix: StaticString = "") -> String {
        precondition(byteCount >= 0, "negative byte count")
        guard byteCount > 0, byteCount <= RandomPool.largestServed else {
            return bytes(count: byteCount).withUnsafeBufferPointer { Base64URL.encode($0, prefix: prefix, suffix: suffix) }
        }
        // Encoded from the pool's block itself: a token asks for three of these.
        return pool.withLock { $0.take(byteCount) { (random: UnsafeBufferPointer<UInt8>) in Base64URL.encode(random, prefix: prefix, suffix: suffix) } }
    }

    /// A random GUID in lowercase hex (`x-ms-request-id`, correlation ids), formatted from the pool's
    /// block itself: every request asks for one or two.
    package static func guid() -> String {
        pool.withLock { $0.take(16) { (random: UnsafeBufferPointer<UInt8>) in Hex.guid(random) } }
    }

    private static func drawn(count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        let ok = output.withUnsafeMutableBytes { RAND_bytes($0.baseAddress, Int32($0.count)) }
        // Returning predictable "random" codes or secrets would be worse than stopping.
        precondition(ok == 1, "RAND_bytes failed: \(OpenSSLErrorQueue.drain())")
        return output
    }

    /// Small draws come from a block drawn from OpenSSL at once: every `RAND_bytes` call takes the
    /// DRBG's lock and makes a `getpid` system call (its fork check), and one token asks five times.
    private static let pool = Mutex(RandomPool())

    private struct RandomPool {
        static let largestServed = 256
        static let blockSize = 4096
        var block: [UInt8] = []
        var next = 0

        mutating func take(_ count: Int) -> [UInt8] {
            take(count) { Array($0) }
        }

        /// `use` reads the next `count` bytes, which are then zeroed in the block, so that it never
        /// keeps a copy of a secret made from them.
        mutating func take<Result>(_ count: Int, _ use: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
            if next + count > block.count {
                block = SecureRandom.drawn(count: Self.blockSize)
                next = 0
            }
            let start = next
            next += count
            return block.withUnsafeMutableBufferPointer { block in
                let taken = UnsafeMutableBufferPointer(rebasing: block[start..<(start + count)])
                defer { taken.update(repeating: 0) }
                return use(UnsafeBufferPointer(taken))
            }
        }
    }
}

/// Comparison whose time depends only on the longer input's length, never on where the inputs first
/// differ nor on whether their lengths match (client secrets, passwords, PKCE verifiers, control secrets).
package enum ConstantTime {
    package static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        if let compared = lhs.withContiguousStorageIfAvailable({ left in rhs.withContiguousStorageIfAvailable { right in equals(left, right) } }),
           let compared { return compared }
        return Array(lhs).withUnsafeBufferPointer { left in Array(rhs).withUnsafeBufferPointer { right in equals(left, right) } }
    }

    /// The strings' UTF-8 bytes, compared where they are stored (a client secret is checked on every
    /// client-credentials request: copying both into arrays cost two allocations).
    package static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(lhs.utf8, rhs.utf8)
    }

    private static func equals(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        var difference = UInt8(lhs.count == rhs.count ? 0 : 1)
        for index in 0..<max(lhs.count, rhs.count) {
            difference |= (index < lhs.count ? lhs[index] : 0) ^ (index < rhs.count ? rhs[index] : 0)
        }
        return difference == 0
    }
}
