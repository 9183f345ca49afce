import Foundation
import Testing
@testable import EntraCrypto

/// RFC 7515 appendix A.2: the RSA key (as JWK members), the signing input and the expected signature.
enum RFC7515A2 {
    static let n = "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    static let e = "AQAB"
    static let d = "Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ"
    static let p = "4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2KKDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc"
    static let q = "uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_HlB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc"
    static let dp = "BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3QCLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCjn12Sk3vmAktV2zb34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0"
    static let dq = "h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnwgjMd2w9cjz3_-kyNlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU"
    static let qi = "IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U"
    static let header = #"{"alg":"RS256"}"#
    static let payload = "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}"
    static let compact = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"

    static func privateKey() throws -> RSAPrivateKey {
        func b(_ text: String) -> [UInt8] { Base64URL.decode(text)! }
        return try RSAPrivateKey(modulus: b(n), publicExponent: b(e), privateExponent: b(d), prime1: b(p), prime2: b(q),
                                 exponent1: b(dp), exponent2: b(dq), coefficient: b(qi))
    }
}

@Suite struct RSAKeyTests {
    @Test func rfc7515AppendixA2SignatureIsReproduced() throws {
        let key = try RFC7515A2.privateKey()
        let token = try JWS.signRS256(headerJSON: Array(RFC7515A2.header.utf8), payloadJSON: Array(RFC7515A2.payload.utf8), key: key)
        #expect(token == RFC7515A2.compact)
        let publicKey = try RSAPublicKey(modulus: Base64URL.decode(RFC7515A2.n)!, exponent: Base64URL.decode(RFC7515A2.e)!)
        #expect(publicKey == key.publicKey)
        #expect(JWS.verifyRS256(try #require(JWS.decode(RFC7515A2.compact)), key: publicKey))
    }

    @Test func privateKeyPEMRoundTripsAsPKCS8() throws {
        let pem = sharedKey.pem
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try RSAPrivateKey(pem: pem)
        #expect(reloaded.publicKey == sharedKey.publicKey)
        #expect(try reloaded.signSHA256([1, 2, 3]) == sharedKey.signSHA256([1, 2, 3]))
    }

    @Test func readsTraditionalRSAPrivateKeyPEM() throws {
        try withTemporaryDirectory { directory in
            try write(sharedKey.pem, to: "\(directory)/key.pem")
            let converted = try openssl(["rsa", "-in", "key.pem", "-traditional", "-out", "rsa.pem"], in: directory)
            #expect(converted.status == 0, "\(converted.errorOutput)")
            let traditional = try String(contentsOfFile: "\(directory)/rsa.pem", encoding: .utf8)
            #expect(traditional.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
            #expect(try RSAPrivateKey(pem: traditional).publicKey == sharedKey.publicKey)
        }
    }

    @Test func publicKeyPEMRoundTrips() throws {
        let pem = sharedKey.publicKey.pem
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(try RSAPublicKey(pem: pem) == sharedKey.publicKey)
        #expect(sharedKey.publicKey.bits == 2048)
    }

    @Test func signatureVerifiesWithOpenSSLCommandLine() throws {
        let message = Array("FakeEntra signs this".utf8)
        let signature = try sharedKey.signSHA256(message)
        #expect(signature.count == 256)
        try withTemporaryDirectory { directory in
            try write(sharedKey.publicKey.pem, to: "\(directory)/pub.pem")
            try write(message, to: "\(directory)/message")
            try write(signature, to: "\(directory)/sig")
            let good = try openssl(["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig", "message"], in: directory)
            #expect(good.status == 0, "\(good.errorOutput)")
            #expect(good.output.contains("Verified OK"))

            try write(message + [0x21], to: "\(directory)/tampered")
            let bad = try openssl(["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig", "tampered"], in: directory)
            #expect(bad.status != 0)
        }
    }

    @Test func openSSLSignatureVerifiesWithUs() throws {
        try withTemporaryDirectory { directory in
            try write(sharedKey.pem, to: "\(directory)/key.pem")
            try write(Array("hello".utf8), to: "\(directory)/message")
            let signed = try openssl(["dgst", "-sha256", "-sign", "key.pem", "-out", "sig", "message"], in: directory)
            #expect(signed.status == 0, "\(signed.errorOutput)")
            let signature = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(directory)/sig")))
            #expect(sharedKey.publicKey.verifySHA256(signature: signature, data: Array("hello".utf8)))
            #expect(!sharedKey.publicKey.verifySHA256(signature: signature, data: Array("hellO".utf8)))
            #expect(!sharedKey.publicKey.verifySHA256(signature: [], data: Array("hello".utf8)))
        }
    }

