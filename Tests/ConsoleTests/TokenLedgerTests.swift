import Console
@testable import ControlPlane
import EntraCrypto
import EntraHTTP
import ExchangeKernel
import IdentityPlatform
import Testing

@Suite struct TokenLedgerTests {
    /// A digest whose first four bytes are `prefix` and whose rest tells it apart.
    static func digest(prefix: UInt32, tail: UInt8) -> [UInt8] {
        [UInt8(prefix >> 24), UInt8(prefix >> 16 & 0xFF), UInt8(prefix >> 8 & 0xFF), UInt8(prefix & 0xFF)]
            + [UInt8](repeating: tail, count: 28)
    }

    @Test func findsATokenByEightOrMoreHexDigitsOfItsDigest() {
        let ledger = TokenLedger()
        let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"
        ledger.record(token)
        let hex = Hex.lowercase(Digest.sha256(Array(token.utf8)))
        #expect(ledger.token(hashPrefix: String(hex.prefix(8))) == token)
        #expect(ledger.token(hashPrefix: String(hex.prefix(16)).uppercased()) == token)
        #expect(ledger.token(hashPrefix: hex) == token)
        #expect(ledger.token(hashPrefix: String(hex.prefix(7))) == nil)
        #expect(ledger.token(hashPrefix: String(hex.prefix(8)) + "x") == nil)
        #expect(ledger.token(hashPrefix: "zzzzzzzz") == nil)
        ledger.record(token)
        #expect(ledger.count == 1)
    }

    @Test func theOldestGoFirstOnceFull() {
        let ledger = TokenLedger(capacity: 3)
        let tokens = (0..<5).map { "token-\($0)" }
        for token in tokens { ledger.record(token) }
        #expect(ledger.count == 3)
        let hexes = tokens.map { Hex.lowercase(Digest.sha256(Array($0.utf8))) }
        #expect(hexes.map { ledger.token(hashPrefix: $0) } == [nil, nil, "token-2", "token-3", "token-4"])
    }

    @Test func tokensSharingAPrefixAreEachFoundAndEvictedInTurn() {
        let ledger = TokenLedger(capacity: 4)
        let shared: UInt32 = 0xABCD_EF01
        let digests = (0..<6).map { Self.digest(prefix: $0 == 3 ? 0x1234_5678 : shared, tail: UInt8($0)) }
        for (index, digest) in digests.enumerated() { ledger.record("t\(index)", sha256: digest) }
        // t0 and t1 were overwritten; t2, t4 and t5 share the prefix, t3 has its own.
        let found = digests.map { ledger.token(hashPrefix: Hex.lowercase($0)) }
        #expect(found == [nil, nil, "t2", "t3", "t4", "t5"])
        #expect(ledger.token(hashPrefix: "abcdef01") == "t5")
        #expect(ledger.token(hashPrefix: "12345678") == "t3")
    }

    /// Against a plain list with the same rules (no duplicates, oldest out first, newest wins a short
    /// prefix), over digests from eight prefixes, so chains grow, shrink and lose their heads and tails.
    @Test func agreesWithAPlainListOverManyRecords() {
        let capacity = 16
        let ledger = TokenLedger(capacity: capacity)
        var model: [(token: String, digest: [UInt8])] = []
        var seen: [[UInt8]] = []
        var mismatches: [String] = []
        var state: UInt64 = 7
        for step in 0..<1200 {
            // Knuth's MMIX congruential step: 320 digests (8 prefixes, 40 tails) in an order without a period
            // the ring's size could line up with; its high bits are the well-mixed ones.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let digest = Self.digest(prefix: UInt32(state >> 61) &* 0x0101_0101, tail: UInt8((state >> 33) % 40))
            let token = "token-\(step)"
            ledger.record(token, sha256: digest)
            if !model.contains(where: { $0.digest == digest }) {
                model.append((token, digest))
                if model.count > capacity { model.removeFirst() }
            }
            seen.append(digest)
            for digest in seen.suffix(40) {
                let hex = Hex.lowercase(digest)
                let expected = model.first { $0.digest == digest }?.token
                let expectedShort = model.last { Hex.lowercase($0.digest).hasPrefix(hex.prefix(8)) }?.token
                if ledger.token(hashPrefix: hex) != expected || ledger.token(hashPrefix: String(hex.prefix(8))) != expectedShort {
                    mismatches.append("step \(step), digest \(hex)")
                }
            }
            if ledger.count != model.count { mismatches.append("step \(step): \(ledger.count) tokens, expected \(model.count)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func observesTheTokensAReceiptSignedAndThoseARequestCarries() {
        let ledger = TokenLedger()
        let signed = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJhdWQiOiJhIn0.c2lnbmVk"
        let carried = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJhdWQiOiJiIn0.b3RoZXI"
        let recorder = ReceiptRecorder()
        recorder.issued(Receipt.IssuedToken(kind: .access, id: Receipt.handleID(signed)), secret: signed)
        recorder.update { $0.isComplete = true }
        let receipt = recorder.current
        let request = HTTPRequest(method: "POST", target: "/t", headers: ["Authorization": "Bearer \(carried)"])
        ledger.observe(request, HTTPResponse(status: .ok), receipt: receipt)
        #expect(ledger.token(hashPrefix: Hex.lowercase(Digest.sha256(Array(signed.utf8)))) == signed)
        #expect(ledger.token(hashPrefix: Hex.lowercase(Digest.sha256(Array(carried.utf8)))) == carried)
        #expect(ledger.count == 2)
    }
}
