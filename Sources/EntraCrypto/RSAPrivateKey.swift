private import COpenSSL
private import COpenSSLShims
import Synchronization

/// An RSA private key, used for RS256 token signatures and TLS/CA certificates.
package struct RSAPrivateKey: Sendable {
    let backing: PKeyBacking
    package let publicKey: RSAPublicKey
    let signingTemplate: SigningTemplate

    /// A fresh key from OpenSSL's default provider. `bits` must be 2048…16384.
    package static func generate(bits: Int = 2048) throws -> RSAPrivateKey {
        guard (2048...16384).contains(bits) else {
            throw CryptoError(.keyGeneration, "RSA key size \(bits) is outside 2048…16384 bits")
        }
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, CName.rsa, nil) else {
            throw CryptoError.openSSL(.keyGeneration, "RSA is not available")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1,
              EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError.openSSL(.keyGeneration, "RSA-\(bits) key generation failed")
        }
        return try RSAPrivateKey(taking: key)
    }

    /// Parses PKCS#8 (`BEGIN PRIVATE KEY`) or traditional (`BEGIN RSA PRIVATE KEY`) PEM.
    /// Encrypted keys are refused rather than prompting for a passphrase.
    package init(pem: String) throws {
        OpenSSLErrorQueue.clear()
        var text = pem
        let key = text.withUTF8 { FakeEntraShims_readPrivateKeyPEM($0.baseAddress, $0.count) }
        guard let key else { throw CryptoError.openSSL(.invalidPEM, "not an unencrypted PEM private key") }
        try self.init(taking: key)
    }

    /// Builds a key from its JWK members (RFC 7518 §6.3.2: n, e, d, p, q, dp, dq, qi).
    package init(modulus: [UInt8], publicExponent: [UInt8], privateExponent: [UInt8],
                prime1: [UInt8], prime2: [UInt8], exponent1: [UInt8], exponent2: [UInt8], coefficient: [UInt8]) throws {
        OpenSSLErrorQueue.clear()
        // The factor names are built by macro string pasting in core_names.h, which Swift cannot import.
        let key = try KeyImport.rsa(selection: .keyPair, [
            (OSSL_PKEY_PARAM_RSA_N, modulus), (OSSL_PKEY_PARAM_RSA_E, publicExponent),
            (OSSL_PKEY_PARAM_RSA_D, privateExponent),
            ("rsa-factor1", prime1), ("rsa-factor2", prime2),
            ("rsa-exponent1", exponent1), ("rsa-exponent2", exponent2),
            ("rsa-coefficient1", coefficient),
        ])
        try self.init(taking: key)
    }

    /// Takes ownership of `key` (freed on failure too); checks it is an RSA private key.
    init(taking key: OpaquePointer) throws {
        let backing = PKeyBacking(taking: key)
        guard EVP_PKEY_is_a(key, "RSA") == 1 else {
            throw CryptoError(.unsupportedKey, "expected an RSA key, got \(String(cString: EVP_PKEY_get0_type_name(key)))")
        }
        var privateExponent: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_D, &privateExponent) == 1, privateExponent != nil else {
            OpenSSLErrorQueue.clear()
            throw CryptoError(.invalidKey, "the RSA key has no private part")
        }
        BN_clear_free(privateExponent)
        self.backing = backing
        self.publicKey = try Self.publicPart(of: key)
        signingTemplate = SigningTemplate(key: backing)
    }

    /// A public-only copy, so that handing out `publicKey` never hands out the private key. Built from
    /// the modulus and exponent (a DER round trip through OpenSSL 3's encoders costs start-up time).
    private static func publicPart(of key: OpaquePointer) throws -> RSAPublicKey {
        try RSAPublicKey(modulus: BigNumber.parameter(OSSL_PKEY_PARAM_RSA_N, of: key),
                         exponent: BigNumber.parameter(OSSL_PKEY_PARAM_RSA_E, of: key))
    }

    /// PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), unencrypted: store it with mode 0600.
    package var pem: String {
        (try? MemoryBIO.writing("private key") {
            PEM_write_bio_PrivateKey($0, backing.pointer, nil, nil, 0, nil, nil)
        }) ?? ""
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS `RS256`); deterministic for a given key and input.
    package func signSHA256(_ data: some Collection<UInt8>) throws -> [UInt8] {
        try signSHA256(digest: Digest.sha256(data))
    }

    /// The same signature, of data whose SHA-256 is `digest`.
    package func signSHA256(digest: [UInt8]) throws -> [UInt8] {
        OpenSSLErrorQueue.clear()
        // A context set up once and lent: setting one up per signature looked the algorithms up by name
        // in OpenSSL's provider tables every time, and every token is signed.
        return try signingTemplate.withContext { context throws -> [UInt8] in
            var length = 0
            guard EVP_PKEY_sign(context, nil, &length, digest, digest.count) == 1 else {
                throw CryptoError.openSSL(.signing, "cannot size the RS256 signature")
            }
            var signed = false
            let signature = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                signed = EVP_PKEY_sign(context, buffer.baseAddress, &length, digest, digest.count) == 1
                count = signed ? length : 0
            }
            guard signed else { throw CryptoError.openSSL(.signing, "RS256 signing failed") }
            return signature
        }
    }

    /// The most bytes a signature with this key takes (the modulus's size).
    package var maximumSignatureSize: Int { Int(EVP_PKEY_get_size(backing.pointer)) }
}

