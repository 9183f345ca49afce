import IdentityPlatform

extension ClientRefusal {
    /// B2C's words for a client the shared resolution or authentication refused.
    func b2c(tenant: String) -> IdentityError {
        switch self {
        case .notRegistered(let clientID, _): .b2cClientNotRegistered(clientID, tenant: tenant)
        case .credentialMissing: .b2cMissingClientSecret()
        case .secretInvalid, .secretExpired: .b2cWrongClientSecret()
        case .publicClientSentCredential: .b2cPublicClientSentSecret()
        case .assertion(let error): error
        }
    }
}
