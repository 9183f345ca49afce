import FoundationGaps
private import COpenSSL

/// Issues X.509 v3 certificates. Extensions use OpenSSL's configuration syntax (the `openssl x509
/// -extfile` language), so each one reads like the profile it implements; every value we pass is
/// built from validated names, never from raw user text.
struct CertificateBuilder {
    struct Extension {
        let nid: Int32
        let value: String
        static func basicConstraints(_ value: String) -> Extension { Extension(nid: NID_basic_constraints, value: value) }
        static func keyUsage(_ value: String) -> Extension { Extension(nid: NID_key_usage, value: value) }
        static func extendedKeyUsage(_ value: String) -> Extension { Extension(nid: NID_ext_key_usage, value: value) }
        static let subjectKeyIdentifier = Extension(nid: NID_subject_key_identifier, value: "hash")
        static let authorityKeyIdentifier = Extension(nid: NID_authority_key_identifier, value: "keyid:always")
        static func subjectAlternativeNames(_ value: String) -> Extension { Extension(nid: NID_subject_alt_name, value: value) }
        static func nameConstraints(_ value: String) -> Extension { Extension(nid: NID_name_constraints, value: value) }
    }

    var subject: [(field: String, value: String)]
    var publicKey: RSAPublicKey
    var notBefore: Date
    var notAfter: Date
    var extensions: [Extension]

    /// Self-signed with `key` (whose public half must be `publicKey`).
    func selfSigned(with key: RSAPrivateKey) throws -> X509Certificate {
        try build(issuer: nil, signingKey: key)
    }

    func issued(by issuer: X509Certificate, key issuerKey: RSAPrivateKey) throws -> X509Certificate {
        try build(issuer: issuer, signingKey: issuerKey)
    }

    private func build(issuer: X509Certificate?, signingKey: RSAPrivateKey) throws -> X509Certificate {
        OpenSSLErrorQueue.clear()
        guard let certificate = X509_new() else { throw CryptoError.openSSL(.certificateBuild, "cannot allocate a certificate") }
        var owned: OpaquePointer? = certificate
        defer { if let owned { X509_free(owned) } }

        guard X509_set_version(certificate, 2) == 1 else {   // 2 encodes X.509 v3
            throw CryptoError.openSSL(.certificateBuild, "cannot set the certificate version")
        }
        try setRandomSerial(certificate)
        let subjectName = try makeName()
        defer { X509_NAME_free(subjectName) }
        let issuerName = issuer.map { X509_get_subject_name($0.backing.pointer) } ?? subjectName
        guard X509_set_subject_name(certificate, subjectName) == 1,
              X509_set_issuer_name(certificate, issuerName) == 1 else {
            throw CryptoError.openSSL(.certificateBuild, "cannot set subject/issuer names")
        }
        guard ASN1_TIME_set(X509_getm_notBefore(certificate), time_t(notBefore.timeIntervalSince1970)) != nil,
              ASN1_TIME_set(X509_getm_notAfter(certificate), time_t(notAfter.timeIntervalSince1970)) != nil else {
            throw CryptoError.openSSL(.certificateBuild, "cannot set the validity period")
        }
        guard X509_set_pubkey(certificate, publicKey.backing.pointer) == 1 else {
            throw CryptoError.openSSL(.certificateBuild, "cannot set the public key")
        }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.backing.pointer ?? certificate, certificate, nil, nil, 0)
        for item in extensions {
            guard let made = X509V3_EXT_conf_nid(nil, &context, item.nid, item.value) else {
                throw CryptoError.openSSL(.certificateBuild, "bad \(String(cString: OBJ_nid2sn(item.nid))) extension '\(item.value)'")
            }
            defer { X509_EXTENSION_free(made) }
            guard X509_add_ext(certificate, made, -1) == 1 else {
                throw CryptoError.openSSL(.certificateBuild, "cannot add \(String(cString: OBJ_nid2sn(item.nid)))")
            }
        }
        guard X509_sign(certificate, signingKey.backing.pointer, EVP_sha256()) > 0 else {
            throw CryptoError.openSSL(.certificateBuild, "cannot sign the certificate")
        }
        owned = nil
        return try X509Certificate(taking: certificate)
    }

    /// 127 random bits: positive, unique enough that browsers never see two certificates with one serial.
    private func setRandomSerial(_ certificate: OpaquePointer) throws {
        var bytes = SecureRandom.bytes(count: 16)
        bytes[0] = (bytes[0] & 0x7F) | 0x01
        let number = try BigNumber.make(bytes)
        defer { BN_free(number) }
        guard let serial = BN_to_ASN1_INTEGER(number, nil) else {
            throw CryptoError.openSSL(.certificateBuild, "cannot encode the serial number")
        }
        defer { ASN1_INTEGER_free(serial) }
        guard X509_set_serialNumber(certificate, serial) == 1 else {
            throw CryptoError.openSSL(.certificateBuild, "cannot set the serial number")
        }
    }

    private func makeName() throws -> OpaquePointer {
        guard let name = X509_NAME_new() else { throw CryptoError.openSSL(.certificateBuild, "cannot allocate a name") }
        for (field, value) in subject {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                X509_NAME_free(name)
                throw CryptoError.openSSL(.certificateBuild, "bad subject \(field)=\(value)")
            }
        }
        return name
    }
}
