import EntraCrypto
import FoundationGaps
import LocatedJSON

/// A federated identity credential on an app (workload identity federation): a token of another issuer
/// (a Kubernetes service account, GitHub Actions, another cloud) is accepted as the app's client assertion
/// when its issuer, subject and an audience match. Entra fetches the issuer's keys from its OpenID
/// metadata; FakeEntra makes no outbound request, so the issuer's signing certificates are configured here.
package struct FederatedCredential: Sendable, Codable, Equatable {
    package var issuer: String
    package var subject: String
    package var audiences: [String]
    /// PEM certificates whose keys the issuer signs with.
    package var certificates: [String]

    /// The audience Microsoft's docs and azure-identity use for token exchange.
    package static let defaultAudience = "api://AzureADTokenExchange"

    package init(issuer: String, subject: String, audiences: [String] = [defaultAudience], certificates: [String]) {
        self.issuer = issuer
        self.subject = subject
        self.audiences = audiences
        self.certificates = certificates
    }
}

/// Validates a client assertion issued by someone other than the client: it must match one of the app's
/// federated credentials (issuer, then subject, then audience, each with Entra's own error when none
/// does), be signed by that issuer's key, and be in date. The messages are the service's (AADSTS700211,
/// 700212, 700213; learn.microsoft.com, "Workload identity federation: troubleshooting"), as worded since
/// late 2024 ("Check your federated identity credential…"; earlier "Please check…": Azure/login issues 453, 482).
enum FederatedAssertionValidator {
    /// True when the assertion's issuer is not the client itself: a federated token, not the app's own.
    static func isFederated(_ assertion: String, clientID: String) -> Bool {
        guard let issuer = ParsedJWT(assertion)?.string("iss") else { return false }
        return issuer.lowercased() != clientID.lowercased()
    }

    static func validate(_ assertion: String, application app: Application, now: Date) throws(IdentityError) {
        guard let jwt = ParsedJWT(assertion) else { throw .malformedClientAssertion("JWT token is invalid or malformed.") }
        let issuer = jwt.string("iss") ?? ""
        let fromIssuer = app.federatedCredentials.filter { $0.issuer == issuer }
        guard !fromIssuer.isEmpty else { throw .federatedIssuerNotFound(issuer) }
        let subject = jwt.string("sub") ?? ""
        let forSubject = fromIssuer.filter { $0.subject == subject }
        guard !forSubject.isEmpty else { throw .federatedSubjectNotFound(subject) }
        let audiences = jwt.audiences
        guard let credential = forSubject.first(where: { !Set($0.audiences).isDisjoint(with: audiences) }) else {
            throw .federatedAudienceNotFound(audiences.first ?? "")
        }
        try ClientAssertionValidator.checkAlgorithm(of: jwt)
        let keys = credential.certificates.compactMap { try? X509Certificate(pem: $0).publicKey }
        guard ClientAssertionValidator.verifier.isSigned(jwt, byOneOf: keys) else {
            throw .clientAssertionSignatureInvalid(clientID: app.clientID)
        }
        try ClientAssertionValidator.checkValidity(of: jwt, now: now)
    }
}
