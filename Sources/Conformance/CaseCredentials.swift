import EntraCrypto
import FoundationGaps
import IdentityPlatform

/// A confidential client's credentials for one case: what the app is given and what its registration holds.
/// Keys are made per case, so no case's refusal or rollover reaches another.
struct CaseCredentials {
    var credential: ClientCredential
    var registeredSecrets: [Application.Secret]
    var registeredCertificates: [String]
    /// What the registration holds after a certificate rollover.
    var rolledCertificate: String?

    /// nil for a public client.
    static func issue(for client: ClientKind, case conformanceCase: ConformanceCase, now: Date = Date()) throws(ConformanceError) -> CaseCredentials? {
        switch client {
        case .publicClient, .singlePageApp:
            return nil
        case .secret:
            // The length and alphabet of the portal's secrets (40 characters).
            let secret = SecureRandom.base64URLString(byteCount: 30)
            return CaseCredentials(credential: ClientCredential(kind: .secret, secret: secret),
                                   registeredSecrets: [.init(value: secret, expiresAt: conformanceCase.secretLifetime.map(now.addingTimeInterval))],
                                   registeredCertificates: [])
        case .certificate:
            let first = try certificate(for: conformanceCase)
            let rolled = try conformanceCase.rollsCertificateAfterStep.map { _ throws(ConformanceError) in try certificate(for: conformanceCase) }
            return CaseCredentials(
                credential: ClientCredential(kind: .certificate, certificate: first.privateKey.pem + first.certificate.pem,
                                             nextCertificate: rolled.map { $0.privateKey.pem + $0.certificate.pem },
                                             rolloverAfterStep: conformanceCase.rollsCertificateAfterStep),
                registeredSecrets: [], registeredCertificates: [first.certificate.pem], rolledCertificate: rolled?.certificate.pem
            )
        }
    }

    private static func certificate(for conformanceCase: ConformanceCase) throws(ConformanceError) -> SigningCredential {
        do {
            return try SigningCredential.generate(commonName: "FakeEntra conformance \(conformanceCase.id)", validFor: 7 * 86400)
        } catch {
            throw ConformanceError(status: 500, code: "credential_failed", message: "no certificate could be made for the case: \(error)")
        }
    }
}
