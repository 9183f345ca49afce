package import FoundationGaps

/// The local CA of the "Certs/" directory: a CA restricted by X.509 name constraints to exactly the
/// names FakeEntra serves, and a TLS server certificate it signs for those names.
///
/// Files in `directory`: `ca.pem`, `ca.key.pem` (0600), `server.pem`, `server.key.pem` (0600),
/// `names.json` (what was issued, for people and tools) and a `.gitignore` that ignores everything.
package struct LocalCertificateAuthority {
    /// Apple platforms refuse TLS server certificates valid for more than 398 days.
    static let serverValidity: TimeInterval = 397 * 86400
    static let caValidity: TimeInterval = 10 * 365 * 86400
    /// Certificates this close to expiry are replaced rather than reused.
    static let renewalMargin: TimeInterval = 30 * 86400
    /// Clients whose clocks run a little behind still accept a certificate issued just now.
    static let backdating: TimeInterval = 3600

    /// Ensures `<dir>/ca.pem` + `<dir>/ca.key.pem` (0600) exist (CA restricted by X.509 name constraints
    /// to exactly `hostnames` ∪ {localhost, 127.0.0.1, ::1}), and a server cert `<dir>/server.pem` +
    /// `<dir>/server.key.pem` signed by it for those names; re-issues the server cert when names change.
    /// The CA is kept across calls and only replaced when a name falls outside its constraints (or it is
    /// missing, damaged or expiring): `caRegenerated` then tells the caller to ask the user to re-trust it.
    package static func ensure(directory: String, hostnames: [String]) throws -> CertificatePaths {
        try ensure(directory: directory, hostnames: hostnames, now: Date())
    }

    package static func ensure(directory: String, hostnames: [String], now: Date) throws -> CertificatePaths {
        // Bad names are refused before anything is created.
        let names = try ServerNames(hostnames)
        return try CertificateDirectory.withExclusiveLock(directory) { try ensureLocked(directory: directory, names: names, now: now) }
    }

    private static func ensureLocked(directory: String, names: ServerNames, now: Date) throws -> CertificatePaths {
        let files = Files(directory: directory)
        try SecureFile.createDirectory(directory)
        try protectFromVersionControl(directory)

        let (authority, caRegenerated) = try loadOrCreateAuthority(files, names: names, now: now)
        var serverIssued = false
        if try !existingServerCertificateIsUsable(files, names: names, authority: authority, now: now) {
            try issueServerCertificate(files, names: names, authority: authority, now: now)
            serverIssued = true
        }
        if caRegenerated || serverIssued || !SecureFile.exists(files.manifest) {
            try writeManifest(files, names: names, authority: authority.certificate, now: now)
        }
        return CertificatePaths(caCertificate: files.caCertificate, serverCertificate: files.serverCertificate,
                                serverKey: files.serverKey, generated: caRegenerated || serverIssued,
                                caKey: files.caKey, caRegenerated: caRegenerated, serverCertificateIssued: serverIssued,
                                names: names.subjectAlternativeNames)
    }

    struct Files {
        let directory: String
        var caCertificate: String { "\(directory)/ca.pem" }
        var caKey: String { "\(directory)/ca.key.pem" }
        var serverCertificate: String { "\(directory)/server.pem" }
        var serverKey: String { "\(directory)/server.key.pem" }
        var manifest: String { "\(directory)/names.json" }
    }

    struct Authority {
        let certificate: X509Certificate
        let key: RSAPrivateKey
    }

    // MARK: CA

    private static func loadOrCreateAuthority(_ files: Files, names: ServerNames, now: Date) throws -> (Authority, regenerated: Bool) {
        if let existing = try? loadAuthority(files),
           existing.certificate.notAfter > now.addingTimeInterval(renewalMargin),
           let subtrees = existing.certificate.permittedSubtrees, subtrees.critical,
           names.areCovered(by: subtrees) {
            try SecureFile.restrict(files.caKey, to: 0o600)
            return (existing, false)
        }
        let key = try RSAPrivateKey.generate()
        let label = Base64URL.encode(SecureRandom.bytes(count: 6))
        let certificate = try CertificateBuilder(
            subject: [("O", "FakeEntra"), ("CN", "FakeEntra local CA \(label)")],
            publicKey: key.publicKey,
            notBefore: now.addingTimeInterval(-backdating),
            notAfter: now.addingTimeInterval(caValidity),
            extensions: [
                .basicConstraints("critical,CA:TRUE,pathlen:0"),
                .keyUsage("critical,keyCertSign,cRLSign"),
                .subjectKeyIdentifier,
                .nameConstraints(names.nameConstraintsExtension),
            ]
        ).selfSigned(with: key)
        try SecureFile.write(key.pem, to: files.caKey, mode: 0o600)
        try SecureFile.write(certificate.pem, to: files.caCertificate, mode: 0o644)
        return (Authority(certificate: certificate, key: key), true)
    }

    private static func loadAuthority(_ files: Files) throws -> Authority {
        let certificate = try X509Certificate(pem: SecureFile.read(files.caCertificate))
        let key = try RSAPrivateKey(pem: SecureFile.read(files.caKey))
        guard try certificate.publicKey == key.publicKey, certificate.isCertificateAuthority else {
            throw CryptoError(.invalidCertificate, "\(files.caCertificate) does not match \(files.caKey)")
        }
        return Authority(certificate: certificate, key: key)
    }

    // MARK: Server certificate

    private static func existingServerCertificateIsUsable(_ files: Files, names: ServerNames, authority: Authority, now: Date) throws -> Bool {
        guard let certificate = try? X509Certificate(pem: SecureFile.read(files.serverCertificate)),
              let key = try? RSAPrivateKey(pem: SecureFile.read(files.serverKey)),
              (try? certificate.publicKey) == key.publicKey,
              let authorityKey = try? authority.certificate.publicKey, certificate.isSigned(by: authorityKey),
              certificate.notAfter > now.addingTimeInterval(renewalMargin),
              Set(certificate.subjectAlternativeNames) == Set(names.subjectAlternativeNames) else { return false }
        try SecureFile.restrict(files.serverKey, to: 0o600)
        return true
    }

    private static func issueServerCertificate(_ files: Files, names: ServerNames, authority: Authority, now: Date) throws {
        let key = try RSAPrivateKey.generate()
        let certificate = try CertificateBuilder(
            // A fixed CN: clients match SANs only, and a long host name would not fit CN's 64 characters.
            subject: [("O", "FakeEntra"), ("CN", "FakeEntra local server")],
            publicKey: key.publicKey,
            notBefore: now.addingTimeInterval(-backdating),
            notAfter: now.addingTimeInterval(serverValidity - backdating),
            extensions: [
                .basicConstraints("critical,CA:FALSE"),
                .keyUsage("critical,digitalSignature,keyEncipherment"),
                .extendedKeyUsage("serverAuth"),
                .subjectAlternativeNames(names.subjectAltNameExtension),
                .subjectKeyIdentifier,
                .authorityKeyIdentifier,
            ]
        ).issued(by: authority.certificate, key: authority.key)
        try SecureFile.write(key.pem, to: files.serverKey, mode: 0o600)
        try SecureFile.write(certificate.pem, to: files.serverCertificate, mode: 0o644)
    }

    // MARK: Bookkeeping

    struct Manifest: Codable, Equatable {
        var names: [String]
        var caNameConstraints: [String]
        var caCommonName: String?
        var caSHA256: String
        var caNotAfter: Date
        var issuedAt: Date
    }

    private static func writeManifest(_ files: Files, names: ServerNames, authority: X509Certificate, now: Date) throws {
        let subtrees = authority.permittedSubtrees
        let manifest = Manifest(
            names: names.subjectAlternativeNames,
            caNameConstraints: (subtrees?.dns ?? []) + (subtrees?.ip ?? []).map { range in
                "\(IPAddress.text(range.address) ?? "?")/\(range.mask.reduce(0) { $0 + $1.nonzeroBitCount })"
            },
            caCommonName: authority.subjectCommonName,
            caSHA256: Hex.lowercase(authority.sha256Thumbprint),
            caNotAfter: authority.notAfter,
            issuedAt: now
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(manifest)
        try SecureFile.write(String(decoding: data, as: UTF8.self) + "\n", to: files.manifest, mode: 0o644)
    }

    /// Keys must never reach a repository, wherever the directory lives: ignore everything in it.
    private static func protectFromVersionControl(_ directory: String) throws {
        let path = "\(directory)/.gitignore"
        guard !SecureFile.exists(path) else { return }
        try SecureFile.write("# Generated by FakeEntra: private keys and certificates. Never commit them.\n*\n!README.md\n",
                             to: path, mode: 0o644)
    }
}

/// Where `LocalCertificateAuthority.ensure` left its files, and what it had to (re)create.
package struct CertificatePaths: Sendable, Equatable {
    package let caCertificate: String
    package let serverCertificate: String
    package let serverKey: String
    /// True when the CA or the server certificate was (re)generated by this call.
    package let generated: Bool
    package let caKey: String
    /// True when a new CA was created: anything that trusted the old one must trust the new one.
    package let caRegenerated: Bool
    package let serverCertificateIssued: Bool
    /// The SAN entries of the server certificate (DNS names, then IPs).
    package let names: [String]
}
