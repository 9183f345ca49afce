import FoundationGaps
private import COpenSSL
private import COpenSSLShims

/// An RSA public key (SubjectPublicKeyInfo).
package struct RSAPublicKey: Sendable, Equatable {
    let backing: PKeyBacking
    package let modulus: [UInt8]
    package let exponent: [UInt8]

    /// Parses a `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo) PEM.
    package init(pem: String) throws {
        try self.init(taking: MemoryBIO.readPEM(pem, expecting: "a PEM public key (SubjectPublicKeyInfo)", as: .invalidPEM) {
            PEM_read_bio_PUBKEY($0, nil, FakeEntraShims_refusePassphrase, nil)
        })
    }

    /// Builds a key from JWK `n` and `e` (big-endian magnitudes).
    package init(modulus: [UInt8], exponent: [UInt8]) throws {
        OpenSSLErrorQueue.clear()
        let key = try KeyImport.rsa(selection: .publicKey, [("n", modulus), ("e", exponent)])
        try self.init(taking: key)
    }

    /// Takes ownership of `key`, which must be RSA (it is freed on failure too).
    init(taking key: OpaquePointer) throws {
        let backing = PKeyBacking(taking: key)
        guard EVP_PKEY_is_a(key, "RSA") == 1 else {
            throw CryptoError(.unsupportedKey, "expected an RSA key, got \(String(cString: EVP_PKEY_get0_type_name(key)))")
        }
        self.backing = backing
        self.modulus = try BigNumber.parameter(OSSL_PKEY_PARAM_RSA_N, of: key)
        self.exponent = try BigNumber.parameter(OSSL_PKEY_PARAM_RSA_E, of: key)
    }

    package var pem: String {
        // Encoding a valid in-memory key into a memory BIO cannot fail short of allocation failure.
        (try? MemoryBIO.writing("public key") { PEM_write_bio_PUBKEY($0, backing.pointer) }) ?? ""
    }

    /// Size of the modulus in bits.
    package var bits: Int { Int(EVP_PKEY_get_bits(backing.pointer)) }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS `RS256`, RFC 7518 §3.3).
    package func verifySHA256(signature: [UInt8], data: some Collection<UInt8>) -> Bool {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }   // a failed verification is an answer, not an error
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, CName.sha256, nil, nil, backing.pointer, nil) == 1 else { return false }
        let input = Array(data)
        let result = input.withUnsafeBufferPointer { message in
            signature.withUnsafeBufferPointer { signatureBytes in
                EVP_DigestVerify(context, signatureBytes.baseAddress, signatureBytes.count, message.baseAddress, message.count)
            }
        }
        return result == 1
    }

    package static func == (lhs: RSAPublicKey, rhs: RSAPublicKey) -> Bool {
        lhs.modulus == rhs.modulus && lhs.exponent == rhs.exponent
    }
}

/// Builds RSA keys from their numbers with `EVP_PKEY_fromdata` (OpenSSL 3's replacement for RSA_set0_*).
enum KeyImport {
    enum Selection { case publicKey, keyPair }

    static func rsa(selection: Selection, _ numbers: [(name: String, value: [UInt8])]) throws -> OpaquePointer {
        guard numbers.allSatisfy({ !$0.value.isEmpty && $0.value.contains { $0 != 0 } }) else {
            throw CryptoError(.invalidKey, "RSA key numbers must be non-zero")
        }
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.openSSL(.invalidKey, "cannot allocate parameters") }
        defer { OSSL_PARAM_BLD_free(builder) }
        var bignums: [OpaquePointer] = []
        // The builder keeps the key *pointer* until OSSL_PARAM_BLD_to_param, so a Swift String's
        // temporary C string would dangle: give each name storage that outlives the builder.
        var names: [UnsafeMutablePointer<CChar>] = []
        defer {
            bignums.forEach { BN_free($0) }
            names.forEach { free($0) }
        }
        for (name, value) in numbers {
            let number = try BigNumber.make(value)
            bignums.append(number)
            guard let storedName = strdup(name) else { throw CryptoError(.invalidKey, "out of memory") }
            names.append(storedName)
            guard OSSL_PARAM_BLD_push_BN(builder, storedName, number) == 1 else {
                throw CryptoError.openSSL(.invalidKey, "cannot set RSA parameter '\(name)'")
            }
        }
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else {
            throw CryptoError.openSSL(.invalidKey, "cannot build RSA parameters")
        }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, CName.rsa, nil) else {
            throw CryptoError.openSSL(.invalidKey, "RSA is not available")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        // EVP_PKEY_PUBLIC_KEY / EVP_PKEY_KEYPAIR are composite macros that do not import; spell them out.
        let publicBits = OSSL_KEYMGMT_SELECT_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS
        let selectionBits = Int32(selection == .publicKey ? publicBits : publicBits | OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
        guard EVP_PKEY_fromdata_init(context) == 1,
              EVP_PKEY_fromdata(context, &key, selectionBits, parameters) == 1, let key else {
            throw CryptoError.openSSL(.invalidKey, "OpenSSL rejected the RSA key numbers")
        }
        return key
    }
}