    @Test func modulusAndExponentMatchOpenSSL() throws {
        try withTemporaryDirectory { directory in
            try write(sharedKey.publicKey.pem, to: "\(directory)/pub.pem")
            let modulus = try openssl(["rsa", "-pubin", "-in", "pub.pem", "-noout", "-modulus"], in: directory)
            #expect(modulus.status == 0, "\(modulus.errorOutput)")
            #expect(modulus.output.trimmingCharacters(in: .whitespacesAndNewlines) == "Modulus=" + hex(sharedKey.publicKey.modulus))
            let text = try openssl(["rsa", "-pubin", "-in", "pub.pem", "-noout", "-text"], in: directory)
            #expect(text.output.contains("Exponent: 65537 (0x10001)"))
            #expect(sharedKey.publicKey.exponent == [0x01, 0x00, 0x01])
            #expect(sharedKey.publicKey.modulus.first != 0)
            #expect(sharedKey.publicKey.modulus.count == 256)
        }
    }

    /// Signers borrow contexts from the key's pool and hand them back: with 256 signatures from concurrent
    /// tasks, contexts are lent again (the pool keeps at most 16), and every signature is still the deterministic one.
    @Test func oneKeySignsAndVerifiesConcurrently() async throws {
        let messages = (0..<256).map { Array("message \($0)".utf8) }
        let signatures = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, message) in messages.enumerated() {
                group.addTask { (index, try sharedKey.signSHA256(message)) }
            }
            var results: [Int: [UInt8]] = [:]
            for try await (index, signature) in group { results[index] = signature }
            return results
        }
        for (index, message) in messages.enumerated() {
            #expect(sharedKey.publicKey.verifySHA256(signature: try #require(signatures[index]), data: message))
            #expect(try signatures[index] == sharedKey.signSHA256(message))   // PKCS#1 v1.5 is deterministic
        }
    }

    /// Signers that overlap sign with copies of the key, one each: OpenSSL 3.0 guards a key's blinding with
    /// its lock, and signers sharing one key waited on each other.
    @Test func overlappingSignersEachSignWithACopyOfTheKey() throws {
        let keys = try sharedKey.signingTemplate.keysOfTwoOverlappingSigners()
        let first = try #require(keys.first), second = try #require(keys.second)
        #expect(first != second)
        #expect(first != sharedKey.backing.pointer)
        #expect(second != sharedKey.backing.pointer)
    }

    /// A signature OpenSSL refuses (a digest of the wrong length) throws, and signing goes on after it (the
    /// failed context is freed, which this cannot observe: OpenSSL would have let it sign again).
    @Test func aRefusedSignatureThrowsAndSigningGoesOn() throws {
        #expect(throws: CryptoError.self) { try sharedKey.signSHA256(digest: [1, 2, 3]) }
        let message = Array("after a failure".utf8)
        #expect(sharedKey.publicKey.verifySHA256(signature: try sharedKey.signSHA256(message), data: message))
    }

    @Test func generatedKeysDiffer() throws {
        #expect(try RSAPrivateKey.generate().publicKey != sharedKey.publicKey)
    }

    @Test(arguments: [1024, 1000, 100_000])
    func refusesUnreasonableKeySizes(bits: Int) {
        #expect(throws: CryptoError(.keyGeneration, "")) { try RSAPrivateKey.generate(bits: bits) }
    }
}

@Suite struct BadKeyInputTests {
    @Test(arguments: [
        "", "garbage", "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        "-----BEGIN PRIVATE KEY-----\nnot base64 at all!!\n-----END PRIVATE KEY-----\n",
    ])
    func badPrivateKeyPEMThrows(pem: String) {
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: pem) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(pem: pem) }
        #expect(throws: CryptoError.self) { try X509Certificate(pem: pem) }
    }

    @Test func publicKeyIsNotAPrivateKey() {
        #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: sharedKey.publicKey.pem) }
    }

    @Test func encryptedKeyIsRefusedWithoutPrompting() throws {
        try withTemporaryDirectory { directory in
            try write(sharedKey.pem, to: "\(directory)/key.pem")
            let encrypted = try openssl(["pkey", "-in", "key.pem", "-aes256", "-passout", "pass:secret", "-out", "enc.pem"], in: directory)
            #expect(encrypted.status == 0, "\(encrypted.errorOutput)")
            let pem = try String(contentsOfFile: "\(directory)/enc.pem", encoding: .utf8)
            #expect(throws: CryptoError(.invalidPEM, "")) { try RSAPrivateKey(pem: pem) }
        }
    }

    @Test func nonRSAKeyIsRejectedAsUnsupported() throws {
        try withTemporaryDirectory { directory in
            let generated = try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ec.pem"], in: directory)
            #expect(generated.status == 0, "\(generated.errorOutput)")
            let pem = try String(contentsOfFile: "\(directory)/ec.pem", encoding: .utf8)
            let error = #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: pem) }
            #expect(error?.code == .unsupportedKey)
            #expect(error?.description.contains("EC") == true)
        }
    }

    @Test func errorsCarryOpenSSLReasonAndLocation() {
        let error = #expect(throws: CryptoError.self) { try RSAPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(error?.code == .invalidPEM)
        #expect(error?.reason.contains("error:") == true)   // OpenSSL's queue was read at the failure site
        #expect(error?.file.hasPrefix("EntraCrypto/") == true)
    }

    @Test func zeroOrEmptyKeyNumbersAreRejected() {
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: [], exponent: [1, 0, 1]) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: [0, 0], exponent: [1, 0, 1]) }
    }
}
