private import COpenSSL
import LocatedJSON

/// JSON Web Encryption, compact form, in the one suite the service encrypts with: the content key wrapped
/// with RSA-OAEP (SHA-1, RFC 7518 §4.3), the content in AES-128-CBC with HMAC-SHA-256 (A128CBC-HS256,
/// §5.2.3), compressed first (`zip: DEF`, RFC 7516 §4.1.3). External ID's encrypted password context for an
/// OnPasswordSubmit extension has the header `{"alg":"RSA-OAEP","enc":"A128CBC-HS256","x5t":…,"zip":"DEF"}`
/// (cljung/CustomAuthenticationExtension, README.md, "Encrypted Password Token").
package enum JWE {
    /// `plaintext` encrypted to `certificate`'s key, its `x5t` the certificate's SHA-1 thumbprint.
    package static func encrypt(_ plaintext: [UInt8], to certificate: X509Certificate) throws -> String {
        let header = "{\"alg\":\"RSA-OAEP\",\"enc\":\"A128CBC-HS256\",\"x5t\":\"\(Base64URL.encode(certificate.sha1Thumbprint))\",\"zip\":\"DEF\"}"
        let encodedHeader = Base64URL.encode(Array(header.utf8))
        let contentKey = SecureRandom.bytes(count: 32)
        let iv = SecureRandom.bytes(count: 16)
        let wrappedKey = try certificate.publicKey.encryptOAEP(contentKey)
        let ciphertext = try AESCBC.encrypt(Deflate.stored(plaintext), key: Array(contentKey[16...]), iv: iv)
        let tag = authenticationTag(macKey: Array(contentKey[..<16]), aad: Array(encodedHeader.utf8), iv: iv, ciphertext: ciphertext)
        return [encodedHeader, Base64URL.encode(wrappedKey), Base64URL.encode(iv), Base64URL.encode(ciphertext), Base64URL.encode(tag)]
            .joined(separator: ".")
    }

    /// The plaintext of a token `encrypt` made, with `key` the private key of its certificate; nil when it
    /// is not one (another suite, a wrong key, a changed byte).
    package static func decrypt(_ token: String, with key: RSAPrivateKey) -> [UInt8]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, let headerBytes = Base64URL.decode(parts[0]), let header = LocatedJSON.object(body: headerBytes),
              header["alg"]?.string == "RSA-OAEP", header["enc"]?.string == "A128CBC-HS256",
              let wrapped = Base64URL.decode(parts[1]), let iv = Base64URL.decode(parts[2]),
              let ciphertext = Base64URL.decode(parts[3]), let tag = Base64URL.decode(parts[4]),
              let contentKey = key.decryptOAEP(wrapped), contentKey.count == 32 else { return nil }
        let expected = authenticationTag(macKey: Array(contentKey[..<16]), aad: Array(parts[0].utf8), iv: iv, ciphertext: ciphertext)
        guard ConstantTime.equals(expected, tag), let compressed = AESCBC.decrypt(ciphertext, key: Array(contentKey[16...]), iv: iv) else { return nil }
        return header["zip"]?.string == "DEF" ? Deflate.inflateStored(compressed) : compressed
    }

    /// RFC 7518 §5.2.2.1: HMAC-SHA-256 over AAD ‖ IV ‖ ciphertext ‖ AAD's length in bits (64-bit big-endian),
    /// its first 16 bytes.
    static func authenticationTag(macKey: [UInt8], aad: [UInt8], iv: [UInt8], ciphertext: [UInt8]) -> [UInt8] {
        let bits = UInt64(aad.count) * 8
        let length = (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
        return Array(HMAC.sha256(key: macKey, aad + iv + ciphertext + length).prefix(16))
    }
}

/// RFC 1951's stored blocks: a valid DEFLATE stream that every inflater reads. FakeEntra links no
/// compression library, and a password context is a few hundred bytes, so nothing is lost by not
/// compressing it.
enum Deflate {
    static let largestBlock = 65_535

    static func stored(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var start = 0
        repeat {
            let end = min(start + largestBlock, bytes.count)
            let length = UInt16(end - start)
            output.append(end == bytes.count ? 1 : 0)   // BFINAL on the last block, BTYPE 00
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            output += bytes[start..<end]
            start = end
        } while start < bytes.count
        return output
    }

