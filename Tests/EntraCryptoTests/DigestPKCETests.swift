import Testing
@testable import EntraCrypto

@Suite struct DigestTests {
    @Test func sha256OfABC() {   // FIPS 180-2 appendix B.1
        #expect(hex(Digest.sha256(Array("abc".utf8))) == "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD")
    }

    @Test func sha1OfABC() {     // FIPS 180-2 appendix A.1
        #expect(hex(Digest.sha1(Array("abc".utf8))) == "A9993E364706816ABA3E25717850C26C9CD0D89D")
    }

    /// Contiguous input is hashed in place, anything else copied first: the same digest either way.
    @Test func sha256OfTextBytesArraysAndOtherCollectionsAgree() {
        let text = String(repeating: "abc", count: 700)
        let expected = Digest.sha256(Array(text.utf8))
        #expect(Digest.sha256(text.utf8) == expected)
        #expect(Digest.sha256(Array(text.utf8)[...]) == expected)
        #expect(Digest.sha256(text.utf8.lazy.map { $0 }) == expected)
        #expect(Digest.sha256(repeatElement(UInt8(7), count: 1000)) == Digest.sha256([UInt8](repeating: 7, count: 1000)))
        #expect(hex(Digest.sha256([UInt8]())) == "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855")   // FIPS 180-2, empty input
    }

    /// Random strings are encoded from the pool's block: every length has the right size, decodes to as
    /// many bytes, and two draws differ (past the largest pooled size too).
    @Test func randomStringsOfEveryPooledLength() {
        for count in [1, 2, 3, 16, 48, 96, 255, 256, 257, 600] {
            let first = SecureRandom.base64URLString(byteCount: count)
            #expect(first.utf8.count == Base64URL.encodedLength(count))
            #expect(Base64URL.decode(first)?.count == count)
            if count >= 16 { #expect(first != SecureRandom.base64URLString(byteCount: count)) }
        }
        #expect(SecureRandom.base64URLString(byteCount: 0) == "")
    }

    @Test func randomBytesHaveTheRequestedLengthAndDiffer() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        #expect(SecureRandom.bytes(count: 32).count == 32)
        #expect(SecureRandom.bytes(count: 32) != SecureRandom.bytes(count: 32))
        let text = SecureRandom.base64URLString(byteCount: 32)
        #expect(text.count == 43)
        #expect(Base64URL.decode(text)?.count == 32)
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), []))
        // Lengths differ where the longer input's extra bytes are zero: only the length tells them apart.
        #expect(!ConstantTime.equals([1, 2, 0], [1, 2]))
        #expect(!ConstantTime.equals([0], [UInt8]()))
        #expect(!ConstantTime.equals([UInt8](), [0]))
        #expect(ConstantTime.equals([1, 2, 3].lazy.map { $0 }, [1, 2, 3]), "a collection without contiguous storage")
        #expect(!ConstantTime.equals([1, 2, 3].lazy.map { $0 }, [1, 2, 4]))
    }

    /// Hex digits written into the string's storage, after an optional prefix, for any collection of bytes.
    @Test func hexTextOfBytesSlicesAndAfterAPrefix() {
        let bytes: [UInt8] = [0x00, 0x0F, 0xA5, 0xFF, 0x10]
        #expect(Hex.lowercase(bytes) == "000fa5ff10")
        #expect(Hex.uppercase(bytes) == "000FA5FF10")
        #expect(Hex.lowercase(bytes.prefix(2), after: "sha256:") == "sha256:000f")
        #expect(Hex.lowercase([UInt8](), after: "p") == "p")
        #expect(Hex.lowercase(Digest.sha256(Array("abc".utf8)).prefix(8), after: "sha256:") == "sha256:ba7816bf8f01cfea")
    }

    /// A GUID is the first 16 bytes in `8-4-4-4-12` form; a random one comes straight from the pool.
    @Test func guidsOfBytesAndRandomGUIDs() {
        let bytes = (0..<17).map { UInt8($0 * 15) }
        #expect(Hex.guid(bytes) == "000f1e2d-3c4b-5a69-7887-96a5b4c3d2e1")
        let random = SecureRandom.guid()
        #expect(random.count == 36)
        #expect(random != SecureRandom.guid())
        #expect(random.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(random.allSatisfy { $0 == "-" || $0.isHexDigit && !$0.isUppercase })
    }

    /// Strings are compared by their UTF-8 bytes (so two spellings of `é` differ, as secrets should).
    @Test func constantTimeEqualityOfStrings() {
        #expect(ConstantTime.equals("bench-secret", "bench-secret"))
        #expect(!ConstantTime.equals("bench-secret", "bench-secreT"))
        #expect(!ConstantTime.equals("bench-secret", "bench-secre"))
        #expect(ConstantTime.equals("", ""))
        #expect(!ConstantTime.equals("", "x"))
        #expect(!ConstantTime.equals("a\u{0}", "a"))
        #expect(ConstantTime.equals("mot de passe é", "mot de passe é"))
        #expect(!ConstantTime.equals("\u{E9}", "e\u{301}"))
        let long = String(repeating: "s3cr3t", count: 40)
        #expect(ConstantTime.equals(long, String(repeating: "s3cr3t", count: 40)))
    }
}

@Suite struct PKCETests {
    // RFC 7636 appendix B.
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    @Test func rfc7636AppendixB() {
        #expect(PKCE.challenge(for: verifier, method: .s256) == challenge)
        #expect(PKCE.verify(verifier: verifier, challenge: challenge, method: .s256))
    }

    @Test func wrongVerifierOrMethodFails() {
        #expect(!PKCE.verify(verifier: verifier + "x", challenge: challenge, method: .s256))
        #expect(!PKCE.verify(verifier: verifier, challenge: challenge, method: .plain))
        #expect(!PKCE.verify(verifier: verifier, challenge: "", method: .s256))
    }

    @Test func plainComparesVerbatim() {
        #expect(PKCE.challenge(for: verifier, method: .plain) == verifier)
        #expect(PKCE.verify(verifier: verifier, challenge: verifier, method: .plain))
    }

    @Test func methodNamesMatchTheWire() {
        #expect(PKCEMethod(rawValue: "S256") == .s256)
        #expect(PKCEMethod(rawValue: "plain") == .plain)
        #expect(PKCEMethod(rawValue: "s256") == nil)
    }

    @Test func verifierGrammar() {
        #expect(PKCE.isWellFormed(verifier))
        #expect(PKCE.isWellFormed(String(repeating: "a", count: 43)))
        #expect(PKCE.isWellFormed(String(repeating: "~", count: 128)))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 42)))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 129)))
        #expect(!PKCE.isWellFormed(String(repeating: "a", count: 42) + "+"))
    }
}
