/// Why the shared client resolution or authentication refused a client. Entra's endpoints and B2C's word
/// it each in their own catalogue (`entra`, and B2C's `b2c(tenant:)`), from these facts rather than from
/// another service's message.
package enum ClientRefusal: Error, Sendable, Equatable {
    /// No app with this id in the authority's tenant (strict mode, or an id no registration could have).
    case notRegistered(clientID: String, tenant: String)
    /// A confidential client (or a grant only they may use) presented no secret and no assertion.
    case credentialMissing
    case secretInvalid(clientID: String)
    case secretExpired(clientID: String)
    /// A public client presented a secret or an assertion.
    case publicClientSentCredential
    /// A client or federated assertion was refused. Its words are the platform's wherever it was sent:
    /// B2C documents none of its own for them.
    case assertion(IdentityError)

    /// Entra's words; `missingCredential` is the grant's own for `credentialMissing` (client credentials
    /// name the parameters differently).
    package func entra(missingCredential: IdentityError = .missingClientCredential()) -> IdentityError {
        switch self {
        case .notRegistered(let clientID, let tenant): .applicationNotFound(clientID, tenant: tenant)
        case .credentialMissing: missingCredential
        case .secretInvalid(let clientID): .invalidClientSecret(clientID: clientID)
        case .secretExpired(let clientID): .clientSecretExpired(clientID: clientID)
        case .publicClientSentCredential: .publicClientSentSecret()
        case .assertion(let error): error
        }
    }
}
