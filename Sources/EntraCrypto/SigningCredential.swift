package import FoundationGaps
import LocatedJSON

/// A token-signing key with its self-signed certificate; kid == x5t == base64url(SHA-1(cert DER)),
/// as Entra ID publishes them.
package struct SigningCredential: Sendable {
    package let privateKey: RSAPrivateKey
    package let certificate: X509Certificate
    package let keyID: String
    /// base64url of the JWT header `{"typ":"JWT","alg":"RS256","x5t":kid,"kid":kid}`, as Entra ID writes
    /// it: the same for every token this key signs, so it is encoded once.
    let jwtHeaderSegment: [UInt8]

    package init(privateKey: RSAPrivateKey, certificate: X509Certificate) throws {
        guard try certificate.publicKey == privateKey.publicKey else {
            throw CryptoError(.invalidKey, "the signing certificate does not belong to the private key")
        }
        self.privateKey = privateKey
        self.certificate = certificate
        keyID = Base64URL.encode(certificate.sha1Thumbprint)
        // The kid is base64url: it needs no JSON escaping.
        let header = #"{"typ":"JWT","alg":"RS256","x5t":"\#(keyID)","kid":"\#(keyID)"}"#
        jwtHeaderSegment = Array(Base64URL.encode(header.utf8).utf8)
    }

    package static func generate(commonName: String = "FakeEntra token signing",
                                validFor: TimeInterval = 2 * 365 * 86400) throws -> SigningCredential {
        try issue(for: RSAPrivateKey.generate(), commonName: commonName, validFor: validFor, now: Date())
    }

    /// Loads `<directory>/<name>.key.pem` + `<name>.cert.pem` or creates them (key mode 0600), so tokens
    /// issued before a restart still verify after it. A key without its certificate keeps the key and
    /// gets a new certificate; an expired certificate is renewed for the same key.
    package static func loadOrCreate(directory: String, name: String = "token-signing") throws -> SigningCredential {
        try loadOrCreate(directory: directory, name: name, now: Date())
    }

    package static func loadOrCreate(directory: String, name: String, now: Date) throws -> SigningCredential {
        try CertificateDirectory.withExclusiveLock(directory) { try loadOrCreateLocked(directory: directory, name: name, now: now) }
    }

    private static func loadOrCreateLocked(directory: String, name: String, now: Date) throws -> SigningCredential {
        let keyPath = "\(directory)/\(name).key.pem"
        let certificatePath = "\(directory)/\(name).cert.pem"
        try SecureFile.createDirectory(directory)

        let key: RSAPrivateKey
        if SecureFile.exists(keyPath) {
            try SecureFile.restrict(keyPath, to: 0o600)
            key = try RSAPrivateKey(pem: SecureFile.read(keyPath))
        } else {
            key = try RSAPrivateKey.generate()
            try SecureFile.write(key.pem, to: keyPath, mode: 0o600)
        }
        if SecureFile.exists(certificatePath) {
            let certificate = try X509Certificate(pem: SecureFile.read(certificatePath))
            guard try certificate.publicKey == key.publicKey else {
                throw CryptoError(.invalidKey, "\(certificatePath) does not match \(keyPath); remove both to start afresh")
            }
            if certificate.notAfter > now { return try SigningCredential(privateKey: key, certificate: certificate) }
        }
        let credential = try issue(for: key, commonName: "FakeEntra token signing", validFor: 2 * 365 * 86400, now: now)
        try SecureFile.write(credential.certificate.pem, to: certificatePath, mode: 0o644)
        return credential
    }

    static func issue(for key: RSAPrivateKey, commonName: String, validFor: TimeInterval, now: Date) throws -> SigningCredential {
        let builder = CertificateBuilder(
            subject: [("CN", commonName)],
            publicKey: key.publicKey,
            notBefore: now.addingTimeInterval(-3600),   // tolerate clients whose clocks run a little behind
            notAfter: now.addingTimeInterval(validFor),
            extensions: [
                .basicConstraints("critical,CA:FALSE"),
                .keyUsage("critical,digitalSignature"),
                .subjectKeyIdentifier,
            ]
        )
        return try SigningCredential(privateKey: key, certificate: builder.selfSigned(with: key))
    }

    /// The JWKS entry for this key (`issuer` is what Entra's v2.0 keys endpoint adds per key).
    /// Entra's form (`x5t`, `x5c`, `issuer`, `cloud_instance_name`), or with `bare` B2C's, which publishes
    /// `kid`, `use`, `kty`, `n` and `e` alone (recorded B2C key sets).
    package func jwk(issuer: String? = nil, cloudInstanceName: String? = nil, bare: Bool = false) -> JSONWebKey {
        JSONWebKey(kty: "RSA", use: "sig", kid: keyID, x5t: bare ? nil : keyID,
                   n: Base64URL.encode(privateKey.publicKey.modulus),
                   e: Base64URL.encode(privateKey.publicKey.exponent),
                   x5c: bare ? nil : [Base64URL.encodeStandard(certificate.der)], issuer: issuer, cloudInstanceName: cloudInstanceName)
    }
}

/// One RSA key of a JWKS document (RFC 7517), in the shape Entra ID publishes.
package struct JSONWebKey: Codable, Sendable, Equatable {
    package var kty: String
    package var use: String
    package var kid: String
    package var x5t: String?
    package var n: String
    package var e: String
    package var x5c: [String]?
    package var issuer: String?
    /// Since 2024 each key of Entra's sets names its cloud (recorded `/discovery/v2.0/keys`).
    package var cloudInstanceName: String?

    enum CodingKeys: String, CodingKey {
        case kty, use, kid, x5t, n, e, x5c, issuer
        case cloudInstanceName = "cloud_instance_name"
    }

    package init(kty: String, use: String, kid: String, x5t: String?, n: String, e: String, x5c: [String]?, issuer: String? = nil, cloudInstanceName: String? = nil) {
        self.kty = kty; self.use = use; self.kid = kid; self.x5t = x5t
        self.n = n; self.e = e; self.x5c = x5c; self.issuer = issuer; self.cloudInstanceName = cloudInstanceName
    }

    /// The public key described by `n` and `e`.
    package func rsaPublicKey() throws -> RSAPublicKey {
        guard kty == "RSA" else { throw CryptoError(.unsupportedKey, "JWK kty '\(kty)' is not RSA") }
        guard let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e) else {
            throw CryptoError(.invalidKey, "JWK n/e are not base64url")
        }
        return try RSAPublicKey(modulus: modulus, exponent: exponent)
    }
}

package struct JSONWebKeySet: Codable, Sendable, Equatable {
    package var keys: [JSONWebKey]
    package init(keys: [JSONWebKey]) { self.keys = keys }

    /// The published document: members sorted, so it compares byte for byte between calls.
    package var bytes: [UInt8] {
        JSONValue.object(["keys": .array(keys.map(\.json))]).sortedKeysBytes
    }
}

extension JSONWebKey {
    fileprivate var json: JSONValue {
        .object(omittingNil: [
            "kty": .string(kty), "use": .string(use), "kid": .string(kid), "x5t": x5t.map(JSONValue.string),
            "n": .string(n), "e": .string(e), "x5c": x5c.map(JSONValue.strings), "issuer": issuer.map(JSONValue.string),
            "cloud_instance_name": cloudInstanceName.map(JSONValue.string),
        ])
    }
}
