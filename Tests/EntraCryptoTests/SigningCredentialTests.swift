import Foundation
import Testing
@testable import EntraCrypto

@Suite struct SigningCredentialTests {
    @Test func keyIDIsTheBase64URLSHA1Thumbprint() throws {
        let credential = try SigningCredential.issue(for: sharedKey, commonName: "kid test", validFor: 86400, now: Date())
        #expect(credential.keyID == Base64URL.encode(Digest.sha1(credential.certificate.der)))
        #expect(credential.keyID.count == 27)
        #expect(credential.certificate.subjectCommonName == "kid test")
    }

    @Test func generateMakesAFreshSelfSignedCredential() throws {
        let credential = try SigningCredential.generate(commonName: "fresh", validFor: 3600)
        #expect(credential.certificate.subjectCommonName == "fresh")
        #expect(credential.certificate.isSigned(by: credential.privateKey.publicKey))
        #expect(credential.certificate.notAfter.timeIntervalSince(credential.certificate.notBefore) == 3600 + 3600)
        #expect(try credential.certificate.publicKey == credential.privateKey.publicKey)
        #expect(credential.privateKey.publicKey != sharedKey.publicKey)
    }

    @Test func thumbprintMatchesOpenSSLFingerprint() throws {
        let credential = try SigningCredential.issue(for: sharedKey, commonName: "fp", validFor: 86400, now: Date())
        try withTemporaryDirectory { directory in
            try write(credential.certificate.pem, to: "\(directory)/cert.pem")
            let sha1 = try openssl(["x509", "-in", "cert.pem", "-noout", "-fingerprint", "-sha1"], in: directory)
            let sha256 = try openssl(["x509", "-in", "cert.pem", "-noout", "-fingerprint", "-sha256"], in: directory)
            func fingerprint(_ output: String) -> String {
                String(output.split(separator: "=").last ?? "").replacingOccurrences(of: ":", with: "")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            #expect(fingerprint(sha1.output) == hex(credential.certificate.sha1Thumbprint))
            #expect(fingerprint(sha256.output) == hex(credential.certificate.sha256Thumbprint))
        }
    }

    @Test func jwkDescribesTheKeyAndCertificate() throws {
        let credential = try SigningCredential.issue(for: sharedKey, commonName: "jwk", validFor: 86400, now: Date())
        let jwk = credential.jwk(issuer: "https://login.microsoftonline.com/t/v2.0")
        #expect(jwk.kty == "RSA" && jwk.use == "sig")
        #expect(jwk.kid == credential.keyID && jwk.x5t == credential.keyID)
        #expect(jwk.e == "AQAB")
        #expect(Base64URL.decode(jwk.n) == sharedKey.publicKey.modulus)
        #expect(try jwk.rsaPublicKey() == sharedKey.publicKey)
        let chain = try #require(jwk.x5c)
        #expect(chain.count == 1)
        let certificate = try X509Certificate(der: [UInt8](try #require(Data(base64Encoded: chain[0]))))
        #expect(certificate == credential.certificate)
        #expect(jwk.issuer == "https://login.microsoftonline.com/t/v2.0")

        let encoded = String(decoding: try JSONEncoder().encode(JSONWebKeySet(keys: [credential.jwk()])), as: UTF8.self)
        #expect(!encoded.contains("issuer"))
        #expect(try JSONDecoder().decode(JSONWebKeySet.self, from: Data(encoded.utf8)).keys == [credential.jwk()])

        // Entra's keys name their cloud; B2C's carry neither certificate nor thumbprint.
        let entra = String(decoding: try JSONEncoder().encode(credential.jwk(cloudInstanceName: "microsoftonline.com")), as: UTF8.self)
        #expect(entra.contains(#""cloud_instance_name":"microsoftonline.com""#))
        let bare = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(credential.jwk(bare: true))) as? [String: Any])
        #expect(Set(bare.keys) == ["kty", "use", "kid", "n", "e"])
    }

    @Test func jwkModulusMatchesOpenSSLModulus() throws {
        let credential = try SigningCredential.issue(for: sharedKey, commonName: "n", validFor: 86400, now: Date())
        try withTemporaryDirectory { directory in
            try write(credential.certificate.pem, to: "\(directory)/cert.pem")
            let result = try openssl(["x509", "-in", "cert.pem", "-noout", "-modulus"], in: directory)
            let modulus = result.output.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
            #expect(modulus == hex(try #require(Base64URL.decode(credential.jwk().n))))
        }
    }

    @Test func loadOrCreatePersistsTheKeyWithMode0600() throws {
        try withTemporaryDirectory { directory in
            let first = try SigningCredential.loadOrCreate(directory: directory)
            #expect(SecureFile.permissions("\(directory)/token-signing.key.pem") == 0o600)
            #expect(SecureFile.exists("\(directory)/token-signing.cert.pem"))
            let second = try SigningCredential.loadOrCreate(directory: directory)
            #expect(second.keyID == first.keyID)
            #expect(second.privateKey.publicKey == first.privateKey.publicKey)
            let token = try JWS.signJWT(payloadJSON: Array("{}".utf8), credential: first)
            #expect(JWS.verifyRS256(try #require(JWS.decode(token)), key: try second.certificate.publicKey))
        }
    }

    @Test func loadOrCreateTightensALooseKeyFile() throws {
        try withTemporaryDirectory { directory in
            _ = try SigningCredential.loadOrCreate(directory: directory, name: "k")
            chmod("\(directory)/k.key.pem", 0o644)
            _ = try SigningCredential.loadOrCreate(directory: directory, name: "k")
            #expect(SecureFile.permissions("\(directory)/k.key.pem") == 0o600)
        }
    }

    @Test func missingCertificateIsReissuedForTheSameKey() throws {
        try withTemporaryDirectory { directory in
            let first = try SigningCredential.loadOrCreate(directory: directory)
            try FileManager.default.removeItem(atPath: "\(directory)/token-signing.cert.pem")
            let second = try SigningCredential.loadOrCreate(directory: directory)
            #expect(second.privateKey.publicKey == first.privateKey.publicKey)
        }
    }

    @Test func expiredCertificateIsRenewedForTheSameKey() throws {
        try withTemporaryDirectory { directory in
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            let first = try SigningCredential.loadOrCreate(directory: directory, name: "t", now: start)
            let later = first.certificate.notAfter.addingTimeInterval(1)
            let renewed = try SigningCredential.loadOrCreate(directory: directory, name: "t", now: later)
            #expect(renewed.keyID != first.keyID)
            #expect(renewed.privateKey.publicKey == first.privateKey.publicKey)
            #expect(renewed.certificate.notAfter > later)
        }
    }

    @Test func mismatchedCertificateIsAnError() throws {
        try withTemporaryDirectory { directory in
            _ = try SigningCredential.loadOrCreate(directory: directory, name: "a")
            _ = try SigningCredential.loadOrCreate(directory: directory, name: "b")
            try FileManager.default.removeItem(atPath: "\(directory)/a.cert.pem")
            try FileManager.default.copyItem(atPath: "\(directory)/b.cert.pem", toPath: "\(directory)/a.cert.pem")
            #expect(throws: CryptoError(.invalidKey, "")) { try SigningCredential.loadOrCreate(directory: directory, name: "a") }
        }
    }

    @Test func corruptKeyFileIsAnErrorNotACrash() throws {
        try withTemporaryDirectory { directory in
            try write("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", to: "\(directory)/token-signing.key.pem")
            #expect(throws: CryptoError(.invalidPEM, "")) { try SigningCredential.loadOrCreate(directory: directory) }
        }
    }
}