    /// The bytes of a stream of stored blocks (what `stored` writes); nil for any other stream.
    static func inflateStored(_ stream: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        var index = 0
        while index + 5 <= stream.count {
            let header = stream[index]
            guard header & 0b110 == 0 else { return nil }
            let length = Int(stream[index + 1]) | Int(stream[index + 2]) << 8
            let complement = Int(stream[index + 3]) | Int(stream[index + 4]) << 8
            guard length ^ complement == 0xFFFF, index + 5 + length <= stream.count else { return nil }
            output += stream[(index + 5)..<(index + 5 + length)]
            index += 5 + length
            if header & 1 == 1 { return index == stream.count ? output : nil }
        }
        return nil
    }
}

/// HMAC through OpenSSL's one-shot MAC.
enum HMAC {
    static func sha256(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var length = 0
        var output = [UInt8](repeating: 0, count: 32)
        let done = output.withUnsafeMutableBufferPointer { out in
            EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, key, key.count, data, data.count, out.baseAddress, out.count, &length)
        }
        // A built-in MAC over memory fails only when the library itself is broken.
        precondition(done != nil && length == 32, "EVP_Q_mac failed: \(OpenSSLErrorQueue.drain())")
        return output
    }
}

/// AES-128-CBC with PKCS#7 padding.
enum AESCBC {
    static func encrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        guard let output = run(plaintext, key: key, iv: iv, encrypting: true) else { throw CryptoError.openSSL(.encryption, "AES-128-CBC encryption failed") }
        return output
    }

    static func decrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) -> [UInt8]? {
        defer { OpenSSLErrorQueue.clear() }   // bad padding is an answer, not an error
        return run(ciphertext, key: key, iv: iv, encrypting: false)
    }

    private static func run(_ input: [UInt8], key: [UInt8], iv: [UInt8], encrypting: Bool) -> [UInt8]? {
        guard key.count == 16, iv.count == 16, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, EVP_aes_128_cbc(), nil, key, iv, encrypting ? 1 : 0) == 1 else { return nil }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0, final: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { out in
            EVP_CipherUpdate(context, out.baseAddress, &written, input, Int32(input.count)) == 1
                && EVP_CipherFinal_ex(context, out.baseAddress! + Int(written), &final) == 1
        }
        guard ok else { return nil }
        return Array(output.prefix(Int(written + final)))
    }
}

extension RSAPublicKey {
    /// RSAES-OAEP with SHA-1 and MGF1-SHA-1 (JWE `RSA-OAEP`).
    package func encryptOAEP(_ plaintext: [UInt8]) throws -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let output = OAEP.run(backing.pointer, plaintext, encrypting: true) else { throw CryptoError.openSSL(.encryption, "RSA-OAEP encryption failed") }
        return output
    }
}

extension RSAPrivateKey {
    /// What `RSAPublicKey.encryptOAEP` encrypted; nil when this key did not encrypt it.
    package func decryptOAEP(_ ciphertext: [UInt8]) -> [UInt8]? {
        defer { OpenSSLErrorQueue.clear() }
        return OAEP.run(backing.pointer, ciphertext, encrypting: false)
    }
}

enum OAEP {
    static func run(_ key: OpaquePointer, _ input: [UInt8], encrypting: Bool) -> [UInt8]? {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        guard (encrypting ? EVP_PKEY_encrypt_init(context) : EVP_PKEY_decrypt_init(context)) == 1,
              EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1 else { return nil }
        var length = 0
        let sized = encrypting ? EVP_PKEY_encrypt(context, nil, &length, input, input.count) : EVP_PKEY_decrypt(context, nil, &length, input, input.count)
        guard sized == 1 else { return nil }
        var output = [UInt8](repeating: 0, count: length)
        let done = output.withUnsafeMutableBufferPointer { out in
            encrypting ? EVP_PKEY_encrypt(context, out.baseAddress, &length, input, input.count)
                : EVP_PKEY_decrypt(context, out.baseAddress, &length, input, input.count)
        }
        guard done == 1 else { return nil }
        return Array(output.prefix(length))
    }
}
