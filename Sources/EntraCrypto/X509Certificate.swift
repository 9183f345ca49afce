package import FoundationGaps
private import COpenSSL
private import COpenSSLShims

/// A parsed X.509 certificate (read-only view).
package struct X509Certificate: Sendable, Equatable {
    let backing: X509Backing
    package let der: [UInt8]

    package init(pem: String) throws {
        try self.init(taking: MemoryBIO.readPEM(pem, expecting: "a PEM certificate", as: .invalidCertificate) {
            PEM_read_bio_X509($0, nil, FakeEntraShims_refusePassphrase, nil)
        })
    }

    package init(der: [UInt8]) throws {
        OpenSSLErrorQueue.clear()
        let certificate: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let certificate else { throw CryptoError.openSSL(.invalidCertificate, "not a DER certificate") }
        try self.init(taking: certificate)
    }

    /// Every certificate of a PEM bundle, in order; throws when there is none or one is damaged.
    package static func parseAll(pem: String) throws -> [X509Certificate] {
        let marker = "-----BEGIN CERTIFICATE-----"
        var blocks: [String] = []
        var rest = Substring(pem)
        while let start = rest.range(of: marker) {
            let afterStart = rest[start.upperBound...]
            let next = afterStart.range(of: marker)?.lowerBound ?? rest.endIndex
            blocks.append(String(rest[start.lowerBound..<next]))
            rest = rest[next...]
        }
        guard !blocks.isEmpty else { throw CryptoError(.invalidCertificate, "no '\(marker)' block in the PEM bundle") }
        return try blocks.map { try X509Certificate(pem: $0) }
    }

    /// Takes ownership of `certificate` (freed on failure too).
    init(taking certificate: OpaquePointer) throws {
        backing = X509Backing(taking: certificate)
        der = try DEREncoding.encode("certificate", as: .invalidCertificate) { i2d_X509(certificate, $0) }
    }

    package var pem: String {
        (try? MemoryBIO.writing("certificate") { PEM_write_bio_X509($0, backing.pointer) }) ?? ""
    }

    package var publicKey: RSAPublicKey {
        get throws {
            OpenSSLErrorQueue.clear()
            guard let key = X509_get_pubkey(backing.pointer) else {
                throw CryptoError.openSSL(.invalidCertificate, "certificate has no usable public key")
            }
            return try RSAPublicKey(taking: key)
        }
    }

    package var sha1Thumbprint: [UInt8] { Digest.sha1(der) }
    package var sha256Thumbprint: [UInt8] { Digest.sha256(der) }

    package var subjectCommonName: String? {
        guard let name = X509_get_subject_name(backing.pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
              let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        return ASN1Text.utf8(data)
    }

    /// DNS names as written and IP addresses in their usual text form, in certificate order.
    package var subjectAlternativeNames: [String] {
        guard let raw = X509_get_ext_d2i(backing.pointer, NID_subject_alt_name, nil, nil) else {
            OpenSSLErrorQueue.clear()
            return []
        }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        var result: [String] = []
        for index in 0..<OPENSSL_sk_num(names) {
            guard let element = OPENSSL_sk_value(names, index) else { continue }
            var type: Int32 = 0
            guard let value = GENERAL_NAME_get0_value(element.assumingMemoryBound(to: GENERAL_NAME.self), &type) else { continue }
            let string = value.assumingMemoryBound(to: ASN1_STRING.self)
            switch type {
            case GEN_DNS: if let text = ASN1Text.utf8(string) { result.append(text) }
            case GEN_IPADD: if let text = IPAddress.text(ASN1Text.bytes(string)) { result.append(text) }
            default: continue
            }
        }
        return result
    }

    /// The permitted subtrees of a name-constraints extension (nil when the certificate has none).
    var permittedSubtrees: PermittedSubtrees? {
        var critical: Int32 = 0
        guard let raw = X509_get_ext_d2i(backing.pointer, NID_name_constraints, &critical, nil) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        let constraints = raw.assumingMemoryBound(to: NAME_CONSTRAINTS.self)
        defer { NAME_CONSTRAINTS_free(constraints) }
        var result = PermittedSubtrees(critical: critical == 1)
        guard let stack = constraints.pointee.permittedSubtrees else { return result }
        for index in 0..<OPENSSL_sk_num(stack) {
            guard let element = OPENSSL_sk_value(stack, index),
                  let base = element.assumingMemoryBound(to: GENERAL_SUBTREE.self).pointee.base else { continue }
            var type: Int32 = 0
            guard let value = GENERAL_NAME_get0_value(base, &type) else { continue }
            let string = value.assumingMemoryBound(to: ASN1_STRING.self)
            switch type {
            case GEN_DNS: if let text = ASN1Text.utf8(string) { result.dns.append(text) }
            case GEN_IPADD:
                let bytes = ASN1Text.bytes(string)   // address followed by mask, RFC 5280 §4.2.1.10
                guard bytes.count == 8 || bytes.count == 32 else { continue }
                result.ip.append(.init(address: Array(bytes.prefix(bytes.count / 2)), mask: Array(bytes.suffix(bytes.count / 2))))
            default: result.other += 1
            }
        }
        return result
    }

    /// Whether the basic-constraints extension marks this certificate as a CA.
    var isCertificateAuthority: Bool { X509_check_ca(backing.pointer) != 0 }

    package var notBefore: Date { ASN1Text.date(X509_get0_notBefore(backing.pointer)) }
    package var notAfter: Date { ASN1Text.date(X509_get0_notAfter(backing.pointer)) }

    /// Whether `issuer`'s key produced this certificate's signature.
    package func isSigned(by issuer: RSAPublicKey) -> Bool {
        defer { OpenSSLErrorQueue.clear() }
        return X509_verify(backing.pointer, issuer.backing.pointer) == 1
    }

    package static func == (lhs: X509Certificate, rhs: X509Certificate) -> Bool { lhs.der == rhs.der }
}

fileprivate enum ASN1Text {
    static func bytes(_ string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
        let length = Int(ASN1_STRING_length(string))
        guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    static func utf8(_ string: UnsafePointer<ASN1_STRING>) -> String? {
        var output: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&output, string)
        guard length >= 0, let output else { OpenSSLErrorQueue.clear(); return nil }
        defer { openSSLFree(output) }
        return String(decoding: UnsafeBufferPointer(start: output, count: Int(length)), as: UTF8.self)
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return Date(timeIntervalSince1970: 0) }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
