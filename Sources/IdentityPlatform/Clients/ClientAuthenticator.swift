import EntraCrypto
package import EntraHTTP
package import FoundationGaps

/// How a client proved who it is; the value of `appidacr`/`azpacr` in its tokens.
package enum ClientAuthenticationMethod: Int, Sendable, Equatable {
    case none = 0
    case secret = 1
    case certificate = 2
}

/// The client credentials a /token request carries (body, or HTTP Basic for the secret).
package struct PresentedClientCredentials: Sendable, Equatable {
    package var clientID: String?
    package var secret: String?
    package var assertionType: String?
    package var assertion: String?

    package init(clientID: String? = nil, secret: String? = nil, assertionType: String? = nil, assertion: String? = nil) {
        self.clientID = clientID
        self.secret = secret
        self.assertionType = assertionType
        self.assertion = assertion
    }

    package static let jwtBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// Reads `client_id`, `client_secret`, `client_assertion_type`, `client_assertion` and an
    /// `Authorization: Basic` header (RFC 6749 §2.3.1: both halves form-encoded).
    package init(parameters: FormParameters, headers: HTTPHeaders) {
        clientID = parameters["client_id"].flatMap { $0.isEmpty ? nil : $0 }
        secret = parameters["client_secret"].flatMap { $0.isEmpty ? nil : $0 }
        assertionType = parameters["client_assertion_type"]
        assertion = parameters["client_assertion"].flatMap { $0.isEmpty ? nil : $0 }
        if let authorization = headers["Authorization"], authorization.lowercased().hasPrefix("basic "),
           let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
           let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") {
            let id = FormCoding.percentDecode(String(text[..<colon]).replacingOccurrences(of: "+", with: " ")) ?? String(text[..<colon])
            let password = String(text[text.index(after: colon)...])
            if clientID == nil { clientID = id }
            if secret == nil { secret = FormCoding.percentDecode(password.replacingOccurrences(of: "+", with: " ")) ?? password }
        }
    }
}

package struct AuthenticatedClient: Sendable, Equatable {
    package var client: ResolvedClient
    package var method: ClientAuthenticationMethod

    package var application: Application { client.application }
    package var isConfidential: Bool { method != .none }
}

package enum ClientAuthenticator {
    /// Authenticates the client of a /token request. A lenient (unregistered) client presenting a secret
    /// is registered as a confidential client bound to that secret. `requireCredential` is set by the
    /// grants only confidential clients may use (client credentials, on-behalf-of).
    package static func authenticate(
        _ presented: PresentedClientCredentials, client: ResolvedClient, service: IdentityService, audience: AssertionAudience, now: Date,
        requireCredential: Bool = false
    ) throws(ClientRefusal) -> AuthenticatedClient {
        let app = client.application
        if let assertion = presented.assertion {
            guard presented.assertionType == PresentedClientCredentials.jwtBearerAssertionType else {
                throw .assertion(.invalidClientAssertionType(presented.assertionType))
            }
            guard client.isRegistered else {
                // An unknown client's assertion carrying its certificate (`x5c`) binds that certificate.
                guard let certificate = ClientAssertionValidator.embeddedCertificate(of: assertion) else {
                    throw .notRegistered(clientID: app.clientID, tenant: "common")
                }
                let bound = try bind(clientID: app.clientID, service: service, now: now, newCredential: { $0.certificates = [certificate.pem] }) { existing throws(ClientRefusal) in
                    do throws(IdentityError) { try ClientAssertionValidator.validate(assertion, application: existing, audience: audience, now: now) } catch { throw .assertion(error) }
                }
                return AuthenticatedClient(client: ResolvedClient(application: bound, isRegistered: true), method: .certificate)
            }
            if !app.federatedCredentials.isEmpty, FederatedAssertionValidator.isFederated(assertion, clientID: app.clientID) {
                do throws(IdentityError) { try FederatedAssertionValidator.validate(assertion, application: app, now: now) } catch { throw .assertion(error) }
                return AuthenticatedClient(client: client, method: .certificate)
            }
            if app.isPublicClient && app.certificates.isEmpty && app.secrets.isEmpty { throw .publicClientSentCredential }
            do throws(IdentityError) { try ClientAssertionValidator.validate(assertion, application: app, audience: audience, now: now) } catch { throw .assertion(error) }
            return AuthenticatedClient(client: client, method: .certificate)
        }
        if let secret = presented.secret {
            guard client.isRegistered else {
                let bound = try bind(clientID: app.clientID, service: service, now: now, newCredential: { $0.secrets = [.init(value: secret)] }) { existing throws(ClientRefusal) in
                    try verifySecret(secret, of: existing, now: now)
                }
                return AuthenticatedClient(client: ResolvedClient(application: bound, isRegistered: true), method: .secret)
            }
            try verifySecret(secret, of: app, now: now)
            return AuthenticatedClient(client: client, method: .secret)
        }
        if requireCredential || (client.isRegistered && app.requiresCredential) { throw .credentialMissing }
        return AuthenticatedClient(client: client, method: .none)
    }

    static func verifySecret(_ secret: String, of app: Application, now: Date) throws(ClientRefusal) {
        guard !app.secrets.isEmpty else {
            if app.isPublicClient && app.certificates.isEmpty { throw .publicClientSentCredential }
            throw .secretInvalid(clientID: app.clientID)
        }
        guard let match = app.secrets.first(where: { ConstantTime.equals($0.value, secret) }) else {
            throw .secretInvalid(clientID: app.clientID)
        }
        if let expiry = match.expiresAt, expiry <= now { throw .secretExpired(clientID: app.clientID) }
    }

    /// First use of an unknown client id with a credential: it becomes a confidential app bound to that
    /// credential, which must then verify. Done under the directory lock so two concurrent first requests
    /// cannot bind two credentials; a client bound meanwhile is verified against what it was bound to.
    static func bind(
        clientID: String, service: IdentityService, now: Date, newCredential: (inout Application) -> Void,
        verify: (Application) throws(ClientRefusal) -> Void
    ) throws(ClientRefusal) -> Application {
        let result: Result<Application, ClientRefusal> = service.directory.withLock { directory in
            var app: Application
            if let existing = directory.application(clientID: clientID) {
                app = existing
            } else {
                app = ClientResolver.lenientApplication(clientID: clientID)
                app.isPublicClient = false
                newCredential(&app)
            }
            do throws(ClientRefusal) {
                try verify(app)
            } catch {
                return .failure(error)
            }
            if !directory.hasApplication(clientID: clientID) { directory.applications.append(app) }
            return .success(app)
        }
        return try result.get()
    }

}

extension Application {
    /// A confidential client must authenticate on every /token request (AADSTS7000218 otherwise).
    var requiresCredential: Bool { !isPublicClient }
}