/// `EVP_PKEY_CTX`s ready for RS256 signatures with one key, each lent to one signer at a time (a context
/// is not to be shared between threads, and can sign again once a signature is done). A context is set up
/// when none is idle and kept for the next signatures: setting one up costs a copy of the key, a provider
/// lookup, and on its first signature the key's Montgomery values and blinding (a modular inverse).
///
/// Each context signs with a copy of the key of its own, so that no two signers ever use one key at once.
/// OpenSSL 3.0 guards an RSA key's blinding values with the key's lock: every signature write-locks it
/// (and read-locks it for the Montgomery values), and a thread other than the first to sign also locks a
/// second, shared set of blinding values, refreshed every 32 uses through a modular inverse. With one key
/// for the two event loops (which sign client-credentials tokens; worker threads sign the others), a loop
/// waited on the other's locks and its core idled. OpenSSL fixed this after 3.0 (openssl/openssl#20953,
/// #27913); the copies can go once the supported OpenSSL is past it.
final class SigningTemplate: Sendable {
    private let key: PKeyBacking
    /// A context handed between the lock and a signer: only one of them holds it at a time.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }
    /// The idle contexts, behind one lock: signer threads take and return them at once.
    private let idle = Mutex<[Context]>([])
    /// Idle contexts kept at most: signers are the server's threads, a handful. Beyond this many at once,
    /// the extra contexts are set up per signature (at the cost above) and freed.
    private static let idleLimit = 16

    init(key: PKeyBacking) { self.key = key }

    deinit {
        idle.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
        }
    }

    /// Runs `body` with a context of its own (a key OpenSSL refuses throws). A context whose signature
    /// failed is freed rather than lent again.
    func withContext<Result>(_ body: (OpaquePointer) throws -> Result) throws -> Result {
        let context = try idle.withLock { $0.popLast() } ?? Self.makeWithOwnKey(key.pointer)
        do {
            let result = try body(context.pointer)
            let kept = idle.withLock { contexts in
                guard contexts.count < Self.idleLimit else { return false }
                contexts.append(context)
                return true
            }
            if !kept { EVP_PKEY_CTX_free(context.pointer) }
            return result
        } catch {
            EVP_PKEY_CTX_free(context.pointer)
            throw error
        }
    }

    /// The keys of two signers that overlap, for tests: copies of `key`, one each.
    func keysOfTwoOverlappingSigners() throws -> (first: OpaquePointer?, second: OpaquePointer?) {
        try withContext { first in
            try withContext { second in (EVP_PKEY_CTX_get0_pkey(first), EVP_PKEY_CTX_get0_pkey(second)) }
        }
    }

    /// A context over a copy of `key` (the context holds the copy's only reference), or over `key` itself
    /// when OpenSSL cannot copy it (a key held by an engine or a provider without a copy operation): such
    /// a key signs as it did before the copies, contended but correct. This project's keys all copy.
    private static func makeWithOwnKey(_ key: OpaquePointer) throws -> Context {
        guard let copy = EVP_PKEY_dup(key) else {
            OpenSSLErrorQueue.clear()
            return Context(pointer: try make(key))
        }
        defer { EVP_PKEY_free(copy) }
        return Context(pointer: try make(copy))
    }

    private static func make(_ key: OpaquePointer) throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw CryptoError.openSSL(.signing, "cannot make an RS256 signing context")
        }
        guard EVP_PKEY_sign_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
              EVP_PKEY_CTX_set_signature_md(context, Digest.sha256Algorithm.pointer) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw CryptoError.openSSL(.signing, "cannot set up an RS256 signing context")
        }
        return context
    }
}
