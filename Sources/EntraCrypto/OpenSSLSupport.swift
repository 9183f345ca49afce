private import COpenSSL
import COpenSSLShims
import FoundationGaps

/// Owns one `EVP_PKEY`.
///
/// `@unchecked Sendable`: the key is never mutated after construction, and OpenSSL 3 allows one
/// `EVP_PKEY` to be used by concurrent sign/verify operations (each gets its own context).
final class PKeyBacking: @unchecked Sendable {
    let pointer: OpaquePointer
    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }
}

/// Owns one `X509`; never mutated once built or parsed, hence shareable.
final class X509Backing: @unchecked Sendable {
    let pointer: OpaquePointer
    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }
}

/// Memory BIOs for PEM in and out.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `text`'s UTF-8 bytes.
    static func reading<T>(_ text: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        var bytes = Array(text.utf8)
        if bytes.isEmpty { bytes = [0] }   // BIO_new_mem_buf needs a valid pointer; a NUL is no PEM
        return try bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(text.utf8.count)) else {
                throw CryptoError.openSSL(.invalidPEM, "cannot allocate a memory BIO")
            }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    /// Parses one PEM object with `read` (a `PEM_read_bio_*` call); nil from it becomes a CryptoError.
    static func readPEM(_ pem: String, expecting what: String, as code: CryptoError.Code,
                        _ read: (OpaquePointer) -> OpaquePointer?) throws -> OpaquePointer {
        OpenSSLErrorQueue.clear()
        return try reading(pem) { bio in
            guard let object = read(bio) else { throw CryptoError.openSSL(code, "not \(what)") }
            return object
        }
    }

    /// Creates a memory BIO, lets `write` fill it (returning OpenSSL's 1/0 result) and returns the text.
    static func writing(_ what: String, _ write: (OpaquePointer) -> Int32) throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw CryptoError.openSSL(.invalidPEM, "cannot allocate a memory BIO")
        }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw CryptoError.openSSL(.invalidPEM, "cannot encode \(what) as PEM") }
        let pending = Int(BIO_ctrl_pending(bio))
        var buffer = [UInt8](repeating: 0, count: pending)
        let read = buffer.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        guard read == pending else { throw CryptoError.openSSL(.invalidPEM, "cannot read back \(what) PEM") }
        return String(decoding: buffer, as: UTF8.self)
    }
}

/// The `i2d_*` two-step: ask for the length, then encode into a buffer of that size.
enum DEREncoding {
    static func encode(_ what: String, as code: CryptoError.Code,
                       _ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) throws -> [UInt8] {
        let length = i2d(nil)
        guard length > 0 else { throw CryptoError.openSSL(code, "cannot DER-encode the \(what)") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d(&cursor)
        }
        guard written == length else { throw CryptoError.openSSL(code, "cannot DER-encode the \(what)") }
        return der
    }
}

enum BigNumber {
    /// Big-endian magnitude, no leading zero bytes (the JWK encoding, RFC 7518 §6.3.1.1).
    static func bytes(of number: OpaquePointer) -> [UInt8] {
        let count = (Int(BN_num_bits(number)) + 7) / 8
        var output = [UInt8](repeating: 0, count: count)
        _ = BN_bn2bin(number, &output)
        return output
    }

    /// A BIGNUM from big-endian bytes; the caller frees it with `BN_free`.
    static func make(_ bytes: [UInt8]) throws -> OpaquePointer {
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw CryptoError.openSSL(.invalidKey, "cannot allocate a BIGNUM")
        }
        return number
    }

    /// Reads a BIGNUM parameter (`"n"`, `"e"`…) from a key.
    static func parameter(_ name: String, of key: OpaquePointer) throws -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else {
            throw CryptoError.openSSL(.invalidKey, "key has no '\(name)' parameter")
        }
        defer { BN_free(number) }
        return bytes(of: number)
    }
}

/// Frees memory OpenSSL allocated for us (`OPENSSL_free` is a macro Swift cannot call).
func openSSLFree(_ pointer: UnsafeMutableRawPointer?) { FakeEntraShims_free(pointer) }

/// C strings that live forever. Some OpenSSL 3 calls keep the name pointer they are given (an
/// `EVP_PKEY_CTX` remembers its key type name), so a Swift String's temporary C string must not be used.
enum CName {
    nonisolated(unsafe) static let rsa: UnsafePointer<CChar> = UnsafePointer(strdup("RSA")!)
    nonisolated(unsafe) static let sha256: UnsafePointer<CChar> = UnsafePointer(strdup("SHA256")!)
}
