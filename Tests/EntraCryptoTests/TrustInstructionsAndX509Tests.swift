import Foundation
import Testing
@testable import EntraCrypto

@Suite struct TrustInstructionsTests {
    @Test func givesConcreteCommandsForEveryPlatform() throws {
        try withTemporaryDirectory { directory in
            let paths = try LocalCertificateAuthority.ensure(directory: directory, hostnames: ["*.b2clogin.com"])
            let text = LocalCertificateAuthority.trustInstructions(caPath: paths.caCertificate)
            let ca = paths.caCertificate
            #expect(text.contains("sudo cp \(ca) /usr/local/share/ca-certificates/fakeentra.crt"))
            #expect(text.contains("sudo update-ca-certificates"))
            #expect(text.contains("sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(ca)"))
            #expect(text.contains("xcrun simctl keychain booted add-root-cert \(ca)"))
            #expect(text.contains("export REQUESTS_CA_BUNDLE=\(ca)"))
            #expect(text.contains("export SSL_CERT_FILE=\(ca)"))
            #expect(text.contains("export NODE_EXTRA_CA_CERTS=\(ca)"))
            #expect(text.contains("vouch only for: b2clogin.com, localhost, 127.0.0.1, ::1"))
            let ca256 = try X509Certificate(pem: String(contentsOfFile: ca, encoding: .utf8)).sha256Thumbprint
            #expect(text.contains(ca256.map { String(format: "%02X", $0) }.joined(separator: ":")))
        }
    }

    @Test func quotesPathsForTheShell() {
        let text = LocalCertificateAuthority.trustInstructions(caPath: "/Users/Jo O'Neil/Certs/ca.pem")
        #expect(text.contains(#"export NODE_EXTRA_CA_CERTS='/Users/Jo O'\''Neil/Certs/ca.pem'"#))
        #expect(!text.contains("fingerprint"))   // no readable CA there: commands only
        #expect(LocalCertificateAuthority.shellQuoted("/tmp/Certs/ca.pem") == "/tmp/Certs/ca.pem")
        #expect(LocalCertificateAuthority.shellQuoted("$(rm -rf ~)") == "'$(rm -rf ~)'")
    }
}

@Suite struct X509CertificateTests {
    @Test func parsesABundleInOrder() throws {
        try withTemporaryDirectory { directory in
            let paths = try LocalCertificateAuthority.ensure(directory: directory, hostnames: [])
            let server = try String(contentsOfFile: paths.serverCertificate, encoding: .utf8)
            let ca = try String(contentsOfFile: paths.caCertificate, encoding: .utf8)
            let chain = try X509Certificate.parseAll(pem: "leading text\n" + server + ca)
            #expect(chain.count == 2)
            #expect(chain[0].subjectCommonName == "FakeEntra local server")
            #expect(chain[1].subjectCommonName?.hasPrefix("FakeEntra local CA ") == true)
            #expect(chain[0].isSigned(by: try chain[1].publicKey))
            #expect(!chain[1].isSigned(by: try chain[0].publicKey))
            #expect(chain[1].isCertificateAuthority && !chain[0].isCertificateAuthority)
            #expect(chain[0].permittedSubtrees == nil)
            #expect(try X509Certificate(der: chain[0].der) == chain[0])
            #expect(try X509Certificate(pem: chain[0].pem) == chain[0])
        }
    }

    @Test func badCertificateInputThrows() {
        #expect(throws: CryptoError.self) { try X509Certificate.parseAll(pem: "") }
        #expect(throws: CryptoError.self) { try X509Certificate.parseAll(pem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") }
        #expect(throws: CryptoError.self) { try X509Certificate(der: []) }
        #expect(throws: CryptoError.self) { try X509Certificate(der: [0x30, 0x82, 0xFF, 0xFF, 0x00]) }
    }

    @Test func datesComeFromTheCertificate() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let credential = try SigningCredential.issue(for: sharedKey, commonName: "dates", validFor: 86400, now: now)
        #expect(credential.certificate.notBefore == now.addingTimeInterval(-3600))
        #expect(credential.certificate.notAfter == now.addingTimeInterval(86400))
    }
}
