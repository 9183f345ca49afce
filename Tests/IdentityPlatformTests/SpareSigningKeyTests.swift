@testable import EntraCrypto
import Foundation
import Synchronization
import Testing
@testable import IdentityPlatform

/// A scenario's key rollover must not generate an RSA key on the request path: the next key is made ahead
/// on a thread of its own. Checked by the thread that made it, not by timing.
@Suite struct SpareSigningKeyTests {
    /// Stands in for RSA key generation: hands out prepared credentials and notes the thread that asked.
    final class Generator: Sendable {
        let credentials: [SigningCredential]
        /// Which thread made each key (compared with the caller's, which is alive throughout the test).
        let made = Mutex<[(keyID: String, thread: ObjectIdentifier)]>([])

        init() throws {
            let key = try RSAPrivateKey.generate()
            credentials = try (0..<4).map { index in
                try SigningCredential.issue(for: key, commonName: "spare \(index)", validFor: 86400, now: Date(timeIntervalSince1970: 1_900_000_000 + Double(index)))
            }
        }

        func next() -> SigningCredential {
            made.withLock { made in
                let credential = credentials[made.count % credentials.count]
                made.append((credential.keyID, ObjectIdentifier(Thread.current)))
                return credential
            }
        }
    }

    @Test func theSpareIsMadeOffTheCallersThreadAndTakenWithoutGenerating() throws {
        let caller = ObjectIdentifier(Thread.current)
        let generator = try Generator()
        let spare = SpareSigningKey(generate: { generator.next() })
        #expect(!spare.isReady)
        spare.prepare()
        spare.waitUntilPrepared()
        #expect(spare.isReady)
        let first = try #require(generator.made.withLock { $0.count == 1 ? $0.first : nil })
        #expect(first.thread != caller, "made on a thread of its own")
        let taken = try spare.take()
        #expect(first.keyID == taken.keyID, "taken as made, not generated on the caller's thread")
        // Taking starts the next one, again off the caller's thread.
        spare.waitUntilPrepared()
        let made = generator.made.withLock { $0 }
        #expect(made.count == 2 && made.allSatisfy { $0.thread != caller })
    }

    @Test func withoutASpareTheCallerGeneratesOnce() throws {
        let generator = try Generator()
        let spare = SpareSigningKey(generate: { generator.next() })
        _ = try spare.take()
        spare.waitUntilPrepared()
        #expect(generator.made.withLock { $0.count } == 2, "one for the caller, one spare for next time")
        #expect(spare.isReady)
    }
}
