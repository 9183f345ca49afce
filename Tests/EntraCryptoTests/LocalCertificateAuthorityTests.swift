import Foundation
import Testing
@testable import EntraCrypto

@Suite struct LocalCertificateAuthorityTests {
    let hostnames = ["*.b2clogin.com", "login.microsoftonline.com"]

    @Test func createsAllFilesWithPrivateKeysAt0600() throws {
        try withTemporaryDirectory { directory in
            let paths = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            #expect(paths.generated && paths.caRegenerated && paths.serverCertificateIssued)
            #expect(paths.caCertificate == "\(directory)/ca.pem")
            #expect(paths.caKey == "\(directory)/ca.key.pem")
            #expect(paths.serverCertificate == "\(directory)/server.pem")
            #expect(paths.serverKey == "\(directory)/server.key.pem")
            #expect(SecureFile.permissions(paths.caKey) == 0o600)
            #expect(SecureFile.permissions(paths.serverKey) == 0o600)
            #expect(paths.names == ["*.b2clogin.com", "login.microsoftonline.com", "localhost", "127.0.0.1", "::1"])
            let gitignore = try String(contentsOfFile: "\(directory)/.gitignore", encoding: .utf8)
            #expect(gitignore.split(separator: "\n").contains("*"))

            let manifest = try JSONDecoder.iso8601.decode(LocalCertificateAuthority.Manifest.self,
                                                          from: Data(contentsOf: URL(fileURLWithPath: "\(directory)/names.json")))
            #expect(manifest.names == paths.names)
            #expect(manifest.caNameConstraints == ["b2clogin.com", "login.microsoftonline.com", "localhost", "127.0.0.1/32", "::1/128"])
            let ca = try X509Certificate(pem: String(contentsOfFile: paths.caCertificate, encoding: .utf8))
            #expect(manifest.caSHA256 == ca.sha256Thumbprint.map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test func openSSLVerifiesTheServerCertificateAgainstTheCA() throws {
        try withTemporaryDirectory { directory in
            _ = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            let result = try openssl(["verify", "-CAfile", "ca.pem", "-purpose", "sslserver", "server.pem"], in: directory)
            #expect(result.status == 0, "\(result.output) \(result.errorOutput)")
            #expect(result.output.contains("server.pem: OK"))
            for host in ["foo.b2clogin.com", "login.microsoftonline.com", "localhost"] {
                let named = try openssl(["verify", "-CAfile", "ca.pem", "-verify_hostname", host, "server.pem"], in: directory)
                #expect(named.status == 0, "\(host): \(named.errorOutput)")
            }
            let ip = try openssl(["verify", "-CAfile", "ca.pem", "-verify_ip", "::1", "server.pem"], in: directory)
            #expect(ip.status == 0, "\(ip.errorOutput)")
            let wrongHost = try openssl(["verify", "-CAfile", "ca.pem", "-verify_hostname", "example.com", "server.pem"], in: directory)
            #expect(wrongHost.status != 0)
        }
    }

    @Test func caCertificateShowsItsProfileAndNameConstraints() throws {
        try withTemporaryDirectory { directory in
            let text = try issuedCertificateText("ca.pem", in: directory)
            #expect(text.contains("X509v3 Basic Constraints: critical\n                CA:TRUE"))
            #expect(text.contains("X509v3 Key Usage: critical\n                Certificate Sign, CRL Sign"))
            #expect(text.contains("X509v3 Subject Key Identifier"))
            #expect(text.contains("Signature Algorithm: sha256WithRSAEncryption"))
            let constraints = try #require(text.range(of: "X509v3 Name Constraints: critical\n                Permitted:\n"))
            let permitted = text[constraints.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("                  ") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(permitted == [
                "DNS:b2clogin.com", "DNS:login.microsoftonline.com", "DNS:localhost",
                "IP:127.0.0.1/255.255.255.255", "IP:0:0:0:0:0:0:0:1/FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF",
            ])
            #expect(!text.contains("Excluded"))
        }
    }

    @Test func serverCertificateShowsSANsAndAppleCompatibleProfile() throws {
        try withTemporaryDirectory { directory in
            let text = try issuedCertificateText("server.pem", in: directory)
            #expect(text.contains("DNS:*.b2clogin.com, DNS:login.microsoftonline.com, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"))
            #expect(text.contains("X509v3 Basic Constraints: critical\n                CA:FALSE"))
            #expect(text.contains("X509v3 Extended Key Usage: \n                TLS Web Server Authentication"))
            #expect(text.contains("X509v3 Authority Key Identifier"))
            #expect(text.contains("Public-Key: (2048 bit)"))
            #expect(text.contains("Signature Algorithm: sha256WithRSAEncryption"))

            let server = try X509Certificate(pem: String(contentsOfFile: "\(directory)/server.pem", encoding: .utf8))
            #expect(server.notAfter.timeIntervalSince(server.notBefore) <= 397 * 86400)
            #expect(server.notBefore < Date())
            #expect(server.subjectAlternativeNames == ["*.b2clogin.com", "login.microsoftonline.com", "localhost", "127.0.0.1", "::1"])
            #expect(server.subjectCommonName == "FakeEntra local server")
        }
    }

    @Test func aCertificateForAnOutsideNameIsRejectedByOpenSSL() throws {
        try withTemporaryDirectory { directory in
            _ = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            // Use our CA key with the openssl CLI, as an attacker holding ca.key.pem would.
            func issue(_ name: String, san: String) throws -> CommandResult {
                let request = try openssl(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key",
                                           "-subj", "/CN=\(name)", "-out", "\(name).csr"], in: directory)
                #expect(request.status == 0, "\(request.errorOutput)")
                try write("subjectAltName=\(san)\nextendedKeyUsage=serverAuth\n", to: "\(directory)/\(name).ext")
                let signed = try openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key.pem",
                                          "-CAcreateserial", "-days", "30", "-extfile", "\(name).ext", "-out", "\(name).pem"], in: directory)
                #expect(signed.status == 0, "\(signed.errorOutput)")
                return try openssl(["verify", "-CAfile", "ca.pem", "\(name).pem"], in: directory)
            }
            // Control: the same procedure for a permitted name verifies, so the rejections below are the constraints'.
            let inside = try issue("inside.b2clogin.com", san: "DNS:inside.b2clogin.com")
            #expect(inside.status == 0, "\(inside.output) \(inside.errorOutput)")

            let outsideDNS = try issue("evil.example.com", san: "DNS:evil.example.com")
            #expect(outsideDNS.status != 0)
            #expect((outsideDNS.output + outsideDNS.errorOutput).contains("permitted subtree violation"))

            let lookalike = try issue("notb2clogin.com", san: "DNS:notb2clogin.com")
            #expect(lookalike.status != 0)

            let outsideIP = try issue("ip", san: "IP:10.0.0.1")
            #expect(outsideIP.status != 0)
            #expect((outsideIP.output + outsideIP.errorOutput).contains("permitted subtree violation"))
        }
    }

    @Test func secondCallReusesEverything() throws {
        try withTemporaryDirectory { directory in
            let first = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            let before = try snapshot(directory)
            let second = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames.reversed() + ["LOCALHOST"])
            #expect(!second.generated && !second.caRegenerated && !second.serverCertificateIssued)
            #expect(second.caCertificate == first.caCertificate)
            #expect(try snapshot(directory) == before)
        }
    }

    @Test func changedNamesWithinTheConstraintsReissueOnlyTheServerCertificate() throws {
        try withTemporaryDirectory { directory in
            _ = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            let before = try snapshot(directory)
            // "tenant.b2clogin.com" lies inside the "b2clogin.com" constraint; dropping a name needs no new CA either.
            let paths = try LocalCertificateAuthority.ensure(directory: directory, hostnames: ["*.b2clogin.com", "tenant.b2clogin.com"])
            #expect(paths.generated && paths.serverCertificateIssued && !paths.caRegenerated)
            let after = try snapshot(directory)
            #expect(after["ca.pem"] == before["ca.pem"] && after["ca.key.pem"] == before["ca.key.pem"])
            #expect(after["server.pem"] != before["server.pem"])
            #expect(after["names.json"] != before["names.json"])
            let server = try X509Certificate(pem: String(contentsOfFile: paths.serverCertificate, encoding: .utf8))
            #expect(server.subjectAlternativeNames == ["*.b2clogin.com", "tenant.b2clogin.com", "localhost", "127.0.0.1", "::1"])
            #expect(try openssl(["verify", "-CAfile", "ca.pem", "server.pem"], in: directory).status == 0)
        }
    }

    @Test func aNameOutsideTheConstraintsRegeneratesTheCA() throws {
        try withTemporaryDirectory { directory in
            _ = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            try FileManager.default.copyItem(atPath: "\(directory)/ca.pem", toPath: "\(directory)/old-ca.pem")
            let paths = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames + ["graph.microsoft.com"])
            #expect(paths.caRegenerated && paths.serverCertificateIssued && paths.generated)
            #expect(try openssl(["verify", "-CAfile", "ca.pem", "server.pem"], in: directory).status == 0)
            #expect(try openssl(["verify", "-CAfile", "old-ca.pem", "server.pem"], in: directory).status != 0)
            let text = try openssl(["x509", "-in", "ca.pem", "-noout", "-text"], in: directory).output
            #expect(text.contains("DNS:graph.microsoft.com"))
            #expect(SecureFile.permissions(paths.caKey) == 0o600)
        }
    }

    @Test func anIPAddressHostnameBecomesAnIPConstraintAndSAN() throws {
        try withTemporaryDirectory { directory in
            let paths = try LocalCertificateAuthority.ensure(directory: directory, hostnames: ["192.168.1.20"])
            #expect(paths.names == ["localhost", "192.168.1.20", "127.0.0.1", "::1"])
            let verified = try openssl(["verify", "-CAfile", "ca.pem", "-verify_ip", "192.168.1.20", "server.pem"], in: directory)
            #expect(verified.status == 0, "\(verified.errorOutput)")
            let again = try LocalCertificateAuthority.ensure(directory: directory, hostnames: ["192.168.1.21"])
            #expect(again.caRegenerated)
        }
    }

    @Test func expiringServerCertificateIsRenewedWithTheSameCA() throws {
        try withTemporaryDirectory { directory in
            let start = Date()
            _ = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames, now: start)
            let server = try X509Certificate(pem: String(contentsOfFile: "\(directory)/server.pem", encoding: .utf8))
            let nearlyExpired = server.notAfter.addingTimeInterval(-86400)
            let renewed = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames, now: nearlyExpired)
            #expect(renewed.serverCertificateIssued && !renewed.caRegenerated)
            let stillFine = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames, now: nearlyExpired)
            #expect(!stillFine.generated)
        }
    }

    @Test func damagedFilesAreReplacedNotFatal() throws {
        try withTemporaryDirectory { directory in
            _ = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            try write("-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n", to: "\(directory)/server.pem")
            let repaired = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            #expect(repaired.serverCertificateIssued && !repaired.caRegenerated)

            try write("not a key", to: "\(directory)/ca.key.pem")
            let regenerated = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            #expect(regenerated.caRegenerated && regenerated.serverCertificateIssued)
            #expect(try openssl(["verify", "-CAfile", "ca.pem", "server.pem"], in: directory).status == 0)
        }
    }

    @Test func looseKeyPermissionsAreTightenedOnReuse() throws {
        try withTemporaryDirectory { directory in
            let paths = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            chmod(paths.caKey, 0o644)
            chmod(paths.serverKey, 0o640)
            _ = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
            #expect(SecureFile.permissions(paths.caKey) == 0o600)
            #expect(SecureFile.permissions(paths.serverKey) == 0o600)
        }
    }

    @Test(arguments: ["", "bad name", "a,b.com", "*", "*.com", "foo..bar", "-a.com", "a-.com", "a_b.com", "ä.com",
                      "a.*.com", "DNS:x.com", String(repeating: "a", count: 64) + ".com"])
    func unusableHostnamesAreRejectedBeforeTouchingFiles(hostname: String) throws {
        try withTemporaryDirectory { directory in
            let error = #expect(throws: CryptoError.self) {
                try LocalCertificateAuthority.ensure(directory: directory + "/certs", hostnames: [hostname])
            }
            #expect(error?.code == .invalidName)
            #expect(!FileManager.default.fileExists(atPath: directory + "/certs"))
        }
    }

    /// `openssl x509 -text` of one file after a fresh `ensure` with `hostnames`.
    private func issuedCertificateText(_ file: String, in directory: String) throws -> String {
        _ = try LocalCertificateAuthority.ensure(directory: directory, hostnames: hostnames)
        return try openssl(["x509", "-in", file, "-noout", "-text"], in: directory).output
    }

    private func snapshot(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)"))
        }
        return files
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
